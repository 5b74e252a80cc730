"""`workspace/didChangeConfiguration`: the `infrakata` settings section, over kata.toml.

Settings come pushed (`settings.infrakata`, or the section's keys at the top level) or, when a
client pushes nothing, pulled with `workspace/configuration`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:
    from .server import KataServer

SECTION = "infrakata"


def editor_settings(value: Any) -> dict[str, Any] | None:
    """The `infrakata` section of initializationOptions or pushed settings; None if absent."""
    if not isinstance(value, dict) or not value:
        return None
    section = value.get(SECTION, value)
    return section if isinstance(section, dict) else None


def register(server: KataServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: KataServer, params: types.DidChangeConfigurationParams) -> None:
        settings = editor_settings(params.settings)
        if settings is None and ls.supports("workspace.configuration"):
            pulled = await ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
            settings = editor_settings({SECTION: pulled[0]} if pulled else None)
        ls.configure(settings or {})
