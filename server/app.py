"""The language server put together: KataServer with every feature registered. Features import the
server (server/server.py); only this module imports them all, so nothing imports in a circle."""

from __future__ import annotations

from infrakata.server import code_lens, commands, configuration, hover, inlay_hints, learning, lifecycle, sync
from infrakata.server.server import KataServer


def create_server() -> KataServer:
    server = KataServer()
    for module in (lifecycle, configuration, sync, code_lens, hover, inlay_hints, commands, learning):
        module.register(server)
    return server
