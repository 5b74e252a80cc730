# expect: wrong_answer
# why: walks the block table from its first block when freeing; the tail goes first, so that a
#      sequence's shared prefix blocks are the last of its blocks to be reused
from collections import deque

import torch


def paged_kv_cache(num_blocks: int, block_size: int, dim: int, ops: list) -> dict:
    pool = torch.zeros(num_blocks, block_size, dim)
    free = deque(range(num_blocks))  # allocate from the front, return to the back
    refs = {}  # block -> how many sequences' tables hold it
    tables, lengths = {}, {}
    log = []
    for op in ops:
        kind, seq = op[0], op[1]
        if kind == "append":
            rows = op[2]
            table, length = tables.get(seq, []), lengths.get(seq, 0)
            used = length % block_size  # rows taken in the last block; 0: full, or no block yet
            copy = used > 0 and refs[table[-1]] > 1  # writing into a shared block: copy it first
            room = block_size - used if used else 0
            needed = int(copy) + -(-max(0, len(rows) - room) // block_size)
            if needed > len(free):
                log.append(None)  # rejected whole: nothing is allocated or written
                continue
            new = [free.popleft() for _ in range(needed)]
            if copy:
                pool[new[0]] = pool[table[-1]]  # the whole block, as a block copy does
                refs[table[-1]] -= 1
                table[-1] = new[0]
                refs[new[0]] = 1
            for block in new[int(copy):]:
                table.append(block)
                refs[block] = 1
            for i, row in enumerate(rows):
                position = length + i
                pool[table[position // block_size], position % block_size] = row
            tables[seq], lengths[seq] = table, length + len(rows)
            log.append(new)
        elif kind == "fork":
            child = op[2]
            tables[child], lengths[child] = list(tables[seq]), lengths[seq]
            for block in tables[child]:
                refs[block] += 1
            log.append([])
        elif kind == "free":
            released = []
            for block in tables.pop(seq):
                refs[block] -= 1
                if refs[block] == 0:
                    del refs[block]
                    free.append(block)
                    released.append(block)
            del lengths[seq]
            log.append(released)
        else:  # "gather": the sequence's rows, read through its block table
            table = tables[seq]
            log.append(torch.stack([pool[table[p // block_size], p % block_size] for p in range(lengths[seq])]))
    return {"log": log, "block_tables": tables, "free_blocks": list(free), "pool": pool}
