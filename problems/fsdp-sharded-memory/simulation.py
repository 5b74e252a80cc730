"""A second reference: FSDP's sharding done on the meta device (shapes and dtypes, no memory). Each
state is one flat tensor of `num_params` elements; a sharded one is padded with zeros to a multiple
of `world_size` and chunked, as FlatParamHandle does, and rank 0 keeps its chunk; a replicated one
stays whole. The bytes of what rank 0 holds are counted."""
import torch


def _held(dtype, num_params, world_size, sharded):
    flat = torch.empty(num_params, dtype=dtype, device="meta")
    if sharded:
        padding = (-num_params) % world_size
        # Padded with zeros (pad, not cat: torch.cat's first meta call imports its decompositions, seconds).
        flat = torch.nn.functional.pad(flat, (0, padding))
        flat = flat.view(world_size, -1)[0]  # rank 0's chunk: every chunk has the same size
    return flat.numel() * flat.element_size()


def sharded_state_bytes(num_params, world_size, stage):
    params = _held(torch.bfloat16, num_params, world_size, stage >= 3)
    grads = _held(torch.bfloat16, num_params, world_size, stage >= 2)
    optimizer = sum(_held(torch.float32, num_params, world_size, stage >= 1) for _ in ("master", "m", "v"))
    return {"params": params, "grads": grads, "optimizer": optimizer, "total": params + grads + optimizer}
