

def tp_mlp_forward(x, w1, b1, w2, b2, tp: int):
    """The MLP gelu(x @ w1.T + b1) @ w2.T + b2, computed as Megatron-LM's tensor parallelism does.

    x: [..., d]; w1: [h, d], b1: [h] (fc1, nn.Linear layout); w2: [d_out, h], b2: [d_out] (fc2).
    tp: number of tensor-parallel ranks. Split the hidden dimension h over the ranks as
    torch.tensor_split does (the first h % tp ranks get one more; a rank may get none).
    Rank i: w1_i = its rows of w1, b1_i = its entries of b1, w2_i = its columns of w2, and
    partial_i = gelu(x @ w1_i.T + b1_i) @ w2_i.T. Then out = sum_i partial_i + b2 (all-reduce,
    then the bias once). gelu is the exact (erf) GELU.

    Return (out, partials): out of shape [..., d_out] in x's dtype; partials, a list of tp tensors,
    partials[i] = rank i's output before the all-reduce, [..., d_out] in x's dtype (zeros for a rank
    that owns no hidden unit).
    """
    raise NotImplementedError
