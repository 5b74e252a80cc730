"""The learner's path in the editor: `textDocument/codeAction` (show the next hint, show the solution
once accepted), the commands behind them (`kata.hint`, `kata.solution`, `kata.next`), and the
offer of the next kata after an acceptance (`window/showMessageRequest`, or a plain message).

Each handler calls the same core functions as `kata hint`, `kata solution` and `kata next`; the
progress store is the one `kata` uses for that file (the workspace's, else the per-user one).
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any

import attrs
from infrakata.core.catalog.problem import Problem
from infrakata.core.errors import LearningError
from infrakata.core.progress import learning
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path, to_fs_path

from .arguments import HINT, NEXT, SOLUTION, START_KATA, parse
from .server import KataServer  # pygls reads handlers' type hints at run time


@attrs.frozen
class HintArguments:
    """`kata.hint`: `[uri or slug, tier?]`."""

    target: str = attrs.field(validator=attrs.validators.instance_of(str))
    """A solution file's URI (its problem's hints) or a problem slug."""
    tier: int | None = attrs.field(default=None, validator=attrs.validators.optional(
        attrs.validators.instance_of(int)))
    """Show tiers 1..tier; absent: the next tier not yet seen."""


@attrs.frozen
class TargetArguments:
    """`kata.solution`, `kata.next`: `[uri or slug]` (`kata.next`: optional)."""

    target: str | None = attrs.field(default=None, validator=attrs.validators.optional(
        attrs.validators.instance_of(str)))
    """A solution file's URI or a problem slug."""


def _problem(ls: KataServer, command: str, target: str) -> Problem:
    if "://" in target:
        return ls.solution(command, target)[0]
    try:
        return ls.catalog.get(target)
    except LookupError as error:
        raise JsonRpcInvalidParams(f"{command}: {error}") from None


def _solution_uri(problem: Problem, markdown: str) -> str | None:
    path = Path(tempfile.gettempdir()) / "infrakata-solutions" / f"{problem.slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(markdown, encoding="utf-8")
    uri: str | None = from_fs_path(str(path))
    return uri


def offer_next(ls: KataServer, path: Path, problem: Problem, workspace: Path | None) -> None:
    """After `problem` was accepted in `path`: offer the next kata, once per problem and session."""
    if problem.slug in ls.offered_next:
        return
    ls.offered_next.add(problem.slug)
    following = learning.next_problem(ls.catalog.problems.values(), workspace, after=problem.slug)
    if following is None:
        ls.show(f"kata: {problem.slug} accepted; every kata is solved here")
        return
    message = f"kata: {problem.slug} accepted. Next: {following.slug} ({following.title})"
    if not ls.prompts_without_blocking():  # a plain message, and the code action starts it on request
        ls.show(f"{message}; start it with the code action \"kata: start {following.slug}\", or `kata start "
                f"{following.slug}`")
        return

    async def ask() -> None:
        action = f"Start {following.slug}"
        answer = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
            types.MessageType.Info, message, [types.MessageActionItem(action)]))
        if answer is not None and answer.title == action:
            await ls.open_starter(following, path.parent)

    ls.background(ask())


def register(server: KataServer) -> None:
    server.on_accepted.append(lambda path, problem, workspace: offer_next(server, path, problem, workspace))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
    def code_action(ls: KataServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        problem = ls.problem_of(uri)
        if problem is None:
            return None
        workspace = ls.workspace_of(uri)
        actions = []
        tier = learning.next_hint_tier(problem, workspace)
        if tier is not None:
            total = max(len(problem.hints), len(problem.hints_zh))
            actions.append(types.CodeAction(f"kata: show hint {tier} of {total}", command=types.Command(
                f"kata: show hint {tier} of {total}", HINT, arguments=[uri, tier])))
        if learning.solution(problem, workspace).unlocked:
            actions.append(types.CodeAction("kata: show the solution", command=types.Command(
                "kata: show the solution", SOLUTION, arguments=[uri])))
            following = learning.next_problem(ls.catalog.problems.values(), workspace, after=problem.slug)
            if following is not None:  # the way on, on request (an offer after the acceptance never blocks)
                folder = from_fs_path(str(Path(to_fs_path(uri) or ".").parent))
                title = f"kata: start {following.slug}"
                actions.append(types.CodeAction(title, command=types.Command(
                    title, START_KATA, arguments=[following.slug, folder])))
        return actions or None

    @server.command(HINT)
    def hint(ls: KataServer, *arguments: Any) -> dict[str, Any]:
        args = parse(HINT, HintArguments, arguments)
        problem = _problem(ls, HINT, args.target)
        try:
            shown = learning.hints(problem, ls.workspace_of(args.target), args.tier)
        except LearningError as error:
            raise JsonRpcInvalidParams(f"{HINT}: {error}") from None
        for item in shown:
            zh = f"\n{item.text_zh}" if item.text_zh and item.text_zh != item.text else ""
            ls.show(f"kata: {problem.slug} hint {item.tier}/{item.total}: {item.text}{zh}")
        return {"slug": problem.slug, "hints": [dataclasses.asdict(h) for h in shown]}

    @server.command(SOLUTION)
    async def solution(ls: KataServer, *arguments: Any) -> dict[str, Any]:
        target = parse(SOLUTION, TargetArguments, arguments).target
        if target is None:
            raise JsonRpcInvalidParams(f"{SOLUTION} takes [uri or slug]")
        problem = _problem(ls, SOLUTION, target)
        found = learning.solution(problem, ls.workspace_of(target))
        if not found.unlocked:
            ls.show(f"kata: {found.locked_message()}")
            return {"slug": problem.slug, "unlocked": False, "message": found.locked_message(),
                    "best_passed": found.best_passed, "total": found.total}
        markdown = found.markdown()
        uri = _solution_uri(problem, markdown)
        return {"slug": problem.slug, "unlocked": True, "editorial": found.editorial, "reference": found.reference,
                "markdown": markdown, "uri": uri, "shown": await ls.show_document(uri)}

    @server.command(NEXT)
    def next_kata(ls: KataServer, *arguments: Any) -> dict[str, Any] | None:
        target = parse(NEXT, TargetArguments, arguments).target
        following = learning.next_problem(ls.catalog.problems.values(), ls.workspace_of(target))
        if following is None:
            return None
        return {"slug": following.slug, "title": following.title, "category": following.category,
                "difficulty": following.difficulty}
