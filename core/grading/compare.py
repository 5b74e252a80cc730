"""Outputs -> a verdict with the numbers a numerical person needs.

Tensors are compared with torch's own `isclose` (|a - e| <= atol + rtol * |e|, NaN equal to NaN),
or with the seed verifier's relative norm; every message carries the path of the value
(`out[1]['m'][3, 17]`).
"""

from __future__ import annotations

import marshal
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from infrakata.core.catalog.problem import ComparisonKind
from infrakata.core.sandbox.wire import REFUSED
from infrakata.core.torch_stand_in import is_tensor

if TYPE_CHECKING:
    import torch


@dataclass
class Comparison:
    ok: bool
    message: str = ""
    max_abs_diff: float | None = None
    max_rel_diff: float | None = None
    mismatched: int | None = None
    elements: int | None = None
    worst_index: list[int] | None = None
    expected: str | None = None
    actual: str | None = None
    where: str | None = None  # the path of the failing value or of its worst element: `out[3, 17]`

    def measures(self) -> dict[str, Any]:
        """What a CaseResult shows of this comparison: the numbers and the values at the worst element."""
        return {name: getattr(self, name) for name in ("max_abs_diff", "max_rel_diff", "mismatched", "elements",
                                                       "worst_index", "expected", "actual")}


@dataclass(frozen=True)
class Tolerance:
    atol: float = 1e-4
    rtol: float = 1e-4
    mode: ComparisonKind = "allclose"
    norm_tolerance: float = 4e-5
    exact_types: bool = False  # a Python number is then not a 0-dim tensor, nor an int a float


def compare(actual: Any, expected: Any, tolerance: Tolerance, root: str = "out",
            names: tuple[str, ...] = ()) -> Comparison:
    """Never raises: a value the comparison cannot handle fails it, saying so."""
    try:
        if names and isinstance(expected, (tuple, list)) and isinstance(actual, (tuple, list)) \
                and len(names) == len(expected) == len(actual):
            for name, a, e in zip(names, actual, expected, strict=False):
                result = _compare(a, e, tolerance, name)
                if not result.ok:
                    return result
            return Comparison(True)
        return _compare(actual, expected, tolerance, root)
    except Exception as error:  # noqa: BLE001 - whatever the solution returned, the grader goes on
        return Comparison(False, f"{root}: the output could not be compared with the expected one "
                                 f"({type(error).__name__}: {str(error)[:300]})")



def unchanged(actual: Any, original: Any, name: str) -> Comparison:
    """An argument the call must leave as it came, compared exactly with what it was before the call."""
    check = compare(actual, original, Tolerance(atol=0.0, rtol=0.0), root=name)
    if not check.ok:
        check.message = f"argument '{name}' was modified in place, which this problem does not allow: {check.message}"
    return check

def describe(value: Any, limit: int = 120) -> str:
    """A short summary for messages and summaries: tensors by shape and dtype, the rest by repr."""
    if is_tensor(value):
        if value.numel() <= 8:
            return f"tensor({value.tolist()}, dtype={_dtype(value)})"
        return f"tensor(shape={tuple(value.shape)}, dtype={_dtype(value)})"
    if isinstance(value, dict) and REFUSED in value:
        return f"<refused: {value[REFUSED]}>"
    if isinstance(value, int) and value.bit_length() > INT_SHOWN_BITS:
        return f"an int of {value.bit_length()} bits"  # repr() of a huge int is slow, or refused
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _dtype(tensor: torch.Tensor) -> str:
    return str(tensor.dtype).removeprefix("torch.")


def _type_name(value: Any) -> str:
    if is_tensor(value):
        return f"a tensor of shape {tuple(value.shape)} {_dtype(value)}"
    if value is None:
        return "None"
    return f"{type(value).__name__} {describe(value, 60)}"


INT_SHOWN_BITS = 256


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fail(path: str, message: str, actual: Any, expected: Any) -> Comparison:
    return Comparison(False, f"{path}: {message}", expected=describe(expected), actual=describe(actual), where=path)


