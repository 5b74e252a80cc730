def pipeline_bubble(p: int, m: int, t_f: float, t_b: float, schedule: str, v: int = 1) -> dict:
    # Narayanan et al. 2021 (Megatron-LM at scale), section 2.2: every device does m forwards and
    # m backwards of its stage (the ideal time) and idles (p - 1) forward + backward slots. With
    # interleaving each device holds v chunks of 1/v of its layers, and the bubble shrinks by v.
    ideal = m * (t_f + t_b)
    if schedule in ("gpipe", "1f1b"):
        bubble = (p - 1) * (t_f + t_b)
    elif schedule == "interleaved":
        bubble = (p - 1) * (t_f + t_b) / v
    else:
        raise ValueError(f"unknown schedule {schedule!r}")
    total = ideal + bubble
    return {
        "total_time": total,
        "bubble_time": bubble,
        "bubble_fraction": bubble / total,   # share of the run each device is idle
        "bubble_overhead": bubble / ideal,   # the paper's ratio t_pb / t_id = (p - 1) / (v m)
    }
