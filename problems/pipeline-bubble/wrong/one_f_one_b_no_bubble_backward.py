# expect: wrong_answer
# why: believes 1F1B removes the backward part of the bubble (bubble (p - 1) * t_f for 1f1b and
#      interleaved): 1F1B only bounds the activations in flight to p micro-batches; its fill and
#      drain idle exactly as long as GPipe's
def pipeline_bubble(p, m, t_f, t_b, schedule, v=1):
    if schedule == "gpipe":
        bubble = (p - 1) * (t_f + t_b)
    else:
        bubble = (p - 1) * t_f / (v if schedule == "interleaved" else 1)
    ideal = m * (t_f + t_b)
    total = ideal + bubble
    return {"total_time": total, "bubble_time": bubble,
            "bubble_fraction": bubble / total, "bubble_overhead": bubble / ideal}