def _compare(actual: Any, expected: Any, tol: Tolerance, path: str) -> Comparison:
    if isinstance(actual, dict) and REFUSED in actual:
        return _fail(path, f"refused: {actual[REFUSED]}", actual, expected)
    if is_tensor(expected):
        import torch

        if _is_number(actual) and expected.dim() == 0:
            if tol.exact_types:
                return _fail(path, f"expected {_type_name(expected)}, got {_type_name(actual)}: the statement fixes "
                                   f"the type; return a tensor, e.g. torch.tensor(x, dtype=torch.{_dtype(expected)})",
                             actual, expected)
            actual = torch.tensor(actual, dtype=expected.dtype)
        if not isinstance(actual, torch.Tensor):
            return _fail(path, f"expected {_type_name(expected)}, got {_type_name(actual)}", actual, expected)
        return _compare_tensors(actual, expected, tol, path)
    if _is_number(expected):
        if is_tensor(actual) and actual.numel() == 1 and not actual.dtype.is_complex \
                and not tol.exact_types:
            actual = actual.item()
        if not _is_number(actual) or tol.exact_types and type(actual) is not type(expected):
            fixed = f": the statement fixes the type; return a Python {type(expected).__name__}" \
                if tol.exact_types else ""
            return _fail(path, f"expected {type(expected).__name__} {describe(expected)}, got "
                               f"{_type_name(actual)}{fixed}", actual, expected)
        if _is_int(actual) and _is_int(expected):
            return _compare_ints(actual, expected, tol, path)
        return _compare_numbers(float(actual), float(expected), tol, path, actual, expected)
    if isinstance(expected, (bool, str, bytes)) or expected is None:
        if type(actual) is not type(expected) or actual != expected:
            got = describe(actual) if type(actual) is type(expected) else _type_name(actual)
            return _fail(path, f"expected {describe(expected)}, got {got}", actual, expected)
        return Comparison(True)
    if isinstance(expected, (tuple, list, dict)) and _identical_plain(actual, expected):
        # What the item-by-item comparison of a container that passes says. Tried at every level: a part
        # without tensors (a list of records beside a dict of tensors) is found equal at once.
        return Comparison(True)
    if isinstance(expected, (tuple, list)):
        if _same_plain_items(actual, expected):
            return Comparison(True)
        if not isinstance(actual, (tuple, list)):
            return _fail(path, f"expected a {type(expected).__name__} of {len(expected)}, got {_type_name(actual)}",
                         actual, expected)
        if len(actual) != len(expected):
            return _fail(path, f"expected {len(expected)} elements, got {len(actual)}", actual, expected)
        for index, (a, e) in enumerate(zip(actual, expected, strict=False)):
            result = _compare(a, e, tol, f"{path}[{index}]")
            if not result.ok:
                return result
        return Comparison(True)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return _fail(path, f"expected a dict with keys {sorted(map(str, expected))}, got {_type_name(actual)}",
                         actual, expected)
        missing = [k for k in expected if k not in actual]
        extra = [k for k in actual if k not in expected]
        if missing or extra:
            parts = ([f"missing key{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))}"] if missing else []) + \
                    ([f"unexpected key{'s' * (len(extra) > 1)} {', '.join(map(repr, extra))}"] if extra else [])
            return _fail(path, "; ".join(parts), actual, expected)
        for key, e in expected.items():
            result = _compare(actual[key], e, tol, f"{path}[{key!r}]")
            if not result.ok:
                return result
        return Comparison(True)
    return _fail(path, f"cannot compare values of type {type(expected).__name__}", actual, expected)


def _identical_plain(actual: Any, expected: Any) -> bool:
    """Whether two values of plain data (no tensor) are the same values of the same types in the same
    order, found at C speed: marshal's version-2 format writes each value with its type (1 is not 1.0 nor
    True, a tuple not a list) and no references between objects, so equal bytes are equal values."""
    try:
        return marshal.dumps(actual, 2) == marshal.dumps(expected, 2)
    except ValueError:  # a tensor, or another value marshal does not write: the long way
        return False


def _same_plain_items(actual: Any, expected: list[Any] | tuple[Any, ...]) -> bool:
    """Whether two sequences hold equal items of one plain type (floats, ints, bools or strings), which the
    element by element comparison would pass, found at C speed: outputs run to thousands of numbers.
    NaNs are never equal here, and go the long way."""
    if not isinstance(actual, (tuple, list)) or len(actual) != len(expected) or len(expected) < 2:
        return False
    kinds = set(map(type, expected))
    return len(kinds) == 1 and kinds <= {float, int, bool, str} and set(map(type, actual)) == kinds \
        and list(actual) == list(expected)


def _bound(tol: Tolerance) -> str:
    return f"atol {tol.atol:.0e} + rtol {tol.rtol:.0e} * |expected|"


def _finite(value: float) -> float | None:
    """A figure for the report, or None: NaN and Inf are not measures (and JSON has no such numbers)."""
    return value if math.isfinite(value) else None


