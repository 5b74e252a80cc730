# expect: wrong_answer
# why: converts with int(), which truncates toward zero, instead of rounding to the nearest integer
import math


def chinchilla_optimal(compute_flops, tokens_per_param=20.0):
    n = math.sqrt(compute_flops / (6 * tokens_per_param))
    return (int(n), int(tokens_per_param * n))
