# expect: wrong_answer
# why: returns tensors of a torch.Tensor subclass that postpones the kernel until something reads
#      them, so a timed call "finishes" before any work is done; the grader accepts plain tensors only
import torch

from infrakata.kernels.adamw8bit import quantized_adamw_step as fused_step


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
        for target, value in zip(outputs, fused_step(params, *args, **kwargs)):
            target.copy_(value)

    for t in deferred:
        t.pending = compute
    return tuple(deferred)
