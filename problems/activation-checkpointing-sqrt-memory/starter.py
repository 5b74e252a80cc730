def checkpointed_activation_memory_mb(
    num_layers: int,
    checkpoint_interval: int,
    layer_act_mb: float,
    boundary_input_mb: float,
) -> float:
    """Peak activation memory (MB) of segmented activation checkpointing.

    The `num_layers` layers are cut into segments of `checkpoint_interval` layers (the last
    one may be shorter). Only each segment's input (`boundary_input_mb`) is kept during the
    forward pass; in the backward pass one segment at a time is recomputed, holding the full
    activations (`layer_act_mb` per layer) of all its layers. Return the peak, in MB.
    """
    raise NotImplementedError
