import math


def chinchilla_optimal(compute_flops: float, tokens_per_param: float = 20.0) -> tuple:
    # C = 6 N D and D = r N  =>  C = 6 r N^2  =>  N = sqrt(C / (6 r)), D = r N.
    n = math.sqrt(compute_flops / (6 * tokens_per_param))
    d = tokens_per_param * n
    # Round each exact value once, at the end.
    return (round(n), round(d))
