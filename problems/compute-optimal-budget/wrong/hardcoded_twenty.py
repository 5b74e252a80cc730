# expect: wrong_answer
# why: hard-codes Chinchilla's 20 tokens per parameter and ignores tokens_per_param
import math


def chinchilla_optimal(compute_flops, tokens_per_param=20.0):
    n = math.sqrt(compute_flops / 120)
    return (round(n), round(20 * n))
