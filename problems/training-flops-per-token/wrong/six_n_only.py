# expect: wrong_answer
# why: the familiar C = 6N per token: drops the attention-mask term, which has no parameters
#      (1.4% of GPT-3's FLOPs, and most of them at a 131072-token context)
def kaplan_flops_per_token(n_layer, d_model, n_ctx, d_ff=None, d_attn=None, recompute=False):
    d_ff = 4 * d_model if d_ff is None else d_ff
    d_attn = d_model if d_attn is None else d_attn
    params = 2 * d_model * n_layer * (2 * d_attn + d_ff)
    forward = 2 * params
    return {"params": params, "forward": forward, "train": (4 if recompute else 3) * forward}
