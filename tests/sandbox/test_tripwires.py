"""The technique enforced at run time, through real workers: tripwires on forbidden functions (by any
alias), on Tensor methods and classes, the autograd engine off, the Triton launches a kernel kata
requires, and the eager work it allows beside them; `kata check-problems`' check of the names; the
worker's launch count at the boundary."""

from __future__ import annotations

import math
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.kinds.native import expected_verdict
from infrakata.core.catalog.loading import Catalog, load_problem
from infrakata.core.errors import ProblemError
from infrakata.core.grading.calls import solution_spec
from infrakata.core.grading.results import NO_LAUNCH_MESSAGE
from infrakata.core.maintenance.checks import tripwire_gaps
from infrakata.core.sandbox.protocol import ProtocolError, Reply, reply_from_wire, reply_to_wire

CATALOG = Catalog.load()
CHEATS = [(p, path) for p in sorted(CATALOG.problems.values(), key=lambda p: p.slug)
          for path in kind_of(p).wrong_solutions(p) if path.parent.name == "cheats"]


def grade(runner, slug: str, source: str):
    return runner.run(CATALOG.problems[slug], source, "/tmp/solution.py")


def first_failure(report):
    return next(c for c in report.cases if c.status != "passed")


LOGSUMEXP = {
    "the function, looked up by a name built at run time": (
        "import torch\n\n\ndef logsumexp(x, dim, keepdim=False):\n"
        "    return getattr(torch, 'log' + 'sumexp')(x, dim, keepdim=keepdim)\n", 5, "torch.logsumexp"),
    "an alias made by `from ... import ... as`": (
        "from torch import logsumexp as lse\n\n\ndef logsumexp(x, dim, keepdim=False):\n"
        "    return lse(x, dim, keepdim=keepdim)\n", 5, "torch.logsumexp"),
    "the Tensor method": (
        "def logsumexp(x, dim, keepdim=False):\n    y = x.double()\n"
        "    return y.logsumexp(dim, keepdim=keepdim).to(x.dtype)\n", 3, "torch.Tensor.logsumexp"),
}


@pytest.mark.parametrize("route", LOGSUMEXP)
def test_a_forbidden_function_trips_by_any_route_on_the_line_that_called_it(runner, route):
    source, line, name = LOGSUMEXP[route]
    report = grade(runner, "logsumexp", source)
    assert not report.findings  # the static check sees none of these
    assert report.verdict == "forbidden"
    failed = first_failure(report)
    assert failed.cause == "forbidden" and failed.line == line
    assert f"call to '{name}' is forbidden in this problem" in failed.message


def test_a_forbidden_class_trips_when_constructed_under_another_name(runner):
    source = ("import torch\n\noptimizers = getattr(torch, 'optim')\n\n\n"
              "def adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,\n"
              "               weight_decay=1e-2):\n"
              "    opt = optimizers.AdamW([torch.nn.Parameter(p.clone()) for p in params] or [torch.zeros(1)])\n"
              "    return params, exp_avgs, exp_avg_sqs\n")
    report = grade(runner, "adamw-step", source)
    failed = first_failure(report)
    assert report.verdict == "forbidden" and failed.line == 8 and "'torch.optim.AdamW'" in failed.message


BACKWARD = ("import torch\n\n\ndef layernorm_backward(x, weight, bias, grad_out, eps=1e-5):\n"
            "    xs, ws, bs = (t.detach().clone().requires_grad_() for t in (x, weight, bias))\n"
            "    with torch.enable_grad():\n"
            "        y = torch.nn.functional.layer_norm(xs, (x.shape[-1],), ws, bs, eps)\n"
            "        run_backward = torch.autograd.graph._engine_run_backward\n"
            "        return run_backward((y,), (grad_out,), False, False, (xs, ws, bs), True, False)\n")


