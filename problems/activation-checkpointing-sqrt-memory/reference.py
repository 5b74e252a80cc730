def checkpointed_activation_memory_mb(
    num_layers: int,
    checkpoint_interval: int,
    layer_act_mb: float,
    boundary_input_mb: float,
) -> float:
    segments = -(-num_layers // checkpoint_interval)  # ceil(L / K) checkpoints
    last = num_layers - (segments - 1) * checkpoint_interval  # the last segment: K layers, or fewer
    # The backward pass recomputes the last segment first, with every checkpoint still alive; each
    # earlier segment (K layers) is recomputed after the checkpoints behind it were freed.
    peak = segments * boundary_input_mb + last * layer_act_mb
    if segments > 1:
        peak = max(peak, (segments - 1) * boundary_input_mb + checkpoint_interval * layer_act_mb)
    return float(peak)
