def chinchilla_optimal(compute_flops: float, tokens_per_param: float = 20.0) -> tuple:
    """Compute-optimal (num_params, num_tokens) for a training budget of `compute_flops`.

    Solve C = 6 * N * D together with D = tokens_per_param * N (Chinchilla: about 20).
    Return (N, D) as a tuple of two ints, each exact value rounded to the nearest integer
    with round().
    """
    raise NotImplementedError
