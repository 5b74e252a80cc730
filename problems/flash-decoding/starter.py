import torch


def flash_decode(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, lengths: torch.Tensor,
                 num_splits: int, scale: float, prefix_out: torch.Tensor, prefix_lse: torch.Tensor):
    """One decoding step of attention with the KV cache split in num_splits parts, merged by log-sum-exp
    with the attention over a shared prefix that was computed elsewhere.

    q [B, H, D]; k_cache, v_cache [B, Hkv, S, D] (positions >= lengths[b] are padding); lengths [B] int64;
    prefix_out [B, H, D], prefix_lse [B, H] float32 (-inf: no prefix).
    Return (split_out [B, H, num_splits, D], split_lse [B, H, num_splits], out [B, H, D], lse [B, H]),
    all float32.
    """
    raise NotImplementedError
