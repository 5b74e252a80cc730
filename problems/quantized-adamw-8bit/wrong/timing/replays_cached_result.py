# expect: accepted
# bench: rejected
# why: computes honestly the first few times it sees a shape, then returns the last result
#      again without computing. `kata run` calls it at most twice per shape (a fixed case and a
#      fresh case may share one), so the correctness cases pass; the benchmark's warm-up and its
#      fresh-input repetitions share a shape, and the last repetition's output is checked
import torch

BLOCK = 2048


def _requantise(x, qmap):
    xb = x.view(-1, BLOCK)
    absmax = xb.abs().amax(-1)
    c = xb / absmax.clamp(min=1e-30).unsqueeze(-1)
    code = torch.bucketize(c, (qmap[:-1] + qmap[1:]) * 0.5)
    return (qmap[code] * absmax.unsqueeze(-1)).reshape(-1), absmax


def eager_step(params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, step,
               lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, wd=0.01):
    """The right answer, computed eagerly (a solution may not import our kernel: it is an answer)."""
    m = qmap1[m_code.long()] * m_absmax.repeat_interleave(BLOCK)
    v = qmap2[v_code.long()] * v_absmax.repeat_interleave(BLOCK)
    g = grads.float()
    m_new = beta1 * m + (1.0 - beta1) * g
    v_new = beta2 * v + (1.0 - beta2) * g * g
    denom = (v_new / (1.0 - beta2 ** step)).sqrt() + eps
    p_out = params.float() * (1.0 - lr * wd) - (lr / (1.0 - beta1 ** step)) * m_new / denom
    m_out, m_absmax_out = _requantise(m_new, qmap1)
    v_out, v_absmax_out = _requantise(v_new, qmap2)
    return p_out.to(torch.bfloat16), m_out, v_out, m_absmax_out, v_absmax_out


HONEST_CALLS_PER_SHAPE = 2
_results = {}
_calls = {}


def quantized_adamw_step(params, *args, **kwargs):
    key = tuple(params.shape)
    _calls[key] = _calls.get(key, 0) + 1
    if _calls[key] <= HONEST_CALLS_PER_SHAPE:
        _results[key] = eager_step(params, *args, **kwargs)
    return _results[key]
