# expect: wrong_answer
# why: writes the attention-mask term with d_model, as the common "2 n_layer n_ctx d_model"
#      shorthand does; Table 1 has d_attn, which differs when the attention is narrower
def kaplan_flops_per_token(n_layer, d_model, n_ctx, d_ff=None, d_attn=None, recompute=False):
    d_ff = 4 * d_model if d_ff is None else d_ff
    d_attn = d_model if d_attn is None else d_attn
    params = 2 * d_model * n_layer * (2 * d_attn + d_ff)
    forward = 2 * params + 2 * n_layer * n_ctx * d_model
    return {"params": params, "forward": forward, "train": (4 if recompute else 3) * forward}
