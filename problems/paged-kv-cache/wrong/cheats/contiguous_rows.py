# expect: wrong_answer
# why: the shortcut of keeping each sequence's rows contiguous (a list per sequence) and running the
#      block bookkeeping on the side, writing the pool only at the end from the live sequences. It skips
#      what paging is: every row written once, into the block its table names. The pool then lacks the
#      rows of freed blocks (still there until reused) and the whole-block copies of copy on write
from collections import deque

import torch


def paged_kv_cache(num_blocks, block_size, dim, ops):
    free = deque(range(num_blocks))
    refs, tables, rows_of = {}, {}, {}
    log = []
    for op in ops:
        kind, seq = op[0], op[1]
        if kind == "append":
            rows = op[2]
            table, stored = tables.get(seq, []), rows_of.get(seq, [])
            used = len(stored) % block_size
            copy = used > 0 and refs[table[-1]] > 1
            needed = int(copy) + -(-max(0, len(rows) - (block_size - used if used else 0)) // block_size)
            if needed > len(free):
                log.append(None)
                continue
            new = [free.popleft() for _ in range(needed)]
            if copy:
                refs[table[-1]] -= 1
                table[-1] = new[0]
            for block in new:
                refs[block] = 1
            table += new[int(copy):]
            tables[seq], rows_of[seq] = table, stored + list(rows)
            log.append(new)
        elif kind == "fork":
            tables[op[2]], rows_of[op[2]] = list(tables[seq]), list(rows_of[seq])
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
            del rows_of[seq]
            log.append(released)
        else:
            log.append(torch.stack(rows_of[seq]))
    pool = torch.zeros(num_blocks, block_size, dim)
    for seq, table in tables.items():
        for p, row in enumerate(rows_of[seq]):
            pool[table[p // block_size], p % block_size] = row
    return {"log": log, "block_tables": tables, "free_blocks": list(free), "pool": pool}
