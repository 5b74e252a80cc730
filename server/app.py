"""The language server put together: KataServer with every feature registered. Features import the
server (server/server.py) and meet only through it (its methods and events); only this module imports
them all, so nothing imports in a circle."""

from __future__ import annotations

from infrakata.server import (
    code_lens,
    commands,
    configuration,
    diagnostics,
    hover,
    inlay_hints,
    learning,
    lifecycle,
    sync,
    watcher,
)
from infrakata.server.server import KataServer


def create_server() -> KataServer:
    server = KataServer()
    for module in (lifecycle, configuration, sync, diagnostics, watcher, code_lens, hover, inlay_hints, commands,
                   learning):
        module.register(server)
    return server
