

def split_k_linear(x, weight):
    """x @ weight.T from fp16 inputs, accumulated and returned in fp32 (fp16 products are exact in fp32)."""
    return x.float() @ weight.float().T
