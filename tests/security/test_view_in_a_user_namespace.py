"""The view where the grader is not root: its workers' mount namespace is owned by a user namespace,
where the mounts below a folder are locked to it. /sys (its cgroup mounts below) then binds only with
them; binding it alone failed (EINVAL) and left every ordinary user's workers without the view."""

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from infrakata.core.sandbox import confine, policy
from infrakata.core.sandbox.libc import c_library

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux namespaces")


def _mounts_below(folder: str) -> bool:
    with open("/proc/self/mountinfo") as table:
        return any(line.split()[4].startswith(folder + "/") for line in table)


@pytest.mark.skipif(not _mounts_below("/sys"), reason="/sys has no mount below it here")
def test_a_folder_with_mounts_below_it_is_placed_in_a_user_namespace():
    root = Path(tempfile.mkdtemp(prefix="kata-view-test-"))
    child = os.fork()
    if child == 0:  # as the zygote of an ordinary user does: a user namespace owning a mount namespace
        code = 1
        try:
            libc = c_library()
            uid, gid = os.getuid(), os.getgid()
            if libc.unshare(confine.CLONE_NEWUSER | confine.CLONE_NEWNS) != 0:
                os._exit(3)  # no user namespaces here: nothing to check
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                Path(f"/proc/self/{name}").write_text(text)
            placed = confine._place(libc, root, policy.Grant("/sys", policy.READ))
            code = 0 if placed and (root / "sys" / "kernel").is_dir() else 2
        except BaseException:  # noqa: BLE001 - the parent reads the outcome from the exit code
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    shutil.rmtree(root, ignore_errors=True)  # the mounts were the child's namespace's: gone with it
    if os.waitstatus_to_exitcode(status) == 3:
        pytest.skip("no user namespaces on this machine")
    assert os.waitstatus_to_exitcode(status) == 0, "/sys could not be placed in the view from a user namespace"
