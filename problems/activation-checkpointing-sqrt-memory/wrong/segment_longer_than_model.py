# expect: wrong_answer
# why: recomputes K layers even when the model has fewer than K (the codestar seed's formula)
import math


def checkpointed_activation_memory_mb(num_layers, checkpoint_interval, layer_act_mb, boundary_input_mb):
    num_checkpoints = math.ceil(num_layers / checkpoint_interval)
    return float(num_checkpoints * boundary_input_mb + checkpoint_interval * layer_act_mb)
