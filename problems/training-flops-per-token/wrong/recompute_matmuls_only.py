# expect: wrong_answer
# why: with recomputation adds 2N (the weight matmuls) but not the attention-mask term: the
#      recomputed forward includes attention too, so training is exactly 4x the forward
def kaplan_flops_per_token(n_layer, d_model, n_ctx, d_ff=None, d_attn=None, recompute=False):
    d_ff = 4 * d_model if d_ff is None else d_ff
    d_attn = d_model if d_attn is None else d_attn
    params = 2 * d_model * n_layer * (2 * d_attn + d_ff)
    forward = 2 * params + 2 * n_layer * n_ctx * d_attn
    train = 3 * forward + (2 * params if recompute else 0)
    return {"params": params, "forward": forward, "train": train}