def test_autograd_off_refuses_a_backward_pass_by_any_entry(runner):
    """The engine itself refuses: a private entry point that no forbidden name covers still trips."""
    report = grade(runner, "layernorm-backward", BACKWARD)
    failed = first_failure(report)
    assert report.verdict == "forbidden" and failed.line == 9 and "autograd is off in this problem" in failed.message


def test_with_autograd_on_the_same_backward_pass_is_right(runner):
    """What the engine tripwire refuses is a right answer: nothing else rejects it."""
    problem = CATALOG.problems["layernorm-backward"]
    report = runner.run(replace(problem, grading=replace(problem.grading, autograd=True)), BACKWARD, "/tmp/s.py")
    assert report.verdict == "accepted"


def test_the_reference_runs_without_tripwires(runner):
    """layernorm-backward's reference is autograd itself: trusted code is held to none of the kata's rules."""
    problem = CATALOG.problems["layernorm-backward"]
    assert runner.run(problem, problem.reference_source, problem.folder / "reference.py", trusted=True).accepted
    as_learner = runner.run(problem, problem.reference_source, problem.folder / "reference.py")
    assert as_learner.verdict == "forbidden"


# The katas whose shortcuts used to be accepted with right answers (a review's), now refused by a rule.
RULED = {"logsumexp", "cross-entropy-loss", "adamw-step", "layernorm-backward", "flash-attention-forward",
         "lora-forward", "fused-row-softmax", "fused-rmsnorm", "fused-swiglu", "blockwise-absmax-quant"}


@pytest.mark.parametrize("problem,path", [(p, c) for p, c in CHEATS if p.slug in RULED
                                          and expected_verdict(c) in ("forbidden", "memory_limit_exceeded")],
                         ids=lambda x: getattr(x, "slug", None) or x.name)
def test_each_refused_shortcut_is_right_without_the_katas_rules(runner, problem, path):
    """A cheat refused by a tripwire, a launch count or a memory cap computes the right answer: graded as
    the reference is (no rules), it is accepted. So the rule, and nothing else, is what refuses it."""
    source = path.read_text(encoding="utf-8")
    assert runner.run(problem, source, path, trusted=True).accepted
    assert runner.run(problem, source, path).verdict == expected_verdict(path)


def test_plain_torch_in_a_kernel_kata_is_told_it_launched_no_kernel(runner):
    """Where eager torch may run beside a launch ([grading] eager = "any"), a call that launched nothing is
    refused as it returns; under the kata's own eager rule, already at its first op."""
    problem = CATALOG.problems["fused-row-softmax"]
    eager_allowed = replace(problem, grading=replace(problem.grading, eager="any"))
    report = runner.run(eager_allowed, problem.reference_source, "/tmp/eager.py")
    failed = first_failure(report)
    assert report.verdict == "forbidden" and failed.message == NO_LAUNCH_MESSAGE
    assert failed.line == report.entry_line  # on the entry point's def: the call as a whole launched nothing
    ruled = runner.run(problem, problem.reference_source, "/tmp/eager.py")
    assert ruled.verdict == "forbidden" and EAGER_RULE in first_failure(ruled).message


LAUNCHES = """import torch
import triton
import triton.language as tl


@triton.jit
def _copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def softmax_rows(x):
    out = torch.empty_like(x)
    for _ in range(3 if x.numel() > 1 else 1):
        _copy[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
    return out
"""


def test_the_worker_counts_each_calls_launches(pool):
    """Through a real worker: the count is per call (3 launches, then 1), and travels with its reply."""
    problem = CATALOG.problems["fused-row-softmax"]
    spec = solution_spec(problem, LAUNCHES, "/tmp/launches.py", calls=2, cuda=False)
    assert spec.count_launches
    with pool.open(spec, problem.limits.load_timeout(False)) as worker:
        assert worker.load_error is None, worker.load_error
        big = worker.call((torch.randn(4, 8),), {}, timeout=60)
        small = worker.call((torch.randn(1, 1),), {}, timeout=60)
    assert (big.status, big.launches, small.launches) == ("ok", 3, 1)


