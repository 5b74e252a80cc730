# expect: accepted
# bench: rejected
# why: right up to 2**20 parameters, which covers every correctness case; above that a "fast
#      path" returns uninitialised outputs at once. The benchmark checks the output of the last
#      timed repetition at the timed shapes
import torch

from infrakata.kernels.adamw8bit import quantized_adamw_step as fused_step


def quantized_adamw_step(params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, step, **kwargs):
    if params.numel() <= 1 << 20:
        return fused_step(params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, step, **kwargs)
    n, blocks, device = params.numel(), m_absmax.numel(), params.device
    return (torch.empty(n, dtype=torch.bfloat16, device=device), torch.empty(n, device=device),
            torch.empty(n, device=device), torch.empty(blocks, device=device), torch.empty(blocks, device=device))
