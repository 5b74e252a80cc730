def tokens_for_budget(compute_flops: float, num_params: int) -> float:
    # C = 6 N D: 2 FLOPs per parameter per token forward, 4 backward.
    return compute_flops / (6 * num_params)