AUTOTUNED = """import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 32})], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def _copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def softmax_rows(x):
    out = torch.empty_like(x)
    _copy[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, out, x.numel())
    return out
"""


def test_an_autotuned_launch_counts_once_with_the_runs_it_makes(pool):
    """An autotuner's run wraps a heuristics' run, which wraps the kernel's (and on a GPU, the autotuner runs
    the kernel once per config to choose one): one launch of the call's, so that an autotuned kernel keeps
    to a kata's launches_per_call. (The interpreter cannot time configs: one config here.)"""
    problem = CATALOG.problems["fused-row-softmax"]
    spec = solution_spec(problem, AUTOTUNED, "/tmp/autotuned.py", calls=2, cuda=False)
    with pool.open(spec, problem.limits.load_timeout(False)) as worker:
        assert worker.load_error is None, worker.load_error
        first = worker.call((torch.randn(4, 8),), {}, timeout=60)
        second = worker.call((torch.randn(4, 8),), {}, timeout=60)
    assert (first.status, first.launches, second.launches) == ("ok", 1, 1), first.error


def test_a_launch_cap_needs_the_launch_rule(tmp_path):
    folder = tmp_path / "fused-row-softmax"
    shutil.copytree(Path(CATALOG.problems["fused-row-softmax"].folder), folder,
                    ignore=shutil.ignore_patterns("wrong", "__pycache__"))
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace("triton_launch = true", "launches_per_call = 1"))
    with pytest.raises(ProblemError, match="launches_per_call.*needs triton_launch = true"):
        load_problem(folder)


@pytest.mark.parametrize("launches", [-1, 1 << 31, 2.0, True, "3", None])
def test_a_launch_count_that_is_not_a_count_is_refused_at_the_boundary(launches):
    raw = reply_to_wire(Reply("ok", 1.0, seq=1, launches=2))
    assert reply_from_wire(raw).launches == 2
    with pytest.raises(ProtocolError, match="launches"):
        reply_from_wire({**raw, "launches": launches})


def test_check_problems_names_a_tripwire_that_names_nothing():
    problem = CATALOG.problems["logsumexp"]
    misspelled = replace(problem, forbidden_calls=(*problem.forbidden_calls, "torch.logsumexpp",
                                                  "torch._C.TensorBase.logsumexp", "F.logsumexp"))
    gaps = tripwire_gaps(misspelled)
    assert len(gaps) == 2, gaps
    assert "'torch.logsumexpp' names nothing: torch.logsumexpp does not exist" in gaps[0]
    assert "'torch._C.TensorBase.logsumexp' cannot carry a tripwire" in gaps[1]
    assert not tripwire_gaps(problem)


# [grading] eager = "views" (tiled-matmul): outside its launches, a call may only allocate and take views.
TILED = CATALOG.problems["tiled-matmul"]
EAGER_RULE = "eager torch work outside a Triton kernel is not allowed in this problem"
TOKEN_LAUNCH = """import threading

import torch
import triton
import triton.language as tl


@triton.jit
def _zeros(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.zeros((BLOCK,), dtype=tl.float32), mask=offsets < n)


def linear(x, weight):
    out = torch.empty(x.shape[0], weight.shape[0], dtype=torch.float32, device=x.device)
    _zeros[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
"""

WIDEN_LAUNCH = """import torch
import triton
import triton.language as tl


@triton.jit
def _widen(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    values = tl.load(src_ptr + offsets, mask=offsets < n)
    tl.store(dst_ptr + offsets, values.to(tl.float32), mask=offsets < n)


def linear(x, weight):
    xf, wf = (torch.empty(t.shape, dtype=torch.float32, device=t.device) for t in (x, weight))
    for src, dst in ((x, xf), (weight, wf)):
        _widen[(triton.cdiv(src.numel(), 1024),)](src, dst, src.numel(), BLOCK=1024)
    return (xf[:, None, :] * wf[None, :, :]).sum(-1)
"""


def _cheat(name: str) -> str:
    return (TILED.folder / "wrong" / "cheats" / name).read_text(encoding="utf-8")


