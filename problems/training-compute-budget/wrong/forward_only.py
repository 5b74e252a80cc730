# expect: wrong_answer
# why: counts only the forward pass (C = 2 N D), so it promises three times too many tokens
def tokens_for_budget(compute_flops: float, num_params: int) -> float:
    return compute_flops / (2 * num_params)
