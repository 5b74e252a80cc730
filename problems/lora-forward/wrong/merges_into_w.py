# expect: wrong_answer
# why: merges the adapter into the frozen base weight in place (W += scale * B @ A); the output
#      is right but W comes back changed, so every later call would apply the update twice
import torch


def lora_forward(x, W, A, B, scale):
    W.add_(scale * (B @ A))
    return x @ W.T
