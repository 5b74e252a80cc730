#!/usr/bin/env bash
# The prepared check for a CUDA machine (e.g. an H200 lent for a few minutes): the GPU tests of our
# Triton kernels and of the benchmark's gate, then `kata bench --json` for every kernel problem,
# each result checked for plausibility (correct, figures present, at most the copy roofline for the
# GB/s problems, faster than the eager reference, at or above the problem's performance gate).
#
# Installs the product as a user does (not editable) into a virtual environment of its own over the machine's
# python3 (whose PyTorch with CUDA, Triton, pytest and pytest-timeout it sees: --system-site-packages), with
# pip's wheels from PyPI, or from WHEELS=FOLDER offline; then runs every `kata` command, and pytest, from $OUT,
# outside the tree (there the checkout's own infrakata/ folder would shadow the installed package). It grades
# kernels/adamw8bit.py right and a wrong copy on CUDA, from a cold Triton cache, before any figure. Writes
# install.log, doctor.json, run-right.json, run-wrong.json, pytest.log, bench-<slug>.json / .txt / .err and
# summary.txt to $OUT (else /tmp/gpu-check-out).
#
#   bash benchmarks/gpu_check.sh                                  # every kernel problem
#   KATA_PROBLEMS="fused-row-softmax fused-rmsnorm" bash benchmarks/gpu_check.sh
#   PYTHON=/opt/torch/.venv/bin/python3 bash benchmarks/gpu_check.sh
#
# Exit status: 0 all passed, 1 a test or a benchmark failed, 2 no usable CUDA/Triton here.
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-/tmp/gpu-check-out}"
PYTHON="${PYTHON:-python3}"
declare -A KERNEL=(
  [quantized-adamw-8bit]=adamw8bit.py
  [fused-row-softmax]=softmax.py
  [blockwise-absmax-quant]=absmax_quant.py
  [fused-rmsnorm]=rmsnorm.py
  [fused-swiglu]=swiglu.py
  [tiled-matmul]=matmul.py
  [triton-flash-attention-forward]=flash_attention.py
  [triton-fused-cross-entropy]=cross_entropy.py
  [triton-layernorm-backward]=layernorm_backward.py
  [triton-moe-grouped-gemm]=grouped_gemm.py
  [triton-gemm-fused-epilogue]=linear_epilogue.py
  [triton-int8-matmul-scaled]=int8_matmul.py
  [triton-split-k-gemm]=split_k_matmul.py
  [triton-rotary-in-place]=rotary.py
  [triton-paged-attention-decode]=paged_attention.py
  [triton-top-p-sampling]=top_p.py
)
PROBLEMS="${KATA_PROBLEMS:-fused-row-softmax fused-rmsnorm fused-swiglu blockwise-absmax-quant quantized-adamw-8bit tiled-matmul triton-flash-attention-forward triton-fused-cross-entropy triton-layernorm-backward triton-moe-grouped-gemm triton-gemm-fused-epilogue triton-int8-matmul-scaled triton-split-k-gemm triton-rotary-in-place triton-paged-attention-decode triton-top-p-sampling}"
mkdir -p "$OUT"
cd "$REPO" || exit 2

# The product installed as a user installs it (a wheel built from the tree), in a venv of its own.
VENV="$OUT/venv"
"$PYTHON" -m venv --system-site-packages "$VENV" || exit 2
PYTHON="$VENV/bin/python"
export PYTHONUNBUFFERED=1
"$PYTHON" -m pip install -q --no-cache-dir ${WHEELS:+--no-index --find-links "$WHEELS"} "$REPO" >"$OUT/install.log" 2>&1 \
  || { echo "install failed: see $OUT/install.log"; exit 2; }
cd "$OUT" || exit 2  # every command from here runs outside the tree
KATA="$VENV/bin/kata"

say() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.txt"; }

"$PYTHON" - <<'EOF' 2>&1 | tee "$OUT/summary.txt"
import sys, torch, triton
import infrakata.core
print(f"installed: {infrakata.core.__file__}")
print(f"python {sys.version.split()[0]}, torch {torch.__version__}, triton {triton.__version__}")
if not torch.cuda.is_available():
    sys.exit("no CUDA device visible to torch")
print(f"device: {torch.cuda.get_device_name()}")
EOF
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 2

