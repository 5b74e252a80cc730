# expect: wrong_answer
# why: uses PaLM's MFU attention term (12 L H Q T for training, 4 n_layer n_ctx d_attn forward)
#      instead of Kaplan's 2 n_layer n_ctx d_attn: the two papers count attention differently, and
#      this problem follows Kaplan's Table 1
def kaplan_flops_per_token(n_layer, d_model, n_ctx, d_ff=None, d_attn=None, recompute=False):
    d_ff = 4 * d_model if d_ff is None else d_ff
    d_attn = d_model if d_attn is None else d_attn
    params = 2 * d_model * n_layer * (2 * d_attn + d_ff)
    forward = 2 * params + 4 * n_layer * n_ctx * d_attn
    return {"params": params, "forward": forward, "train": (4 if recompute else 3) * forward}