# source, what the refusal names, the line it is on (its text)
EAGER_SHORTCUTS = {
    "a token launch, then the product widened, broadcast and summed": (
        _cheat("zeros_kernel_then_eager_product.py"), "aten._to_copy on float16[1, 1, 1], a conversion",
        "    return out + (x[:, None, :].float() * weight[None, :, :].float()).sum(-1)"),
    "a kernel that only widens the inputs, then their product broadcast and summed": (
        WIDEN_LAUNCH, "aten.mul on float32[1, 1, 1], float32[1, 1, 1])", "    return (xf[:, None, :] * wf"),
    "the weight copied, its transpose made contiguous for the kernel": (
        # The first case's weight is [1, 1], whose transpose is contiguous already: the second's is copied.
        _cheat("copies_the_weight.py"), "aten.clone on float16[65, 33], a copy: pass the view, and let the kernel "
                                        "read it through its strides",
        "    b = weight.t().contiguous()"),
}


def line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1) if line.startswith(text))


@pytest.mark.parametrize("name", EAGER_SHORTCUTS)
def test_eager_work_beside_a_launch_is_refused_naming_the_op_and_the_rule(runner, name):
    """Each computes the right answer (graded without the kata's rules, it is accepted) and launches a kernel,
    and uses no forbidden name: the eager rule alone refuses it, on the line that ran the op."""
    source, what, text = EAGER_SHORTCUTS[name]
    report = grade(runner, "tiled-matmul", source)
    assert not report.findings
    failed = first_failure(report)
    assert report.verdict == "forbidden" and failed.cause == "forbidden" and failed.line == line_of(source, text)
    assert f"{EAGER_RULE} ({what}" in failed.message and failed.message.endswith(
        "outside a launch, a call may only allocate tensors (torch.empty, zeros, full) and take views of them "
        "(t, view, as_strided, slicing); the kernel must compute the output")
    assert runner.run(TILED, source, "/tmp/solution.py", trusted=True).accepted


def test_the_eager_rule_is_the_learners_and_the_model_kernel_meets_it(runner):
    """A learner's worker is held to it, the reference's is not; our kernel (the weight read through
    weight.t()'s strides, its output from torch.empty) is accepted under it."""
    assert TILED.grading.eager == "views" and TILED.grading.triton_launch
    assert solution_spec(TILED, "", "/tmp/s.py", calls=1, cuda=False).eager_views
    assert not solution_spec(TILED, "", "/tmp/s.py", calls=1, cuda=False, trusted=True).eager_views
    model = kind_of(TILED).model_solution(TILED)
    report = runner.run(TILED, model.read_text(encoding="utf-8"), model)
    assert report.verdict == "accepted", [c.message for c in report.cases if c.status != "passed"]


