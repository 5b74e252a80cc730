# expect: wrong_answer
# why: swaps the roles of A and B (projects with B first, then A); on the lab's square 2x2
#      example the shapes happen to fit, so it runs and returns the wrong numbers
import torch


def lora_forward(x, W, A, B, scale):
    return x @ W.T + scale * ((x @ B) @ A)
