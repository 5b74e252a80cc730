"""The server says once, at start, what confines the workers it grades in (as `kata doctor` does)."""

from __future__ import annotations

import pytest
from infrakata.core.sandbox.confine import LAYERS

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_the_server_logs_the_sandboxs_layers_at_start(shared):
    def logged():
        return [m.message for m in shared.log_messages if "the sandbox on" in m.message]

    report = await shared.wait_for(logged)
    assert len(report) == 1 and all(name in report[0] for name in LAYERS)
    assert "every layer holds" in report[0] or "missing:" in report[0]
