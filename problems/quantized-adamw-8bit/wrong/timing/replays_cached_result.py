# expect: accepted
# bench: rejected
# why: remembers its result per shape and returns it again without computing. Every `kata run`
#      case has a new shape, so the correctness cases pass; the benchmark's warm-up and its
#      fresh-input repetitions share a shape, and the last repetition's output is checked
from infrakata.kernels.adamw8bit import quantized_adamw_step as fused_step

_results = {}


def quantized_adamw_step(params, *args, **kwargs):
    key = tuple(params.shape)
    if key not in _results:
        _results[key] = fused_step(params, *args, **kwargs)
    return _results[key]
