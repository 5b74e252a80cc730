

def dp_average_gradients(grads: list, token_counts: list) -> list:
    """Average data-parallel gradients weighted by tokens.

    grads[r][i]: rank r's gradient of parameter i (bfloat16), the gradient of the MEAN loss over
    that rank's token_counts[r] tokens. All ranks list the same parameters with the same shapes.

    Return, for each parameter i, the gradient of the mean loss over ALL tokens,
        sum_r token_counts[r] * grads[r][i] / sum_r token_counts[r],
    as a float32 tensor, accumulated in float32. Ranks with 0 tokens contribute nothing (their
    gradients may be NaN); if no rank has tokens, return zeros. Do not modify the inputs.
    """
    raise NotImplementedError
