# expect: wrong_answer
# why: rounds N first and derives D from the rounded value: the rounding error of N is
#      multiplied by the ratio (up to 10 tokens at r = 20, and 20 instead of 18 for a 100-FLOP budget)
import math


def chinchilla_optimal(compute_flops, tokens_per_param=20.0):
    n = round(math.sqrt(compute_flops / (6 * tokens_per_param)))
    return (n, round(tokens_per_param * n))
