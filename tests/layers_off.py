"""Runs a command on this machine as it would run on one that lacks a layer of the sandbox: a seccomp
filter in this process (inherited by the command and everything it starts, the grader's zygote and
workers included) answers the system calls a layer is made with as a kernel or container without it
would.

    python tests/layers_off.py namespaces,landlock -- kata doctor

namespaces  unshare and setns fail with EPERM (as under a container runtime that refuses them, or
            Ubuntu's AppArmor restriction of unprivileged user namespaces)
landlock    landlock_create_ruleset fails with ENOSYS (a kernel built without Landlock)
"""

from __future__ import annotations

import errno
import os
import sys

import pyseccomp as sc

REFUSED = {
    "namespaces": (("unshare", errno.EPERM), ("setns", errno.EPERM)),
    "landlock": (("landlock_create_ruleset", errno.ENOSYS),),
}


def main() -> None:
    layers, separator, *command = sys.argv[1:]
    if separator != "--" or not command:
        sys.exit(__doc__)
    program = sc.SyscallFilter(sc.ALLOW)
    for layer in layers.split(","):
        for call, error in REFUSED[layer]:
            program.add_rule(sc.ERRNO(error), call)
    program.load()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
