import torch


def bf16_updates(weight: torch.Tensor, updates: torch.Tensor, method: str,
                 random_bits: torch.Tensor | None = None):
    """Apply T updates to bf16 weights, with no float32 master copy.

    weight: [n] bfloat16; updates: [T, n] float32 (what to add at each step, e.g. -lr * grad)
    method: "nearest" (round to nearest even), "kahan" (a bf16 compensation buffer holds what the
        weight has not absorbed yet) or "stochastic" (random_bits [T, n] int32 in [0, 2**16),
        added below bf16's last bit of the float32 sum before the dropped bits are cleared).
    Every arithmetic result is computed in float32 and rounded to bf16 once.

    Returns (trajectory [T + 1, n] bfloat16: the weights before the first step and after each,
             compensation [n] bfloat16: Kahan's buffer after the last step, zeros for the others).
    """
    raise NotImplementedError