def _compare_numbers(a: float, e: float, tol: Tolerance, path: str, actual: Any, expected: Any) -> Comparison:
    diff = abs(a - e)
    rel = diff / abs(e) if e else (0.0 if diff == 0 else math.inf)
    if math.isnan(a) or math.isnan(e):
        ok = math.isnan(a) and math.isnan(e)
    elif math.isinf(a) or math.isinf(e):
        ok = a == e
    else:
        ok = diff <= tol.atol + tol.rtol * abs(e)
    if ok:
        return Comparison(True, max_abs_diff=_finite(diff), max_rel_diff=_finite(rel))
    message = f"expected {expected!r}, got {actual!r}"
    if math.isfinite(diff) and (tol.atol or tol.rtol):  # with no tolerance the bound says nothing
        message += f", |diff| {diff:.1e} > {_bound(tol)}"
    return Comparison(False, f"{path}: {message}", _finite(diff), _finite(rel), 1, 1, None, repr(expected),
                      repr(actual), path)


def _compare_ints(a: int, e: int, tol: Tolerance, path: str) -> Comparison:
    """Ints exactly, at any size (a float holds 53 bits); the tolerance still applies to the difference."""
    diff = abs(a - e)
    if diff == 0:
        return Comparison(True, max_abs_diff=0.0, max_rel_diff=0.0)
    ok = diff <= Fraction(tol.atol) + Fraction(tol.rtol) * abs(e)  # exact: no float overflows
    try:
        shown_diff = float(diff)
        rel = float(Fraction(diff, abs(e))) if e else math.inf
    except OverflowError:
        shown_diff = rel = math.inf
    if ok:
        return Comparison(True, max_abs_diff=shown_diff, max_rel_diff=rel)
    message = f"expected {describe(e)}, got {describe(a)}"
    if math.isfinite(shown_diff) and (tol.atol or tol.rtol):
        message += f", |diff| {shown_diff:.1e} > {_bound(tol)}"
    return Comparison(False, f"{path}: {message}", shown_diff, rel, 1, 1, None, describe(e), describe(a), path)


def _index(flat: int, shape: torch.Size) -> list[int]:
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return list(reversed(index))


def _at(path: str, index: list[int]) -> str:
    return f"{path}[{', '.join(map(str, index))}]" if index else path


def _scalar(tensor: torch.Tensor, flat: int) -> str:
    value = tensor.reshape(-1)[flat].item()
    return f"{value:.6g}" if isinstance(value, float) else repr(value)


