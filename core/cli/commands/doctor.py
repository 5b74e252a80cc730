"""`kata doctor`: the sandbox's layers and the GPUs here (core/sandbox/doctor.py)."""

from __future__ import annotations

import argparse
import json

from infrakata.core.cli.command import Command, Context
from rich.console import Console
from rich.markup import escape


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true")


def handle(ctx: Context, args: argparse.Namespace) -> int:
    """Exit 0 when every layer holds and the GPU (if any) can be graded on, 1 otherwise."""
    from infrakata.core.sandbox.doctor import diagnose, format_diagnosis

    diagnosis = diagnose(ctx.pool())
    if args.json:
        print(json.dumps(diagnosis.to_dict(), ensure_ascii=False, indent=2))
    else:
        Console(highlight=False, soft_wrap=True).print(escape(format_diagnosis(diagnosis)))
    return 0 if diagnosis.to_dict()["complete"] and diagnosis.gpu_problem is None else 1


COMMAND = Command("doctor", "the sandbox's layers on this machine, and why any is missing", handle, arguments,
                  needs_pool=True)
