"""A second reference: the step simulated tensor by tensor, with the memory alive counted at every
moment. check-problems holds it against reference.py's closed form on every case."""


def checkpointed_activation_memory_mb(num_layers, checkpoint_interval, layer_act_mb, boundary_input_mb):
    segments = [list(range(start, min(start + checkpoint_interval, num_layers)))
                for start in range(0, num_layers, checkpoint_interval)]
    alive = 0.0
    peak = 0.0
    # Forward: each segment's input is kept (a checkpoint); the layers' activations are dropped.
    for _ in segments:
        alive += boundary_input_mb
        peak = max(peak, alive)
    # Backward, last segment first: recompute it layer by layer from its checkpoint (each layer's
    # activations kept), back-propagate through it, then free its activations and its checkpoint.
    for segment in reversed(segments):
        for _ in segment:
            alive += layer_act_mb
            peak = max(peak, alive)
        alive -= layer_act_mb * len(segment)
        alive -= boundary_input_mb
    return float(peak)
