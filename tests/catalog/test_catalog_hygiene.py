"""The catalogue's hygiene, as `kata check-problems`, `kata list` and `kata show` enforce and show it:
one tag vocabulary, statements that say the same code in both languages, progressions in course
order, second references that agree with the first, and Chinese rendered without stray spaces."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from infrakata.core.catalog.statement import rendered

KATA = Path(sys.executable).with_name("kata")
REPO = Path(__file__).resolve().parents[2]
# The katas whose answer is a closed form: each has a simulation.py that check-problems holds against it.
FORMULA_KATAS = {
    "activation-checkpointing-sqrt-memory", "adam-optimizer-memory-bytes", "arithmetic-intensity",
    "compute-optimal-budget", "fsdp-sharded-memory", "inference-memory-budget", "inference-roofline",
    "kv-cache-memory", "mixed-precision-training-memory", "model-flops-utilization", "parallel-plan-memory",
    "pipeline-bubble", "ring-vs-tree-all-reduce", "training-compute-budget", "training-flops-per-token",
    "transformer-activation-memory", "zero-memory-ledger",
}


@pytest.fixture
def kata(tmp_path: Path):
    def run(*args: str) -> tuple[int, str]:
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "user-data"), "COLUMNS": "200"}
        done = subprocess.run([str(KATA), *args], capture_output=True, text=True, cwd=tmp_path, env=env,
                              timeout=240, check=False)
        return done.returncode, done.stdout + done.stderr

    return run


def copy_problem(tmp_path: Path, slug: str) -> Path:
    folder = tmp_path / "problems" / slug
    shutil.copytree(REPO / "problems" / slug, folder)
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_tag_memory_finds_every_memory_kata_and_case_does_not_matter(kata):
    code, out = kata("list", "--json")
    listed = json.loads(out)
    memory_area = {p["slug"] for p in listed if p["category"] == "Memory"}
    assert len(memory_area) == 11
    for spelling in ("memory", "Memory"):
        code, out = kata("list", "--json", "--tag", spelling)
        assert code == 0 and {p["slug"] for p in json.loads(out)} >= memory_area
    assert all(tag == tag.lower() for p in listed for tag in p["tags"])


def test_check_problems_refuses_a_tag_outside_the_vocabulary_with_the_file_and_line(kata, tmp_path):
    folder = copy_problem(tmp_path, "adam-optimizer-memory-bytes")
    edit(folder / "problem.toml", 'tags = ["memory", "optimizer state", "adam"]',
         'tags = ["Memory", "optimizer state",\n        "brand new"]')
    code, out = kata("check-problems", str(folder))
    assert code == 1
    toml = re.escape(str(folder / "problem.toml"))
    assert re.search(rf"{toml}:9: tag 'Memory' is not in the tag vocabulary \(.*tags.toml\); write 'memory'", out)
    assert re.search(rf"{toml}:10: tag 'brand new' is not in the tag vocabulary .*; use one of its tags, or add "
                     r"'brand new' to it", out)
    # A tags.toml beside one's own problems extends the vocabulary.
    (tmp_path / "problems" / "tags.toml").write_text('[tags]\n"brand new" = "a tag of my own"\n"memory" = "x"\n')
    edit(folder / "problem.toml", '["Memory"', '["memory"')
    code, out = kata("check-problems", str(folder))
    assert code == 0, out


def test_check_problems_names_what_one_language_says_in_code_and_the_other_does_not(kata, tmp_path):
    folder = copy_problem(tmp_path, "absmax-quantization")
    readme = folder / "README.md"
    chinese = readme.read_text(encoding="utf-8").split("## 中文")[1]
    signature = re.search(r"```python\n(def absmax_quantize.*?)\n```", chinese, re.S).group(0)
    edit(readme, "## 中文" + chinese, "## 中文" + chinese.replace(signature, "").replace(
        "| `mse` | `x.dtype` | `[]`（0 维） |\n", ""))
    edit(readme, "`2 <= bits <= 16`", "`2 <= bits <= 8`")
    code, out = kata("check-problems", str(folder))
    assert code == 1
    where = re.escape(str(readme))
    assert re.search(rf"{where}:\d+: the English section's signature is not in the 中文 section: "
                     r"`def absmax_quantize\(x: torch.Tensor, bits: int\)", out), out
    assert re.search(rf"{where}:\d+: the English section's table is not in the 中文 section: `4 rows x 3 columns", out)
    assert re.search(rf"{where}:\d+: the 中文 section's table is not in the English section: `3 rows x 3 columns", out)
    assert re.search(rf"{where}:\d+: the English section's constraint is not in the 中文 section: `2 <= bits <= 8`",
                     out), out


def test_a_progression_is_checked_against_course_order_and_both_statements(kata, tmp_path):
    folder = copy_problem(tmp_path, "zero-memory-ledger")
    toml = folder / "problem.toml"
    edit(toml, 'builds_on = ["mixed-precision-training-memory"]',
         'builds_on = ["mixed-precision-training-memory", "fsdp-sharded-memory", "no-such-kata"]')
    edit(folder / "README.md", "本题承接 `mixed-precision-training-memory`", "本题承接混合精度一题")
    code, out = kata("check-problems", str(folder))
    assert code == 1
    where = re.escape(f"{toml}:11")
    assert re.search(rf"{where}: builds_on names 'no-such-kata', which is not in the catalogue", out)
    assert re.search(rf"{where}: builds on 'fsdp-sharded-memory', which comes later in course order", out)
    assert "the 中文 section does not say that this kata builds on `mixed-precision-training-memory`" in out
    assert "the English section does not say that this kata builds on `mixed" not in out


def test_a_simulation_that_disagrees_with_the_reference_fails_the_problem(kata, tmp_path):
    folder = copy_problem(tmp_path, "activation-checkpointing-sqrt-memory")
    # The formula the kata used to print: it counts a checkpoint already freed when K does not divide L.
    (folder / "simulation.py").write_text(
        "def checkpointed_activation_memory_mb(num_layers, checkpoint_interval, layer_act_mb, boundary_input_mb):\n"
        "    segments = -(-num_layers // checkpoint_interval)\n"
        "    return float(segments * boundary_input_mb + min(checkpoint_interval, num_layers) * layer_act_mb)\n")
    code, out = kata("check-problems", str(folder))
    assert code == 1
    assert re.search(r"simulation.py disagrees with the reference: wrong_answer \(\d+/\d+; out: expected 415.0, "
                     r"got 420.0", out), out


def test_every_formula_kata_has_a_simulation_that_check_problems_runs():
    have = {p.parent.name for p in (REPO / "problems").glob("*/simulation.py")}
    assert have == FORMULA_KATAS


def test_kata_show_joins_wrapped_chinese_lines_without_a_space(kata):
    code, out = kata("show", "activation-checkpointing-sqrt-memory")
    assert code == 0
    flat = out.replace("\n", "")
    # README.md wraps "…总和的**峰值**，" / "单位 MB…" mid-sentence; Markdown alone would put a space there.
    assert "返回整个训练步中二者总和的峰值，单位 MB" in flat


def test_rendering_joins_only_chinese_soft_breaks_and_leaves_code_alone():
    text = ("## 中文\n\n第一行的结尾\n接着第二行。\nEnglish\nwraps here.\n- 列表项\n  续行\n\n```python\n"
            "# 代码里的\n# 换行保留\n```\n### 标题\n正文")
    assert rendered(text) == ("## 中文\n\n第一行的结尾接着第二行。\nEnglish\nwraps here.\n- 列表项续行\n\n```python\n"
                              "# 代码里的\n# 换行保留\n```\n### 标题\n正文")


def _with_fresh_cases():
    from infrakata.core.catalog.kinds import kind_of
    from infrakata.core.catalog.loading import Catalog

    return [p for p in sorted(Catalog.load().problems.values(), key=lambda p: p.slug)
            if kind_of(p).has_fresh_cases(p)]


@pytest.mark.parametrize("problem", _with_fresh_cases(), ids=lambda p: p.slug)
def test_every_seed_of_a_fresh_case_makes_one(problem):
    """A grading draws its fresh case's seed at random, so no seed may fail to make a case: one generator
    refused the seeds whose logits tie, and graded a correct solution could_not_grade once in 700."""
    import random

    generate = problem.module("cases").fresh
    for seed in random.Random(problem.slug).sample(range(2 ** 62), 100):
        made = generate(seed)
        assert "args" in made, (problem.slug, seed)


def test_a_statement_that_fixes_the_return_type_needs_exact_types(kata, tmp_path: Path):
    """gradient-accumulation returns "a Python float": without exact_types, a loop that sums `loss` returned a
    0-dim tensor holding every batch's autograd graph, and was accepted. check-problems names the line."""
    folder = tmp_path / "gradient-accumulation"
    shutil.copytree(REPO / "problems" / "gradient-accumulation", folder)
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("exact_types = true", ""), encoding="utf-8")
    code, output = kata("check-problems", str(folder))
    assert code == 1, output
    line = next(n for n, text in enumerate((folder / "README.md").read_text(encoding="utf-8").splitlines(), 1)
                if "Python `float`" in text)
    assert f"README.md:{line}: the statement fixes the return type" in output
    assert "set `exact_types = true` under [grading]" in output
