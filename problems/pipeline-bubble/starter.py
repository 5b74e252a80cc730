def pipeline_bubble(p: int, m: int, t_f: float, t_b: float, schedule: str, v: int = 1) -> dict:
    """Time and pipeline bubble of one training step (Narayanan et al. 2021, section 2.2).

    p: pipeline stages (devices); m: micro-batches per step; t_f, t_b: forward and backward time
    of one micro-batch through one whole stage; schedule: "gpipe", "1f1b" or "interleaved";
    v: model chunks per device for "interleaved" (each chunk takes t_f / v and t_b / v).

    Return {"total_time": ..., "bubble_time": ..., "bubble_fraction": ..., "bubble_overhead": ...}:
    the step's duration, the idle time of each device in it, bubble_time / total_time and
    bubble_time / ideal_time, where ideal_time = m * (t_f + t_b). All floats.
    """
    raise NotImplementedError
