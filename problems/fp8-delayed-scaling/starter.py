import torch


def fp8_delayed_scaling(xs: torch.Tensor, fmt: str, history_len: int, margin: int, algo: str):
    """FP8 quantization of one tensor per step with delayed scaling (an amax history).

    xs: [T, n] float32, row t the tensor of step t. fmt: "e4m3" or "e5m2". algo: "max" or "most_recent".
    Return (codes [T, n] uint8, scales [T] float32, dequantized [T, n] float32, saturated: list of T ints,
            history [history_len] float32).
    """
    raise NotImplementedError
