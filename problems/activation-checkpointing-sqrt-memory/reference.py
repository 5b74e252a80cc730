def checkpointed_activation_memory_mb(
    num_layers: int,
    checkpoint_interval: int,
    layer_act_mb: float,
    boundary_input_mb: float,
) -> float:
    num_checkpoints = -(-num_layers // checkpoint_interval)  # ceil(L / K)
    # The longest segment has K layers, unless the whole model is shorter than K.
    longest_segment = min(checkpoint_interval, num_layers)
    return float(num_checkpoints * boundary_input_mb + longest_segment * layer_act_mb)
