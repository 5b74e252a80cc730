import random

_ALPHABETS = ["ab", "ACGT", "abcdefghijklmnopqrstuvwxyz ", "abcABC", "机器学习深度模型训练推理", "😀😃a🚀b"]


def fresh(seed):
    """Two random strings of up to 200 characters (ASCII, Chinese or emoji), often one an edited copy of the
    other."""
    rng = random.Random(seed)
    alphabet = rng.choice(_ALPHABETS)
    a = "".join(rng.choice(alphabet) for _ in range(rng.choice([0, rng.randint(0, 10), rng.randint(0, 200)])))
    if rng.random() < 0.7:  # an edited copy: inserts, deletions and substitutions
        b = list(a)
        for _ in range(rng.randint(0, max(1, len(a) // 3))):
            at = rng.randint(0, len(b))
            op = rng.choice(["insert", "delete", "substitute"])
            if op == "insert" and len(b) < 200:
                b.insert(at, rng.choice(alphabet))
            elif op == "delete" and at < len(b):
                del b[at]
            elif at < len(b):
                b[at] = rng.choice(alphabet)
        b = "".join(b)
    else:
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
    return {"args": [a, b] if rng.random() < 0.5 else [b, a]}
