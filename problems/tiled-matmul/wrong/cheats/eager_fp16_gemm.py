# expect: wrong_answer
# why: the shortcut of letting torch multiply the fp16 tensors as they are: its fp16 GEMM returns fp16,
#      rounding every output to 11 significant bits, which the fp32 result a kernel keeps does not.
#      (The same shortcut widened first, x.float() @ weight.float().T, is the reference itself: telling
#      it from a kernel needs the grader to count Triton launches, issue 15 item 2.)
def linear(x, weight):
    return (x @ weight.T).float()
