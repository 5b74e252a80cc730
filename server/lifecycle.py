"""`initialize`, `initialized` and `shutdown`: load the catalogue, warm the workers, clean up."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .configuration import editor_settings

if TYPE_CHECKING:
    from .server import KataServer


def register(server: KataServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: KataServer, params: types.InitializeParams) -> None:
        root = ls.workspace.root_path
        ls.root = Path(root) if root else None
        ls.start_workers()
        ls.configure(editor_settings(params.initialization_options) or {})

    @server.feature(types.INITIALIZED)
    async def initialized(ls: KataServer, params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls._watch()

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: KataServer, params: Any) -> None:
        ls.close()
