"""`initialize` and `shutdown`: settings, the catalogue, warm workers and the file watcher; clean up."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .server import initialization_settings

if TYPE_CHECKING:
    from .server import KataServer


def register(server: KataServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: KataServer, params: types.InitializeParams) -> None:
        root = ls.workspace.root_path
        ls.root = Path(root) if root else None
        ls.client_name = params.client_info.name if params.client_info is not None else ""
        threading.Thread(target=ls.warm_up, args=(asyncio.get_running_loop(),), name="kata-warm-up",
                         daemon=True).start()
        ls.configure(initialization_settings(params.initialization_options))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: KataServer, params: Any) -> None:
        ls.close()
