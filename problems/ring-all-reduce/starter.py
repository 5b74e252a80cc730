

def ring_all_reduce(tensors: list):
    """Simulate a ring all-reduce (sum) over W = len(tensors) ranks.

    tensors[r]: rank r's 1-D tensor; all have the same length n and dtype.
    Split each into W chunks as torch.tensor_split(x, W) does (the first n % W chunks have one
    element more). Rank r only ever sends to rank (r + 1) % W, one chunk per step:
      reduce-scatter, steps s = 0..W-2: rank r sends chunk (r - s) % W; the receiver adds it
      all-gather,     steps s = 0..W-2: rank r sends chunk (r + 1 - s) % W; the receiver copies it

    Return (results, sent): results[r] is rank r's tensor afterwards (the elementwise sum over
    all ranks, in the input dtype, shape (n,)); sent[r] is the number of elements rank r sent
    (an int). Do not modify the input tensors.
    """
    raise NotImplementedError
