# expect: wrong_answer
# why: returns billions of tokens, as the lab prints them, instead of tokens
def tokens_for_budget(compute_flops: float, num_params: int) -> float:
    return compute_flops / (6 * num_params) / 1e9
