# expect: forbidden
# why: the reference's own line, widened to fp32 and multiplied by torch: right on every case (this used
#      to be accepted), but no Triton kernel is launched, and a kernel is what this kata grades
def linear(x, weight):
    return x.float() @ weight.float().T
