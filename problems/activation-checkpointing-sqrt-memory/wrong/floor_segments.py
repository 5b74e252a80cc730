# expect: wrong_answer
# why: counts floor(L / K) checkpoints, losing the short last segment when K does not divide L
def checkpointed_activation_memory_mb(num_layers, checkpoint_interval, layer_act_mb, boundary_input_mb):
    num_checkpoints = num_layers // checkpoint_interval
    return float(num_checkpoints * boundary_input_mb + checkpoint_interval * layer_act_mb)