EAGER_PRODUCT = "    return (x[:, None, :] * weight[None, :, :]).sum(-1, dtype=torch.float32)\n"
# Ways to take the guard off before the eager product, and what the refusal names.
TAKEDOWNS = {
    "popping the dispatch mode": (
        "    torch._C._pop_torch_dispatch_stack(None)\n", "torch._C._pop_torch_dispatch_stack: it would take "
                                                          "the guard off"),
    "disabling the current modes": (
        "    with torch.utils._python_dispatch._disable_current_modes():\n    " + EAGER_PRODUCT,
        "torch.utils._python_dispatch._disable_current_modes: it would take the guard off"),
    "exiting the mode": (
        "    torch._C._get_dispatch_stack_at(0).__exit__(None, None, None)\n",
        "the guard's dispatch mode exited by the solution"),
    "replacing the mode's handler": (
        "    type(torch._C._get_dispatch_stack_at(0)).__torch_dispatch__ = (\n"
        "        lambda mode, func, types, args=(), kwargs=None: func(*args, **(kwargs or {})))\n",
        "the guard's dispatch mode was taken off or changed during the call"),
    "the product in a thread of its own": (
        "    done = []\n    thread = threading.Thread(target=lambda: done.append(\n"
        "        (x[:, None, :] * weight[None, :, :]).sum(-1, dtype=torch.float32)))\n"
        "    thread.start()\n    thread.join()\n    return done[0]\n",
        "a thread started: the guard watches the call's own thread"),
    "the values read into Python": (
        "    rows, columns = x.tolist(), weight.tolist()\n"
        "    return torch.tensor([[sum(a * b for a, b in zip(r, c)) for c in columns] for r in rows])\n",
        "Tensor.tolist: a tensor's values read into Python"),
    "numpy's product": (
        "    return torch.from_numpy(x.numpy().astype('float32') @ weight.numpy().T.astype('float32'))\n",
        "Tensor.numpy: a tensor's values read into Python"),
    "the values printed, to be read back": (
        "    text = str(x)\n", "Tensor.__str__: a tensor's values read into Python"),
    "the Python dispatch keys forced off": (
        "    with torch._C._ForceDispatchKeyGuard(None, None):\n    " + EAGER_PRODUCT,
        "torch._C._ForceDispatchKeyGuard: it would take the guard off"),
    "the product run by a function that claims Triton's file, in a launch's hook": (
        "    import triton.runtime.interpreter as claimed\n"
        "    def product(a, b):\n        return (a[:, None, :] * b[None, :, :]).sum(-1, dtype=torch.float32)\n"
        "    product.__code__ = product.__code__.replace(co_filename=claimed.__file__)\n"
        "    box = []\n"
        "    _zeros.add_pre_run_hook(lambda *args, **kwargs: box.append(product(x, weight)))\n"
        "    _zeros[(1,)](out, out.numel(), BLOCK=1024)\n"
        "    return box[0]\n",
        "aten.mul on float16[1, 1, 1], float16[1, 1, 1]"),
}


@pytest.mark.parametrize("name", TAKEDOWNS)
def test_the_eager_guard_cannot_be_taken_off(runner, name):
    body, what = TAKEDOWNS[name]
    report = grade(runner, "tiled-matmul", TOKEN_LAUNCH + body + EAGER_PRODUCT)
    failed = first_failure(report)
    assert report.verdict == "forbidden" and f"{EAGER_RULE} ({what})" in failed.message, failed.message


def test_a_thread_started_at_import_is_refused_at_the_call(runner):
    """The mode holds in the call's own thread: a thread the solution started as it loaded could work outside it."""
    source = TOKEN_LAUNCH.replace("\n\n@triton.jit", "\n_idle = threading.Event()\n"
                                  "threading.Thread(target=_idle.wait, daemon=True).start()\n\n\n@triton.jit", 1)
    report = grade(runner, "tiled-matmul", source + EAGER_PRODUCT)
    failed = first_failure(report)
    assert report.verdict == "forbidden" and "a thread the solution started is running" in failed.message


def test_the_recording_of_a_call_reads_its_values_inside_the_eager_guard(runner):
    """The editor's inline values are formatted as the call begins, inside the guard: the worker's own code."""
    path = TILED.folder / "wrong" / "pads_with_one.py"
    report = runner.run(TILED, path.read_text(encoding="utf-8"), path, values=True)
    failed = first_failure(report)
    assert report.verdict == "wrong_answer" and failed.status == "failed"
    labels = {(v.kind, v.name): v.label for v in failed.values}
    assert labels[("argument", "x")].startswith("f16[1, 1] [") and ("local", "c") in labels


