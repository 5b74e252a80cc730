"""`kata serve`: the language server. core never imports the server: the server registers itself as the
`serve` command (pyproject's infrakata.commands entry points)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from infrakata.core.cli.command import Command, Context
from infrakata.core.errors import KataError


def handle(ctx: Context, args: argparse.Namespace) -> int:
    from importlib.metadata import entry_points

    found = list(entry_points(group="infrakata.commands", name="serve"))
    if not found:
        raise KataError("the language server is not installed with this infrakata (reinstall: scripts/setup)")
    serve: Callable[[list[str]], int] = found[0].load()
    return serve(args.passed)


# Its options (--tcp HOST:PORT, --log-level LEVEL) are the server's own: passed through.
COMMAND = Command("serve", "run the language server on stdio (--tcp HOST:PORT for TCP)", handle,
                  passes_through=True)
