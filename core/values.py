"""A case's values as the learner sees them beside the code: a short label (an inlay hint, a line of
`kata run --values`) and the whole value (a hover: a table for small tensors).

Both are capped in size, and in time by construction: only what is shown is read (a tensor's first
rows, a container's first items), and no object's own `__repr__` runs except that of plain builtin
scalars, so a huge or hostile value costs no more than a small one. torch is not imported here: a
value can only be a tensor once something has imported torch.

The solution's worker formats its arguments and locals (core/sandbox/trace.py); the grader formats
the graded outputs beside the expected ones (core/grading/runner.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal

from infrakata.core.torch_stand_in import is_tensor, loaded_torch

ValueKind = Literal["argument", "local", "output"]

LABEL_CHARS = 80  # an inlay hint
DETAIL_CHARS = 4000  # a hover
NAME_CHARS = 64
MAX_VALUES = 48  # per case
TABLE_ROWS, TABLE_COLUMNS = 16, 10  # the corner of a tensor a hover shows
LABEL_ELEMENTS = 4  # a tensor's first elements in its label
STATS_ELEMENTS = 1 << 16  # min, max and mean only for tensors up to this size (cheap)
ITEMS = 32  # a container's items in a hover
_SHORT_DTYPES = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
                 "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "bool",
                 "complex64": "c64", "complex128": "c128"}


@dataclass(frozen=True)
class InlineValue:
    """One value of a case, placed on a line of the solution file (1-based): an argument at its
    parameter's line, a local at the last line of its last assignment, or a graded output beside the
    expected one at the line that returned (or last wrote) it."""

    line: int
    kind: ValueKind
    name: str
    label: str  # one short line
    detail: str  # the whole value, plain text

    @property
    def text(self) -> str:
        """As shown beside the code: `x = 1.0`; an output's label says its own name (`out[3] = …`)."""
        return self.label if self.kind == "output" else f"{self.name} = {self.label}"


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str, limit: int = LABEL_CHARS) -> str:
    return clip(" ".join(text.split()), limit)


def label(value: Any) -> str:
    """One short line: `7000000000`, `f32[4, 8] [0.1235, -1.3, 0.5, 2, …]`, `[1, 2, 3, … (10 items)]`."""
    try:
        return one_line(_label(value, 0))
    except Exception as error:  # noqa: BLE001 - a value that cannot be read says so, never fails a case
        return f"<{_type_name(value)}: {type(error).__name__}>"


def detail(value: Any) -> str:
    """The whole value as plain text: a tensor's header, statistics and a table of its first rows."""
    try:
        return clip(_detail(value), DETAIL_CHARS)
    except Exception as error:  # noqa: BLE001
        return f"<{_type_name(value)}: {type(error).__name__}: {one_line(str(error))}>"


def _type_name(value: Any) -> str:
    return type(value).__qualname__


