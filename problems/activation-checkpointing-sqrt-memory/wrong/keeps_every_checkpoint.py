# expect: wrong_answer
# why: adds every checkpoint to the longest segment's activations, as if no checkpoint were freed
#      before the longest segment is recomputed; when K does not divide L the short last segment
#      is recomputed first, and a full one only after its checkpoint is gone (L = 30, K = 8: 420,
#      not 415)
def checkpointed_activation_memory_mb(num_layers, checkpoint_interval, layer_act_mb, boundary_input_mb):
    segments = -(-num_layers // checkpoint_interval)
    return float(segments * boundary_input_mb + min(checkpoint_interval, num_layers) * layer_act_mb)
