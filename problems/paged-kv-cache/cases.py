"""Scripts of operations for paged-kv-cache: hand-written scenarios (the statement's example, copy on
write, rejected appends, reuse of freed blocks) and seeded random scripts. A random script only names
sequences that exist, so it follows the block counts as the cache would (without the data)."""
import torch


def _rows(g, n, dim):
    return torch.randn(n, dim, generator=g)


def _script(seed, dim, steps):
    """steps: ("append", seq, n) | ("fork", parent, child) | ("free", seq) | ("gather", seq)."""
    g = torch.Generator().manual_seed(seed)
    return [(op[0], op[1], _rows(g, op[2], dim)) if op[0] == "append" else op for op in steps]


class _Blocks:
    """Just enough of the cache to know which appends succeed: block counts, references, lengths."""

    def __init__(self, num_blocks, block_size):
        self.free, self.block_size = num_blocks, block_size
        self.tables, self.lengths, self.refs, self.next_id = {}, {}, {}, 0

    def append(self, seq, n):
        table, length = self.tables.get(seq, []), self.lengths.get(seq, 0)
        used = length % self.block_size
        copy = used > 0 and self.refs[table[-1]] > 1
        room = self.block_size - used if used else 0
        needed = int(copy) + -(-max(0, n - room) // self.block_size)
        if needed > self.free:
            return
        self.free -= needed
        blocks = []
        for _ in range(needed):
            blocks.append(self.next_id)
            self.refs[self.next_id] = 1
            self.next_id += 1
        if copy:
            self.refs[table[-1]] -= 1
            table = table[:-1] + [blocks.pop(0)]
        self.tables[seq], self.lengths[seq] = table + blocks, length + n

    def fork(self, parent, child):
        self.tables[child], self.lengths[child] = list(self.tables[parent]), self.lengths[parent]
        for block in self.tables[child]:
            self.refs[block] += 1

    def release(self, seq):
        for block in self.tables.pop(seq):
            self.refs[block] -= 1
            self.free += self.refs[block] == 0
        del self.lengths[seq]


def _random(seed, num_blocks, block_size, dim, count):
    g = torch.Generator().manual_seed(seed)
    blocks = _Blocks(num_blocks, block_size)
    steps, names = [], 0
    for _ in range(count):
        live = sorted(blocks.tables)
        roll = int(torch.randint(0, 10, (), generator=g))
        if not live or roll < 2:
            seq, names = f"s{names}", names + 1
            n = int(torch.randint(1, 3 * block_size, (), generator=g))
            steps.append(("append", seq, n))
            blocks.append(seq, n)
            continue
        seq = live[int(torch.randint(0, len(live), (), generator=g))]
        if roll < 5:
            n = int(torch.randint(1, 2 * block_size, (), generator=g))
            steps.append(("append", seq, n))
            blocks.append(seq, n)
        elif roll < 6:
            child, names = f"s{names}", names + 1
            steps.append(("fork", seq, child))
            blocks.fork(seq, child)
        elif roll < 8:
            steps.append(("gather", seq))
        else:
            steps.append(("free", seq))
            blocks.release(seq)
    live = sorted(blocks.tables)
    steps += [("gather", seq) for seq in live]
    return (num_blocks, block_size, dim, _script(seed + 1000, dim, steps))


EXAMPLE = [("append", "a", 5), ("fork", "a", "b"), ("append", "b", 2), ("append", "a", 4), ("gather", "a"),
           ("gather", "b"), ("free", "a"), ("append", "c", 9), ("gather", "b")]


def cases():
    return [
        {"name": "the statement's example: fork, copy on write, free, reuse",
         "args": (6, 4, 2, _script(1, 2, EXAMPLE))},
        {"name": "appends that fill the last block before taking a new one",
         "args": (8, 4, 3, _script(2, 3, [("append", "a", 3), ("append", "a", 1), ("append", "a", 1),
                                          ("append", "a", 6), ("gather", "a")]))},
        {"name": "a rejected append allocates and writes nothing (a new sequence is not created)",
         "args": (3, 4, 2, _script(3, 2, [("append", "a", 6), ("append", "b", 9), ("append", "a", 1),
                                          ("append", "a", 2), ("append", "b", 1), ("gather", "a"),
                                          ("free", "a"), ("append", "b", 4), ("gather", "b")]))},
        {"name": "freed blocks go to the back of the queue, tail first; stale rows stay in the pool",
         "args": (5, 2, 2, _script(4, 2, [("append", "a", 5), ("append", "b", 1), ("free", "a"),
                                          ("append", "c", 1), ("append", "d", 3), ("gather", "c"),
                                          ("gather", "d"), ("gather", "b")]))},
        {"name": "fork at a block boundary: the next append takes a new block, no copy",
         "args": (6, 4, 2, _script(5, 2, [("append", "a", 8), ("fork", "a", "b"), ("append", "b", 1),
                                          ("append", "a", 1), ("free", "b"), ("gather", "a")]))},
        {"name": "three sharers of a block holding one row: two copies, the last writer keeps the original",
         "args": (8, 4, 2, _script(6, 2, [("append", "a", 1), ("fork", "a", "b"), ("fork", "b", "c"),
                                          ("append", "c", 1), ("append", "a", 2), ("append", "b", 3),
                                          ("gather", "a"), ("gather", "b"), ("gather", "c"), ("free", "c"),
                                          ("free", "b"), ("free", "a")]))},
        {"name": "copy on write when no block is free: rejected",
         "args": (2, 4, 2, _script(7, 2, [("append", "a", 6), ("fork", "a", "b"), ("append", "b", 1),
                                          ("free", "a"), ("append", "b", 1), ("gather", "b")]))},
        {"name": "block_size 1",
         "args": (5, 1, 3, _script(8, 3, [("append", "a", 2), ("fork", "a", "b"), ("append", "b", 2),
                                          ("append", "a", 2), ("free", "b"), ("append", "a", 1),
                                          ("gather", "a")]))},
        {"name": "random script: 120 operations, 24 blocks of 8, rows of 4", "args": _random(9, 24, 8, 4, 120)},
        {"name": "random script: 200 operations, 40 blocks of 16, rows of 8", "args": _random(10, 40, 16, 8, 200)},
        {"name": "random script: 150 operations, 12 blocks of 3 (many rejections)", "args": _random(11, 12, 3, 2, 150)},
    ]


def fresh(seed):
    """A random script, new at every grading (never shown): 1 to 64 blocks of 1 to 16 rows of 1 to 8 values, up
    to 200 operations (appends, forks, gathers, frees; rejected appends where the pool is small)."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    num_blocks, block_size = draw(1, 2, 1 + below(16), 1 + below(64)), draw(1, 2, 1 + below(16))
    # The script's trailing gathers (one per live sequence) stay within the 250 operations.
    return {"args": _random(below(2 ** 31), num_blocks, block_size, draw(1, 1 + below(8)), draw(1 + below(40), 1 + below(200)))}
