# expect: forbidden
# why: the dense shortcut: gathers every token's expert weight into a [T, N, K] tensor (T copies of a weight,
#      gigabytes at a real layer's size) and lets torch.bmm multiply them
import torch


def grouped_gemm(x, weights, expert_offsets):
    counts = expert_offsets[1:] - expert_offsets[:-1]
    expert_of_row = torch.repeat_interleave(torch.arange(weights.shape[0]), counts)
    return torch.bmm(weights[expert_of_row].float(), x.float()[:, :, None])[:, :, 0]
