#!/usr/bin/env bash
# Training samples/s on real sequence lengths: shmtrain padded to --seq, padded to each batch's
# longest row and packed (its default), beside PyTorch padded to --seq (run_glue's default) and
# dynamically (DataCollatorWithPadding), measured in the same run on the same cores, 1 process x
# all cores; then the ratios issue #20 sets goals for.
#
#   bench/padding_vs_pytorch.sh PATH/TO/torch_bert.py [--preset base] [--seq 128] [--batch 32]
#       [--lengths FILE] [--steps 3] [--bf16] [--workers 2]
#
# The headline runs:
#   ... torch_bert.py --lengths PATH/mrpc_train_lengths.txt                    (BERT-base, MRPC)
#   ... torch_bert.py --lengths PATH/mrpc_train_lengths.txt --bf16
#   ... torch_bert.py --preset large --seq 384 --batch 12 --lengths PATH/squad_dev_window_lengths.txt [--bf16]
# torch_bert.py is the peer script of the project's shared reference folder (plain PyTorch BERT
# with Hugging Face's semantics; step k trains rows k*batch.. of the lengths file, as ours);
# it needs Debian's python3-torch (/usr/bin/python3). With --workers P, shmtrain's P workers x
# cores/P are measured too, and their scaling efficiency against one worker on cores/P.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench/padding_vs_pytorch.sh PATH/TO/torch_bert.py [--preset base|large|mini] [--seq N] [--batch N] [--lengths FILE] [--steps N] [--bf16] [--workers P]"
torch_bert=${1:?$usage}
shift
preset=base seq=128 batch=32 lengths="" steps=3 bf16=0 workers=1
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset=$2; shift 2 ;;
    --seq) seq=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --lengths) lengths=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --bf16) bf16=1; shift ;;
    --workers) workers=$2; shift 2 ;;
    *) echo "unknown argument $1; $usage" >&2; exit 2 ;;
  esac
done
[ -n "$lengths" ] || { echo "--lengths FILE is required; $usage" >&2; exit 2; }
python=/usr/bin/python3
[ -x build/shmtrain ] || tools/build.sh --target shmtrain >/dev/null
cores=$(nproc)
ours_preset=$preset
[ "$preset" = mini ] && ours_preset=small
precision_flag=""
[ $bf16 = 1 ] && precision_flag="--bf16"
# The OpenBLAS kernels PyTorch gets: shmtrain's choice for this CPU, unless the caller set one.
core=${OPENBLAS_CORETYPE:-$(build/shmtrain info 2>/dev/null | sed -n 's/.*OpenBLAS core \([A-Za-z]*\).*/\1/p' | head -1)}

configs=1xall
[ "$workers" -gt 1 ] && configs=1xall,Pxpart,1xpart
ours_json=$(mktemp)
trap 'rm -f "$ours_json"' EXIT
build/shmtrain bench train --preset "$ours_preset" --seq "$seq" --batch "$batch" --lengths "$lengths" \
  --steps "$steps" --warmup 1 --nproc_per_node "$workers" --configs "$configs" $precision_flag --json >"$ours_json"

theirs() {  # padding -> samples/s, 1 process x all cores; "nan" (and why, on stderr) when it fails
  local out status=0
  out=$(OMP_NUM_THREADS=$cores OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=$cores OPENBLAS_CORETYPE=$core \
    $python "$torch_bert" --bench-one --preset "$preset" --nproc 1 --threads "$cores" --batch "$batch" \
    --seq "$seq" --steps "$steps" --warmup 1 --lengths "$lengths" --padding "$1" $precision_flag 2>/dev/null) ||
    status=$?
  if [ $status -ne 0 ] || ! grep -q '^RESULT ' <<<"$out"; then
    local why="exit status $status"
    [ $status -eq 137 ] && why="killed (status 137: out of memory, most likely; see dmesg)"
    echo "PyTorch, pad $1: no result, $why" >&2
    echo nan
    return
  fi
  sed -n 's/^RESULT //p' <<<"$out" | $python -c 'import json, sys; print(json.loads(sys.stdin.read())["samples_per_s"])'
}
torch_max=$(theirs max_length)
torch_longest=$(theirs longest)

$python - "$ours_json" "$torch_max" "$torch_longest" "$preset" "$seq" "$batch" "$lengths" "$steps" "$bf16" \
  "$cores" "$core" <<'EOF'
import json, sys
path, torch_max, torch_longest, preset, seq, batch, lengths, steps, bf16, cores, core = sys.argv[1:]
rows = [json.loads(l) for l in open(path) if l.strip()]
rows = [r for r in rows if r.get("kind") == "row"]
assert rows and all(r["verified"] for r in rows), "a configuration failed its verification"
ours = {(r["config"], r["padding"]): r["samples_per_s"] for r in rows}
torch_max, torch_longest = float(torch_max), float(torch_longest)
precision = "bf16" if bf16 == "1" else "fp32"
print(f"# {preset}, seq {seq}, global batch {batch}, lengths {lengths}, {precision}, {steps} timed steps after 1 "
      f"warm-up, {cores} cores; PyTorch 1 process x {cores} threads, OPENBLAS_CORETYPE={core}")
print(f"{'run':44} {'samples/s':>10}")
for (config, padding), rate in ours.items():
    print(f"{'shmtrain ' + config + ', pad ' + padding:44} {rate:10.2f}")
print(f"{'PyTorch 1 process, pad max_length':44} {torch_max:10.2f}")
print(f"{'PyTorch 1 process, pad longest':44} {torch_longest:10.2f}")
packed = ours[("1xall", "none")]
goals = {("base", "fp32"): (2.2, 3.5, 2.3), ("base", "bf16"): (None, 4.5, None),
         ("large", "fp32"): (None, 1.5, None), ("large", "bf16"): (None, 2.0, None)}
g_self, g_torch_max, g_torch_longest = goals.get((preset, precision), (None, None, None))
def line(name, value, goal):
    if value != value:  # nan: the peer gave no result
        print(f"{name:60}    n/a  (no PyTorch result)")
        return
    verdict = "" if goal is None else f"  (goal >= {goal:.1f}x: {'met' if value >= goal else 'missed'})"
    print(f"{name:60} {value:6.2f}x{verdict}")
line("shmtrain packed / shmtrain padded to max_length", packed / ours[("1xall", "max_length")], g_self)
line("shmtrain packed / shmtrain padded to longest", packed / ours[("1xall", "longest")], None)
line("shmtrain packed / PyTorch padded to max_length", packed / torch_max, g_torch_max)
line("shmtrain packed / PyTorch padded to longest", packed / torch_longest, g_torch_longest)
if ("Pxpart", "none") in ours and ("1xpart", "none") in ours:
    workers = int(next(r["workers"] for r in rows if r["config"] == "Pxpart"))
    eff = ours[("Pxpart", "none")] / (workers * ours[("1xpart", "none")])
    print(f"{'packed scaling efficiency, P workers / (P x 1 worker on cores/P)':60} {100 * eff:5.1f}%  (goal >= 95%)")
EOF
