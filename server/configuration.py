"""`workspace/didChangeConfiguration`: the `infrakata` settings section, over kata.toml.

Settings come pushed (`settings.infrakata`, or the section's keys at the top level) and apply
before the next message is handled; when a client pushes nothing, they are pulled with
`workspace/configuration`. A change of the problems or of the file mapping regrades the open
documents, whose problem may have changed.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from .server import KataServer  # pygls reads handlers' type hints at run time

SECTION = "infrakata"


def editor_settings(value: Any) -> dict[str, Any] | None:
    """The `infrakata` section of initializationOptions or pushed settings; None if absent."""
    if not isinstance(value, dict) or not value:
        return None
    section = value.get(SECTION, value)
    return section if isinstance(section, dict) else None


async def _pull(ls: KataServer) -> None:
    pulled = await ls.workspace_configuration_async(
        types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
    ls.configure(editor_settings({SECTION: pulled[0]} if pulled else None) or {})


def register(server: KataServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: KataServer, params: types.DidChangeConfigurationParams) -> None:
        settings = editor_settings(params.settings)
        if settings is None and ls.supports("workspace.configuration"):
            ls.background(_pull(ls))
        else:
            ls.configure(settings or {})
