# expect: wrong_answer
# why: adds the low-rank update without its scale (alpha / r); the lab's cases use scale 1, so
#      only the cases with another scale catch it
import torch


def lora_forward(x, W, A, B, scale):
    return x @ W.T + (x @ A.T) @ B.T
