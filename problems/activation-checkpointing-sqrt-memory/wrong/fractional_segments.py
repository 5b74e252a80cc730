# expect: wrong_answer
# why: uses L / K as a fraction of a checkpoint instead of rounding the segment count up
def checkpointed_activation_memory_mb(num_layers, checkpoint_interval, layer_act_mb, boundary_input_mb):
    num_checkpoints = num_layers / checkpoint_interval
    return float(num_checkpoints * boundary_input_mb + min(checkpoint_interval, num_layers) * layer_act_mb)
