# expect: wrong_answer
# why: reports the paper's (p - 1) / m, bubble time over IDEAL time, as the bubble fraction too;
#      the share of the step that is idle is bubble / total = (p - 1) / (m + p - 1): with m = 1 over
#      8 stages the device is idle 7/8 of the time, not "700%"
def pipeline_bubble(p, m, t_f, t_b, schedule, v=1):
    v = v if schedule == "interleaved" else 1
    bubble = (p - 1) * (t_f + t_b) / v
    ideal = m * (t_f + t_b)
    return {"total_time": ideal + bubble, "bubble_time": bubble,
            "bubble_fraction": bubble / ideal, "bubble_overhead": bubble / ideal}
