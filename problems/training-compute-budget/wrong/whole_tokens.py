# expect: wrong_answer
# why: rounds down to whole tokens; the estimate is nominal and a budget under one token gives a fraction, not 0
def tokens_for_budget(compute_flops: float, num_params: int) -> float:
    return float(compute_flops // (6 * num_params))
