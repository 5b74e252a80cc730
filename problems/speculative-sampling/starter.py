import torch


def speculative_sample(target_logits: torch.Tensor, draft_logits: torch.Tensor, draft_tokens: torch.Tensor,
                       uniforms: torch.Tensor, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0):
    """One verification step of speculative decoding, with top-k / top-p sampling.

    target_logits: [G + 1, V] float64, the target model's logits at the G drafted positions and one more
    draft_logits: [G, V] float64, the draft model's logits at the G positions it proposed from
    draft_tokens: [G] int64, the tokens the draft sampled
    uniforms: [G + 1] float64 in [0, 1): uniforms[i] decides draft token i, uniforms[-1] the one draw
    Both models' logits go through the same sampler: temperature, then top-k (0: off), then top-p.

    Returns (p [G + 1, V], q [G, V], accepted: int, tokens: int64 [accepted + 1]): the target's and
    the draft's sampling distributions, how many draft tokens were accepted, and the tokens this
    step emits (the accepted draft tokens, then one drawn token).
    """
    raise NotImplementedError
