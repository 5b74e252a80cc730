def tokens_for_budget(compute_flops: float, num_params: int) -> float:
    """Training tokens D that a budget of `compute_flops` buys for a model of `num_params`.

    Use the standard estimate C = 6 * N * D (2 FLOPs per parameter per token in the forward
    pass, 4 in the backward pass). Return D as a float, in tokens (not billions), unrounded.
    """
    raise NotImplementedError
