import torch


def vocab_parallel_cross_entropy(logits: torch.Tensor, target: torch.Tensor, tp: int, pad_to: int = 1,
                                 ignore_index: int = -100):
    """Cross-entropy over a vocabulary split across `tp` tensor-parallel ranks (Megatron-LM).

    logits: [N, V] float32 or bfloat16 (work in float32); target: [N] int64, rows equal to
    ignore_index do not count. The vocabulary is padded to a multiple of pad_to * tp and split into
    tp equal ranges of rows; rank r holds the real tokens of its range (possibly none).
    Each rank sends into three all-reduces: its shard's max (MAX), its shard's sum of
    exp(z - global max) (SUM), and for the rows whose target it holds, that logit minus the global
    max, 0 elsewhere (SUM).

    Returns (max_sent [tp, N], sum_exp_sent [tp, N], target_sent [tp, N], loss [N] (0 on ignored
    rows), mean_loss (0-dim, over the kept rows), grad_shards: a list of tp tensors [N, shard size],
    the gradient of mean_loss with respect to each rank's logits). All float32.
    """
    raise NotImplementedError
