def activation_bytes_per_layer(seq_len: int, micro_batch: int, hidden: int, num_heads: int,
                               tensor_parallel: int = 1, sequence_parallel: bool = False,
                               selective_recompute: bool = False) -> float:
    """Bytes of activations one transformer layer stores for the backward pass, per GPU.

    Follow Korthikanti et al. 2022, Table 2 (16-bit activations, 1-byte dropout masks):
    without parallelism s*b*h*(34 + 5*a*s/h) bytes. With tensor parallelism of size t, part of
    it is split over t and part stays replicated unless sequence_parallel is True;
    selective_recompute stores none of the attention-score activations (the 5*a*s/h term).

    Return a float (the value need not be an integer).
    """
    raise NotImplementedError
