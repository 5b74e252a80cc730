"""A second reference: both algorithms run message by message, and the clock is read at the end.

Each rank has a sending link and a receiving link, each busy with one message at a time, and keeps,
per chunk of its buffer, which ranks' data that chunk already sums and the time it got
there. A message starts when its data is there, the sender's link is free and the receiver's link
is free; it costs the latency plus its bytes over the bandwidth. The run checks that every rank ends
with every rank's data. The crossover size is found by bisection on the two simulated times."""


class _Network:
    def __init__(self, ranks, chunks, alpha, beta):
        self.alpha, self.beta = alpha, beta
        self.send_free, self.receive_free = [0.0] * ranks, [0.0] * ranks
        self.data = [[1 << r for _ in range(chunks)] for r in range(ranks)]  # bit r: rank r's data is in
        self.ready = [[0.0] * chunks for _ in range(ranks)]
        self.sent = [0.0] * ranks  # bytes each rank has sent

    def send(self, sender, receiver, chunk, size, reduce):
        start = max(self.ready[sender][chunk], self.send_free[sender], self.receive_free[receiver])
        end = start + self.alpha + size / self.beta
        self.send_free[sender] = self.receive_free[receiver] = end
        self.sent[sender] += size
        held = self.data[sender][chunk]
        self.data[receiver][chunk] = self.data[receiver][chunk] | held if reduce else held
        self.ready[receiver][chunk] = max(self.ready[receiver][chunk], end)

    def finished(self, ranks):
        assert all(chunk == (1 << ranks) - 1 for rank in self.data for chunk in rank), "an incomplete all-reduce"
        return max(max(row) for row in self.ready)


def _ring(W, S, alpha, beta):
    net = _Network(W, W, alpha, beta)
    for reduce in (True, False):  # reduce-scatter, then all-gather
        for step in range(W - 1):
            # In a step rank r sends one chunk and receives another: the order of the sends is free.
            for r in range(W):
                net.send(r, (r + 1) % W, (r - step) % W if reduce else (r + 1 - step) % W, S / W, reduce)
    return net.finished(W), net.sent[0]


def _tree(W, S, alpha, beta):
    net = _Network(W, 1, alpha, beta)
    pairs = []  # round by round: (child, parent) of the binomial tree
    span = 1
    while span < W:
        pairs.append([(r, r - span) for r in range(span, W, 2 * span)])
        span *= 2
    for round_pairs in pairs:  # reduce towards rank 0
        for child, parent in round_pairs:
            net.send(child, parent, 0, S, True)
    for round_pairs in reversed(pairs):  # broadcast from rank 0
        for child, parent in round_pairs:
            net.send(parent, child, 0, S, False)
    return net.finished(W), None


def _crossover(W, alpha, beta):
    def ring_slower(size):
        return _ring(W, size, alpha, beta)[0] > _tree(W, size, alpha, beta)[0]

    if not ring_slower(0):
        return 0.0  # the ring is never slower
    low, high = 0.0, 1.0
    while ring_slower(high):
        high *= 2
    while True:
        middle = (low + high) / 2
        if middle in (low, high):
            return high
        low, high = (middle, high) if ring_slower(middle) else (low, middle)


def all_reduce_cost(num_ranks, size_bytes, latency_us, bandwidth_gbps):
    W, S = num_ranks, size_bytes
    alpha, beta = latency_us / 10 ** 6, bandwidth_gbps * 10 ** 9
    (ring, _), (tree, _) = _ring(W, S, alpha, beta), _tree(W, S, alpha, beta)
    # nccl-tests' bus bandwidth: algbw scaled by what one rank sends in a ring all-reduce per byte of
    # the buffer, counted on a ring run over a buffer of W bytes.
    factor = _ring(W, W, alpha, beta)[1] / W

    def figures(seconds):
        algbw = S / seconds / 10 ** 9
        return {"time_us": seconds * 10 ** 6, "algbw_gbps": algbw, "busbw_gbps": algbw * factor}

    return {"ring": figures(ring), "tree": figures(tree), "faster": "ring" if ring <= tree else "tree",
            "crossover_bytes": _crossover(W, alpha, beta)}
