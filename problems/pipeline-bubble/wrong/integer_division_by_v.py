# expect: wrong_answer
# why: computes the interleaved bubble as (p - 1) // v slots: exact whenever v divides p - 1 (and
#      for v = 1), but p = 8, v = 3 gives 2 slots instead of 7/3 (and v > p - 1 gives no bubble)
def pipeline_bubble(p, m, t_f, t_b, schedule, v=1):
    v = v if schedule == "interleaved" else 1
    bubble = ((p - 1) // v) * (t_f + t_b)
    ideal = m * (t_f + t_b)
    total = ideal + bubble
    return {"total_time": total, "bubble_time": bubble,
            "bubble_fraction": bubble / total, "bubble_overhead": bubble / ideal}
