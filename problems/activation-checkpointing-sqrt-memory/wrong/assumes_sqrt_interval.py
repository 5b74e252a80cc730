# expect: wrong_answer
# why: ignores the given interval and assumes the optimal K = sqrt(L)
import math


def checkpointed_activation_memory_mb(num_layers, checkpoint_interval, layer_act_mb, boundary_input_mb):
    k = max(1, round(math.sqrt(num_layers)))
    return float(math.ceil(num_layers / k) * boundary_input_mb + k * layer_act_mb)