def _scalar(value: Any) -> str | None:
    """Plain scalars, formatted without running anything of the value's own."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        # Huge ints are slow to print (and refused past 4300 digits): their size says enough.
        return str(int(value)) if value.bit_length() <= 200 else f"<int of {value.bit_length()} bits>"
    if isinstance(value, float):
        return _float(float(value), 6)
    if isinstance(value, complex):
        return f"({value.real:.6g}{value.imag:+.6g}j)"
    if isinstance(value, (str, bytes)):
        shown = repr(value[: LABEL_CHARS])
        return shown if len(value) <= LABEL_CHARS else f"{shown}… ({len(value)} chars)"
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        return _scalar(value.item())
    return None


def _short_dtype(dtype: Any) -> str:
    name = str(dtype).removeprefix("torch.")
    return _SHORT_DTYPES.get(name, name)


def _float(value: float, digits: int) -> str:
    """`0.1235`, `1.0` (not `1`: a float reads as one), `1e+10`, `nan`."""
    text = f"{value:.{digits}g}"
    return f"{text}.0" if text.lstrip("-").isdigit() else text


def _element(value: Any) -> str:
    if isinstance(value, float):
        return _float(value, 4)
    if isinstance(value, complex):
        return f"({value.real:.4g}{value.imag:+.4g}j)"
    return repr(value)


def _is_array(value: Any) -> bool:
    return type(value).__module__ == "numpy" and type(value).__name__ == "ndarray"


def _first(tensor: Any, count: int) -> list[Any]:
    """The first `count` elements in row-major order, reading only those (no copy of the whole)."""
    if tensor.ndim == 0:
        return [tensor.item()]
    if tensor.numel() == 0:
        return []
    values: list[Any] = []
    index = [0] * (tensor.ndim - 1)
    while len(values) < count:
        row = tensor[tuple(index)] if index else tensor
        values += row[: count - len(values)].tolist()
        for axis in reversed(range(len(index))):  # the next row
            index[axis] += 1
            if index[axis] < tensor.shape[axis]:
                break
            index[axis] = 0
        else:
            break
    return values


def _tensor_head(value: Any) -> str:
    shape = ", ".join(map(str, value.shape))
    device = "" if str(value.device) == "cpu" else f" {value.device}"
    return f"{_short_dtype(value.dtype)}[{shape}]{device}"


def _tensor_label(value: Any) -> str:
    head = _tensor_head(value)
    if value.is_sparse or value.is_meta or value.is_quantized:
        return head
    numel = value.numel()
    if value.ndim == 0:
        return f"{head} {_element(value.item())}"
    elements = ", ".join(_element(v) for v in _first(value, LABEL_ELEMENTS))
    return f"{head} [{elements}{', …' if numel > LABEL_ELEMENTS else ''}]"


def _label(value: Any, depth: int) -> str:
    scalar = _scalar(value)
    if scalar is not None:
        return scalar
    if is_tensor(value):
        return _tensor_label(value)
    if _is_array(value):
        shape = ", ".join(map(str, value.shape))
        first = ", ".join(_element(v) for v in value.reshape(-1)[:LABEL_ELEMENTS].tolist())
        return f"ndarray {value.dtype}[{shape}] [{first}{', …' if value.size > LABEL_ELEMENTS else ''}]"
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return _container_label(value, depth)
    torch = loaded_torch()
    if torch is not None:
        if isinstance(value, (torch.dtype, torch.device, torch.Size)):
            return str(value)
        if isinstance(value, torch.nn.Module):
            tensors = list(_module_tensors(value, LABEL_ELEMENTS + 1))
            shown = ", ".join(f"{name} {_tensor_head(t)}" for name, t in tensors[:LABEL_ELEMENTS])
            return f"{_type_name(value)}({shown}{', …' if len(tensors) > LABEL_ELEMENTS else ''})"
        if isinstance(value, torch.optim.Optimizer):
            group = value.param_groups[0] if value.param_groups else {}
            lr = group.get("lr")
            return f"{_type_name(value)}(lr={_label(lr, depth + 1)})" if lr is not None else _type_name(value)
    kind = type(value).__name__
    name = getattr(value, "__qualname__", None)
    if isinstance(name, str) and kind in ("function", "builtin_function_or_method", "type", "method"):
        return f"<{kind} {name}>"
    if kind == "module":
        return f"<module {getattr(value, '__name__', '?')}>"
    return f"<{_type_name(value)} object>"


def _container_label(value: Any, depth: int) -> str:
    opening, closing = "[]" if isinstance(value, list) else "()" if isinstance(value, tuple) else "{}"
    size = len(value)
    if depth >= 2:
        return f"{opening}… ({size} items){closing}" if size else f"{opening}{closing}"
    parts: list[str] = []
    length = 0
    budget = LABEL_CHARS - 24  # room for the count of items
    for item in islice(value.items() if isinstance(value, dict) else value, LABEL_CHARS // 3):
        text = (f"{_label(item[0], depth + 1)}: {_label(item[1], depth + 1)}" if isinstance(value, dict)
                else _label(item, depth + 1))
        if parts and length + len(text) > budget:
            break
        parts.append(text)
        length += len(text) + 2
    more = f", … ({size} items)" if len(parts) < size else ""
    trailing = "," if isinstance(value, tuple) and size == 1 else ""
    return f"{opening}{', '.join(parts)}{trailing}{more}{closing}"


def _module_tensors(module: Any, limit: int) -> list[tuple[str, Any]]:
    found = []
    for name, tensor in module.state_dict(keep_vars=True).items():
        found.append((name, tensor))
        if len(found) >= limit:
            break
    return found


# -- the whole value -------------------------------------------------------------------------------

def _detail(value: Any) -> str:
    if is_tensor(value):
        return _tensor_detail(value)
    torch = loaded_torch()
    if torch is not None and isinstance(value, torch.nn.Module):
        lines = [f"{_type_name(value)}"]
        for name, tensor in _module_tensors(value, ITEMS + 1)[:ITEMS]:
            lines.append(f"  {name}: {_tensor_label(tensor) if is_tensor(tensor) else _label(tensor, 1)}")
        return "\n".join(lines)
    if isinstance(value, (list, tuple, set, frozenset, dict)) and value:
        items = islice(value.items(), ITEMS) if isinstance(value, dict) else enumerate(islice(value, ITEMS))
        lines = [f"{type(value).__name__} of {len(value)} item{'s' if len(value) > 1 else ''}"]
        for key, item in items:
            lines.append(f"  [{_label(key, 1)}] {_label(item, 1)}")
        if len(value) > ITEMS:
            lines.append(f"  … {len(value) - ITEMS} more")
        return "\n".join(lines)
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() <= 13000:
        return str(int(value))
    if isinstance(value, (str, bytes)):
        return repr(value[: DETAIL_CHARS]) + (f"… ({len(value)} chars)" if len(value) > DETAIL_CHARS else "")
    if isinstance(value, float):
        return repr(float(value))
    return _label(value, 0)


def _tensor_detail(tensor: Any) -> str:
    head = (f"tensor of shape ({', '.join(map(str, tensor.shape))}), dtype {str(tensor.dtype).removeprefix('torch.')}"
            f", on {tensor.device}" + (", requires grad" if tensor.requires_grad else ""))
    if tensor.is_sparse or tensor.is_meta or tensor.is_quantized:
        return head
    tensor = tensor.detach()
    lines = [head]
    numel = tensor.numel()
    if numel == 0:
        return f"{head}\n(no elements)"
    if 0 < numel <= STATS_ELEMENTS and not tensor.dtype.is_complex:
        numbers = tensor.double()
        finite = numbers[numbers.isfinite()]
        stats = [f"min {_element(finite.min().item())}", f"max {_element(finite.max().item())}",
                 f"mean {_element(finite.mean().item())}"] if finite.numel() else []
        bad = numel - finite.numel()
        if bad:
            stats.append(f"{int(numbers.isnan().sum())} NaN, {int(numbers.isinf().sum())} Inf")
        lines.append(", ".join(stats))
    if tensor.ndim == 0:
        lines.append(_element(tensor.item()))
        return "\n".join(lines)
    lines.append(_table(tensor))
    return "\n".join(line for line in lines if line)


def _table(tensor: Any) -> str:
    """The first 2-D slice's top-left corner, aligned, with its row and column indices."""
    lead = (0,) * max(tensor.ndim - 2, 0)
    plane = tensor[lead] if lead else tensor
    if plane.ndim == 1:  # a vector: rows of TABLE_COLUMNS
        count = min(plane.shape[0], TABLE_ROWS * TABLE_COLUMNS)
        values = plane[:count].tolist()
        rows = [values[i:i + TABLE_COLUMNS] for i in range(0, count, TABLE_COLUMNS)]
        row_names = [f"[{i * TABLE_COLUMNS}]" for i in range(len(rows))]
        column_names = [f"+{j}" for j in range(min(TABLE_COLUMNS, count))]
        more_rows, more_columns = plane.shape[0] > count, False
    else:
        corner = plane[:TABLE_ROWS, :TABLE_COLUMNS].tolist()
        rows = corner
        prefix = "".join(f"{i}, " for i in lead)
        row_names = [f"[{prefix}{i}]" for i in range(len(rows))]
        column_names = [str(j) for j in range(min(plane.shape[1], TABLE_COLUMNS))]
        more_rows, more_columns = plane.shape[0] > TABLE_ROWS, plane.shape[1] > TABLE_COLUMNS
    cells = [[_element(v) for v in row] for row in rows]
    width = max([len(c) for row in cells for c in row] + [len(c) for c in column_names] + [1])
    name_width = max(len(n) for n in row_names) if row_names else 0
    lines = [" " * name_width + " " + " ".join(c.rjust(width) for c in column_names) + (" …" if more_columns else "")]
    for name, row in zip(row_names, cells, strict=False):
        lines.append(name.ljust(name_width) + " " + " ".join(c.rjust(width) for c in row)
                     + (" …" if more_columns else ""))
    if more_rows:
        lines.append("…")
    if tensor.ndim > 2:
        lines.append(f"(the slice [{', '.join(map(str, lead))}, :, :] of {tensor.ndim} dimensions)")
    return "\n".join(lines)


def output(line: int, name: str, where: str, actual: str, expected: str, message: str, actual_value: Any,
           expected_value: Any) -> InlineValue:
    """A graded output that did not match, beside the expected one: its worst element in the label
    (`out[3, 17] = 0.513, expected 0.5123`), both whole values in the detail."""
    return InlineValue(line, "output", name, one_line(f"{where} = {actual}, expected {expected}"),
                       clip(f"{message}\n\nactual:\n{detail(actual_value)}\n\nexpected:\n{detail(expected_value)}",
                            DETAIL_CHARS))
