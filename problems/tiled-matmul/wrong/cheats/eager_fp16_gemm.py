# expect: forbidden
# why: the shortcut of letting torch multiply the fp16 tensors as they are: no Triton kernel is launched
#      (the kata grades a kernel of its own), and its fp16 GEMM would round every output to 11 significant
#      bits besides. The same shortcut widened first is refused alike: eager_fp32_gemm.py.
def linear(x, weight):
    return (x @ weight.T).float()
