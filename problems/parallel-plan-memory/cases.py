import importlib.util
import random
from pathlib import Path


def _peak(model, plan):
    """The reference's peak bytes, to put hbm_bytes on either side of it (or exactly on it)."""
    spec = importlib.util.spec_from_file_location("_parallel_plan_memory_reference", Path(__file__).with_name("reference.py"))
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    return reference.plan_memory(model, plan, 0)["peak_bytes"]


def fresh(seed):
    """A random model and 3-D plan, new at every grading (never shown): layers that pp may not divide, a
    vocabulary that tp may not divide, odd dp (padded shards), every ZeRO stage, fewer micro-batches than
    stages at times, tied embeddings on one or several stages; hbm_bytes exactly the peak, one byte under it,
    or anywhere around it."""
    rng = random.Random(seed)
    tp = rng.choice([1, 2, 4, 8, rng.randint(1, 8)])
    layers = rng.choice([1, rng.randint(1, 12), rng.randint(1, 96)])
    hidden = tp * rng.choice([rng.randint(1, 64), 64 * rng.randint(1, 128)])
    ffn = tp * rng.choice([rng.randint(1, 256), (4 * hidden) // tp, 64 * rng.randint(1, 448)])
    model = {"layers": layers, "hidden": hidden, "ffn": ffn,
             "vocab": rng.choice([rng.randint(1, 1000), 32000, 50257, 128256, rng.randint(1000, 256000)]),
             "tied_embeddings": rng.random() < 0.3, "activation_bytes": tp * rng.randint(1, 1 << 28)}
    plan = {"dp": rng.choice([1, 2, 3, 7, 8, rng.randint(1, 64)]), "tp": tp,
            "pp": rng.choice([1, min(layers, 2), min(layers, rng.randint(1, 16)), rng.randint(1, layers)]),
            "zero": rng.randint(0, 3), "micro_batches": rng.choice([1, rng.randint(1, 8), rng.randint(1, 128)])}
    peak = _peak(model, plan)
    hbm_bytes = rng.choice([peak, peak - 1, peak + 1, rng.randint(peak // 2, 2 * peak)])
    return {"args": [model, plan, hbm_bytes]}
