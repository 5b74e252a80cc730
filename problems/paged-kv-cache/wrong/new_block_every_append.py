# expect: wrong_answer
# why: starts every append in new blocks, leaving the rest of the last block empty: the internal
#      fragmentation paging exists to avoid (a sequence of one-token decode steps would take a block per
#      token). It remembers where each row went, so it reads its rows back right; its blocks are wrong
from collections import deque

import torch


def paged_kv_cache(num_blocks, block_size, dim, ops):
    pool = torch.zeros(num_blocks, block_size, dim)
    free = deque(range(num_blocks))
    refs, tables, slots, log = {}, {}, {}, []
    for op in ops:
        kind, seq = op[0], op[1]
        if kind == "append":
            rows = op[2]
            needed = -(-len(rows) // block_size)
            if needed > len(free):
                log.append(None)
                continue
            new = [free.popleft() for _ in range(needed)]
            for block in new:
                refs[block] = 1
            places = [(new[i // block_size], i % block_size) for i in range(len(rows))]
            for (block, row_index), row in zip(places, rows):
                pool[block, row_index] = row
            tables[seq] = tables.get(seq, []) + new
            slots[seq] = slots.get(seq, []) + places
            log.append(new)
        elif kind == "fork":
            tables[op[2]], slots[op[2]] = list(tables[seq]), list(slots[seq])
            for block in tables[seq]:
                refs[block] += 1
            log.append([])
        elif kind == "free":
            released = []
            for block in reversed(tables.pop(seq)):
                refs[block] -= 1
                if refs[block] == 0:
                    free.append(block)
                    released.append(block)
            del slots[seq]
            log.append(released)
        else:
            log.append(torch.stack([pool[block, row_index] for block, row_index in slots[seq]]))
    return {"log": log, "block_tables": tables, "free_blocks": list(free), "pool": pool}