def _compare_tensors(actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance, path: str) -> Comparison:
    import torch

    if type(actual) is not torch.Tensor:
        return _fail(path, f"a torch.Tensor subclass ({type(actual).__name__}) was returned; return a plain tensor",
                     actual, expected)
    if actual.shape != expected.shape:
        return _fail(path, f"shape mismatch: expected {tuple(expected.shape)}, got {tuple(actual.shape)}",
                     actual, expected)
    if actual.dtype != expected.dtype:
        return _fail(path, f"dtype mismatch: expected {_dtype(expected)}, got {_dtype(actual)}", actual, expected)
    # Where the expected values are: the grader's CPU, or the benchmark's trusted worker on the GPU.
    actual, expected = actual.detach().to(expected.device), expected.detach()
    elements = expected.numel()
    if elements == 0:
        return Comparison(True, elements=0)
    exact = not (expected.dtype.is_floating_point or expected.dtype.is_complex)
    if exact:
        return _compare_exact(actual, expected, path)
    # float32 holds any narrower float exactly. The relative norm is computed in it, as the seed verifier
    # computes it; elementwise, float64 on the CPU (small outputs, exact figures) and float32 on the GPU, where
    # the benchmark's outputs run to gigabytes.
    single = torch.promote_types(expected.dtype, torch.float32)
    if tol.mode == "relative_norm":
        return _compare_norm(actual.to(single), expected.to(single), tol, path)
    # Equal values (an unchanged argument, an exact answer) need none of the figures' passes below.
    if actual is expected or torch.equal(actual, expected):
        return Comparison(True, max_abs_diff=0.0, max_rel_diff=0.0, mismatched=0, elements=elements)
    work = torch.float64 if expected.device.type == "cpu" else single
    a, e = actual.to(work), expected.to(work)
    diff = (a - e).abs()
    if bool((diff <= tol.atol + tol.rtol * e.abs()).all()):
        # Every element finite and within (a NaN or an Inf compares false): isclose's bound, in fewer passes,
        # for the common answer, which is close and not equal. An output of many small tensors has many.
        max_rel = float(torch.where(e != 0, diff / e.abs(), torch.zeros_like(diff)).max())
        return Comparison(True, max_abs_diff=float(diff.max()), max_rel_diff=max_rel, mismatched=0, elements=elements)
    close = torch.isclose(a, e, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
    finite = torch.isfinite(a) & torch.isfinite(e)
    finite_diff = torch.where(finite, diff, torch.zeros_like(diff))
    max_abs = float(finite_diff.max())
    rel = torch.where(finite & (e != 0), finite_diff / e.abs(), torch.zeros_like(diff))
    max_rel = float(rel.max())
    bad = ~close
    mismatched = int(bad.sum())
    if mismatched == 0:
        return Comparison(True, max_abs_diff=max_abs, max_rel_diff=max_rel, mismatched=0, elements=elements)
    # The figures are over the finite elements: said only when a finite element is among the misses,
    # so that a NaN where 0.5 was expected never reads as "max rel 0.0e+00".
    measured = bool((bad & finite).any())
    # The worst element: a non-finite mismatch first, else the one furthest past its bound.
    excess = torch.where(finite, diff - (tol.atol + tol.rtol * e.abs()), torch.full_like(diff, math.inf))
    excess = torch.where(bad, excess, torch.full_like(diff, -math.inf))
    flat = int(excess.reshape(-1).argmax())
    index = _index(flat, expected.shape)
    exp_s, act_s = _scalar(expected, flat), _scalar(actual, flat)
    where = _at(path, index)
    a_val, e_val = a.reshape(-1)[flat], e.reshape(-1)[flat]
    if torch.isfinite(a_val) and torch.isfinite(e_val):
        head = f"{where}: expected {exp_s}, got {act_s}, |diff| {float(diff.reshape(-1)[flat]):.1e} > {_bound(tol)}"
    else:
        head = f"{where}: expected {exp_s}, got {act_s}"
    nan_count = int((torch.isnan(a) & ~torch.isnan(e)).sum())
    inf_count = int((torch.isinf(a) & ~torch.isinf(e)).sum())
    extras = []
    if nan_count:
        extras.append(f"{nan_count} NaN where finite values were expected")
    if inf_count:
        extras.append(f"{inf_count} Inf where finite values were expected")
    if measured:
        extras.insert(0, f"max rel {max_rel:.1e}")
    message = f"{head}; {mismatched} of {elements} elements ({100 * mismatched / elements:.2f}%) outside" + "".join(
        f"; {x}" for x in extras)
    return Comparison(False, message, max_abs if measured else None, max_rel if measured else None, mismatched,
                      elements, index, exp_s, act_s, where)


def _compare_exact(actual: torch.Tensor, expected: torch.Tensor, path: str) -> Comparison:
    import torch

    bad = actual != expected
    mismatched = int(bad.sum())
    elements = expected.numel()
    if not mismatched:
        return Comparison(True, max_abs_diff=0.0, mismatched=0, elements=elements)
    flat = int(bad.reshape(-1).nonzero()[0])
    index = _index(flat, expected.shape)
    exp_s, act_s = _scalar(expected, flat), _scalar(actual, flat)
    diff = (actual.to(torch.float64) - expected.to(torch.float64)).abs()
    return Comparison(False, f"{_at(path, index)}: expected {exp_s}, got {act_s} (exact {_dtype(expected)}); "
                             f"{mismatched} of {elements} elements ({100 * mismatched / elements:.2f}%) differ",
                      float(diff.max()), None, mismatched, elements, index, exp_s, act_s, _at(path, index))


def _compare_norm(a: torch.Tensor, e: torch.Tensor, tol: Tolerance, path: str) -> Comparison:
    """The 8-bit AdamW verifier's rule: ||a - e|| / (||e|| + 1e-12) <= tolerance."""
    import torch

    error = float((a - e).norm() / (e.norm() + 1e-12))
    diff = (a - e).abs()
    flat = int(torch.nan_to_num(diff, nan=math.inf).reshape(-1).argmax())
    index = _index(flat, e.shape)
    max_abs = float(diff.max())
    if error <= tol.norm_tolerance:  # NaN fails here: comparisons with NaN are False
        return Comparison(True, max_abs_diff=max_abs, max_rel_diff=error, elements=e.numel())
    exp_s, act_s = _scalar(e, flat), _scalar(a, flat)
    return Comparison(False, f"{path}: relative error {error:.2e} > tolerance {tol.norm_tolerance:.0e} "
                             f"(||actual - expected|| / ||expected||); worst element {_at(path, index)}: "
                             f"expected {exp_s}, got {act_s}",
                      max_abs, error, None, e.numel(), index, exp_s, act_s, _at(path, index))
