import torch


def flash_decode(q: torch.Tensor, k_split: torch.Tensor, v_split: torch.Tensor, lengths: torch.Tensor,
                 scale: float, parts_out: torch.Tensor, parts_lse: torch.Tensor):
    """One decoding step of attention from one split's worker: attend to this split of the KV cache, then
    merge the result by log-sum-exp with the parts computed elsewhere (the sequence's other splits and a
    shared prefix), whose keys are not here.

    q [B, H, D]; k_split, v_split [B, Hkv, C, D] (positions >= lengths[b] are padding); lengths [B] int64;
    parts_out [B, H, R, D], parts_lse [B, H, R] float32 (-inf: an empty part).
    Return (split_out [B, H, D], split_lse [B, H], out [B, H, D], lse [B, H]), all float32.
    """
    raise NotImplementedError