status=0
say "kata doctor (the isolation layers and the CUDA probe)"
"$KATA" doctor --json >"$OUT/doctor.json" 2>>"$OUT/stderr.log" || status=1
say "kata run on CUDA: kernels/adamw8bit.py, then a wrong copy (a cold Triton cache: the first compile)"
export TRITON_CACHE_DIR="$OUT/triton-cache"
cp "$REPO/kernels/adamw8bit.py" "$OUT/right.py"
cp "$REPO/kernels/adamw8bit.py" "$OUT/wrong.py"
printf '\n_orig = quantized_adamw_step\n\ndef quantized_adamw_step(*a, **k):\n    p, m, v, ma, va = _orig(*a, **k)\n    return p, m * 1.001, v, ma, va\n' >>"$OUT/wrong.py"
for which in right wrong; do
  "$KATA" run "$OUT/$which.py" --problem quantized-adamw-8bit --json >"$OUT/run-$which.json" 2>>"$OUT/stderr.log"
  "$PYTHON" - "$OUT/run-$which.json" "$which" <<'EOF' 2>&1 | tee -a "$OUT/summary.txt"
import json, sys
r = json.load(open(sys.argv[1]))
print(f"  {sys.argv[2]}: {r['verdict']} {r['passed']}/{r['total']} on {r['device']}")
expected = "accepted" if sys.argv[2] == "right" else "wrong_answer"
if r["verdict"] != expected or not r["device"].startswith("cuda"):
    sys.exit(f"  FAILED: expected {expected} on CUDA")
EOF
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
unset TRITON_CACHE_DIR

say "GPU tests (the full timed run is kata bench's, below)"
"$PYTHON" -m pytest -q -p no:cacheprovider "$REPO/tests/kernels/test_kernels.py" "$REPO/tests/security/test_cuda_toolchain.py" \
  "$REPO/tests/sandbox/test_gpu_setup.py" 2>&1 | tee "$OUT/pytest.log" || status=1
"$PYTHON" -m pytest -q -p no:cacheprovider "$REPO/tests/bench/test_bench.py" -k "cuda and not figures_are_plausible" 2>&1 \
  | tee -a "$OUT/pytest.log" || status=1

for slug in $PROBLEMS; do
  file="$REPO/kernels/${KERNEL[$slug]:?unknown problem $slug}"
  say "kata bench $file --problem $slug"
  start=$SECONDS
  "$KATA" bench "$file" --problem "$slug" --json >"$OUT/bench-$slug.json" 2>"$OUT/bench-$slug.err" \
    || status=1
  "$PYTHON" - "$OUT/bench-$slug.json" "$((SECONDS - start))" <<'EOF' 2>&1 | tee "$OUT/bench-$slug.txt" | tee -a "$OUT/summary.txt"
import json, sys
path, seconds = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(path))
except ValueError as error:
    sys.exit(f"no JSON from kata bench ({error}); see {path[:-5]}.err")
unit = r["unit"]  # the JSON's *_gbps fields hold the problem's unit: GB/s, or TFLOP/s for a matmul
for s in r["shapes"]:
    if s["kind"] == "timed":
        print(f"  {str(tuple(s['shape'])):<18} {s['ms']:>9.4f} ms {s['gbps']:>9.1f} {unit}   reference {s['reference_ms']:.4f} ms")
print(f"  {r['problem']}: correct={r['correct']} geomean={r['geomean_gbps']} {unit} roofline={r['roofline_gbps']} "
      f"fraction={r['fraction_of_roofline']} speedup={r['speedup_vs_reference']} on {r['device']} ({seconds} s)")
print(f"  performance: {r.get('performance')} (the gate: {r.get('gate')})")
problems = []
memory_bound = unit == "GB/s"  # only those have a roofline: the copy bandwidth measured in the run
if not r["correct"]:
    problems.append(f"rejected: {r['gate_message']}")
elif r["geomean_gbps"] is None or (memory_bound and r["roofline_gbps"] is None):
    problems.append("no figures on a CUDA machine")
else:
    if memory_bound and not 0 < r["fraction_of_roofline"] <= 1.10:
        problems.append(f"fraction of the roofline {r['fraction_of_roofline']} is not in (0, 1.1]")
    if not r["speedup_vs_reference"] > 1:
        problems.append(f"not faster than the eager reference ({r['speedup_vs_reference']}x)")
    if r.get("performance") == "below_gate":  # our kernel must clear the gate the problem sets
        problems.append(f"correct, below the gate ({r['gate']})")
if problems:
    sys.exit("  FAILED: " + "; ".join(problems))
EOF
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done

say "done: exit $status"
exit $status
