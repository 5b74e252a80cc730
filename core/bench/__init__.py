"""The kernel throughput benchmark: the grader's side and the timing code run in the workers."""