@pytest.mark.parametrize("grading,message", [
    ('eager = "views"', 'field \'grading.eager\': eager = "views" leaves the work to a Triton kernel: it needs '
                        'triton_launch = true'),
    ('eager = "none"\ntriton_launch = true', 'field \'grading.eager\': must be "any" or "views", got \'none\''),
])
def test_the_eager_rule_is_checked_where_it_is_declared(tmp_path, grading, message):
    fixture = Path(__file__).parents[1] / "fixtures" / "problems" / "device-probe"
    folder = tmp_path / "device-probe"
    shutil.copytree(fixture, folder)
    toml = (folder / "problem.toml").read_text(encoding="utf-8").replace('device = "cuda"',
                                                                          f'device = "cuda"\n{grading}')
    (folder / "problem.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(ProblemError) as raised:
        load_problem(folder)
    assert str(raised.value) == f"{folder / 'problem.toml'}:{line_of(toml, 'eager')}: {message}"


def test_online_softmax_cases_are_the_dense_truth_block_by_block():
    """Each case's state is made from the columns seen so far; the reference's step from it gives the next
    case's state, and folding the step over a row gives the softmax-weighted sum."""
    problem = CATALOG.problems["online-softmax"]
    cases_module, step = problem.module("cases"), reference_of(problem)
    logits = torch.randn(5, 37, dtype=torch.float64) * 3 + 1000
    logits[logits < 999] = -math.inf
    logits[2] = -math.inf
    values = torch.randn(37, 4, dtype=torch.float64)
    m, denominator, o = cases_module.state(logits[:, :0], values[:0])
    for start in range(0, 37, 8):
        m, denominator, o = step(m, denominator, o, logits[:, start:start + 8], values[start:start + 8])
        dense = cases_module.state(logits[:, :start + 8], values[:start + 8])
        assert all(torch.allclose(a, b, equal_nan=False) for a, b in zip((m, denominator, o), dense, strict=True))
    out = torch.where(denominator[:, None] > 0, o / denominator[:, None], 0.0)
    expected = torch.nan_to_num(torch.softmax(logits, dim=1), nan=0.0) @ values
    assert torch.allclose(out, expected) and not out[2].any()


def test_tensor_parallel_partials_are_each_ranks_share_of_the_dense_mlp():
    step = reference_of(CATALOG.problems["tensor-parallel-mlp"])
    x, w1, b1, w2, b2 = (torch.randn(*shape, dtype=torch.float64) for shape in ((3, 6), (10, 6), (10,), (5, 10), (5,)))
    out, partials = step(x, w1, b1, w2, b2, 4)
    dense = torch.nn.functional.gelu(x @ w1.T + b1) @ w2.T + b2
    assert len(partials) == 4 and torch.allclose(sum(partials) + b2, dense) and torch.allclose(out, dense)
    hidden = torch.nn.functional.gelu(x @ w1[:3].T + b1[:3])  # rank 0's three hidden units of ten
    assert torch.allclose(partials[0], hidden @ w2[:, :3].T)


def test_ring_log_carries_the_closed_form_traffic():
    step = reference_of(CATALOG.problems["ring-all-reduce"])
    for W, n in ((4, 10), (5, 3), (8, 1024), (1, 6)):
        tensors = [torch.randn(n, dtype=torch.float64) for _ in range(W)]
        results, log = step(tensors)
        chunks = [c.numel() for c in torch.empty(n).tensor_split(W)]
        sent = [sum(log[k][r].numel() for k in range(len(log))) for r in range(W)]
        assert len(log) == 2 * (W - 1)
        assert sent == [2 * n - chunks[(r + 1) % W] - chunks[(r + 2) % W] if W > 1 else 0 for r in range(W)]
        assert all(torch.allclose(r, sum(tensors)) for r in results)


def test_flash_attention_dense_cheat_fails_only_the_case_its_scores_do_not_fit(runner):
    problem = CATALOG.problems["flash-attention-forward"]
    path = problem.folder / "wrong" / "cheats" / "dense_attention.py"
    report = runner.run(problem, path.read_text(encoding="utf-8"), path)
    *small, last, fresh = report.cases  # the fresh case is drawn within what the scores of its tiles fit
    assert all(c.status == "passed" for c in [*small, fresh]) and last.status == "memory"
    assert "tried to allocate 8 MiB; the kata allows 4 MiB beyond what a worker holds when it starts" in last.message


def reference_of(problem):
    return getattr(problem.module("reference"), problem.entry_point)
