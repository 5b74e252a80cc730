def checkpointed_activation_memory_mb(
    num_layers: int,
    checkpoint_interval: int,
    layer_act_mb: float,
    boundary_input_mb: float,
) -> float:
    """Peak activation memory (MB) of one training step with segmented activation checkpointing.

    The `num_layers` layers are cut into segments of `checkpoint_interval` layers (the last one may
    be shorter). The forward pass keeps only each segment's input (`boundary_input_mb`). The
    backward pass takes the segments last to first: it recomputes one segment, holding the
    activations (`layer_act_mb` per layer) of all its layers, back-propagates through it, then
    frees them and that segment's input. Return the peak of what is alive, in MB.
    """
    raise NotImplementedError
