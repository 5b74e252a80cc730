"""`workspace/didChangeConfiguration`: the `infrakata` settings section, over kata.toml.

Settings pushed in `settings.infrakata` apply before the next message is handled; when a client
pushes no such section, it is pulled with `workspace/configuration`, and a client with nothing to
say (null) leaves the settings as they are. A change of the problems or of the file mapping
regrades the open documents (KataServer.configure).
"""

from __future__ import annotations

from lsprotocol import types

from .server import SECTION, KataServer  # pygls reads handlers' type hints at run time


async def _pull(ls: KataServer) -> None:
    pulled = await ls.workspace_configuration_async(
        types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
    if pulled and pulled[0] is not None:
        ls.configure(pulled[0])


def register(server: KataServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: KataServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings.get(SECTION) if isinstance(params.settings, dict) else None
        if settings is not None:
            ls.configure(settings)
        elif ls.supports("workspace.configuration"):
            ls.background(_pull(ls))
