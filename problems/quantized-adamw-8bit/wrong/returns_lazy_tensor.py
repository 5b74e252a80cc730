# expect: wrong_answer
# why: returns tensors of a torch.Tensor subclass that postpones the kernel until something reads
#      them, so a timed call "finishes" before any work is done; the grader accepts plain tensors only
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



class Deferred(torch.Tensor):
    """Runs `pending` (the real computation) the first time a torch function touches it."""

    pending = None

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        for arg in args:
            if isinstance(arg, Deferred) and arg.pending is not None:
                arg.pending()
        return super().__torch_function__(func, types, args, kwargs or {})


def quantized_adamw_step(params, *args, **kwargs):
    n, blocks, device = params.numel(), args[2].numel(), params.device
    outputs = [torch.empty(n, dtype=torch.bfloat16, device=device), torch.empty(n, device=device),
               torch.empty(n, device=device), torch.empty(blocks, device=device), torch.empty(blocks, device=device)]
    deferred = [t.as_subclass(Deferred) for t in outputs]

    def compute():
        for t in deferred:
            t.pending = None
        for target, value in zip(outputs, eager_step(params, *args, **kwargs)):
            target.copy_(value)

    for t in deferred:
        t.pending = compute
    return tuple(deferred)
