def ring_all_reduce(tensors: list):
    """Simulate a ring all-reduce (sum) over W = len(tensors) ranks, and log every message.

    tensors[r]: rank r's 1-D tensor; all have the same length n and dtype.
    Split each into W chunks as torch.tensor_split(x, W) does (the first n % W chunks have one
    element more). Rank r only ever sends to rank (r + 1) % W, one chunk per step:
      reduce-scatter, steps s = 0..W-2: rank r sends chunk (r - s) % W; the receiver adds it
      all-gather,     steps s = 0..W-2: rank r sends chunk (r + 1 - s) % W; the receiver copies it
    Each step's messages are taken from the buffers before any of that step's messages is applied.

    Return (results, messages): results[r] is rank r's tensor afterwards (the elementwise sum over
    all ranks, in the input dtype, shape (n,)); messages[k][r] is the chunk rank r sent at step k
    (k = 0..2(W-1)-1: the reduce-scatter steps, then the all-gather steps), a 1-D tensor of the
    values it carried. Do not modify the input tensors.
    """
    raise NotImplementedError
