# expect: forbidden
# why: launches a kernel that does nothing useful, so the call counts as a Triton launch, and samples with eager
#      torch, the reference's sort and prefix sums: torch.sort (like torch.cumsum and torch.softmax) is forbidden
#      in this problem
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def top_p_sample(logits, temperature, top_p, uniforms):
    _touch[(1,)](uniforms)
    probs = (logits / temperature[:, None]).exp()
    probs = probs / probs.sum(dim=-1, keepdim=True)
    ranked, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    above = torch.cumsum(ranked, dim=-1) - ranked
    kept = torch.zeros_like(probs, dtype=torch.bool).scatter(-1, order, (above < top_p[:, None]) & (ranked > 0))
    cdf = torch.cumsum(torch.where(kept, probs, 0.0), dim=-1)
    return (cdf <= uniforms[:, None] * cdf[:, -1:]).sum(dim=-1)
