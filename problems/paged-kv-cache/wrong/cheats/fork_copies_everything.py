# expect: wrong_answer
# why: the shortcut of copying a forked sequence's blocks at once instead of sharing them: no
#      reference counts, no copy on write. It skips what makes parallel sampling and beam search cheap
#      (a shared prompt stored once); forks take blocks, and run out of them, where vLLM takes none
from collections import deque

import torch


def paged_kv_cache(num_blocks, block_size, dim, ops):
    pool = torch.zeros(num_blocks, block_size, dim)
    free = deque(range(num_blocks))
    tables, lengths, log = {}, {}, []
    for op in ops:
        kind, seq = op[0], op[1]
        if kind == "append":
            rows = op[2]
            table, length = tables.get(seq, []), lengths.get(seq, 0)
            used = length % block_size
            needed = -(-max(0, len(rows) - (block_size - used if used else 0)) // block_size)
            if needed > len(free):
                log.append(None)
                continue
            new = [free.popleft() for _ in range(needed)]
            table += new
            for i, row in enumerate(rows):
                position = length + i
                pool[table[position // block_size], position % block_size] = row
            tables[seq], lengths[seq] = table, length + len(rows)
            log.append(new)
        elif kind == "fork":
            parent = tables[seq]
            copies = [free.popleft() for _ in range(min(len(parent), len(free)))]
            for source, target in zip(parent, copies):
                pool[target] = pool[source]
            tables[op[2]], lengths[op[2]] = copies, lengths[seq]
            log.append(copies)
        elif kind == "free":
            released = list(reversed(tables.pop(seq)))
            free.extend(released)
            del lengths[seq]
            log.append(released)
        else:
            table = tables[seq]
            log.append(torch.stack([pool[table[p // block_size], p % block_size] for p in range(lengths[seq])]))
    return {"log": log, "block_tables": tables, "free_blocks": list(free), "pool": pool}
