# expect: forbidden
# why: eager torch, the reference's own code (this used to be accepted): right on every case, but no Triton
#      kernel is launched, and a kernel is what this kata grades


def softmax_rows(x):
    """Softmax over the last dimension, shifted by each row's maximum so exp cannot overflow."""
    e = (x - x.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)
