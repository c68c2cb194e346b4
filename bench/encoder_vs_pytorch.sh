#!/usr/bin/env bash
# Training samples/s of the newer encoders: shmtrain (1 process x all cores) beside PyTorch eager
# (a port of Hugging Face's modeling code under tools/: torch_modernbert.py for ModernBERT-base,
# torch_deberta.py for DeBERTa-v3-base; 1 process x all threads), measured in the same run on the
# same cores; then the ratio the goals are stated in:
#   ModernBERT (a) long sequences: at 2,048 tokens, batch 1, shmtrain >= 2.5x PyTorch eager's
#       tokens/s; (b) real lengths: on ../shared/reference/mrpc_train_lengths.txt, batch 32, seq
#       128, shmtrain (packed, its default) >= 2.3x PyTorch padded to each batch's longest row
#       (what HF's DataCollatorWithPadding does).
#   DeBERTa-v3-base: MRPC's lengths as (b), fp32 >= 2.3x; --bf16 (torch.autocast bfloat16 on
#       PyTorch's side) >= 2.5x.
#
#   bench/encoder_vs_pytorch.sh [--model modernbert|deberta] [--seq 2048] [--batch 1] [--lengths FILE]
#                               [--steps 3] [--bf16]
#
# The headline runs:
#   bench/encoder_vs_pytorch.sh                                             (ModernBERT, goal a)
#   bench/encoder_vs_pytorch.sh --seq 128 --batch 32 --lengths ../shared/reference/mrpc_train_lengths.txt
#                                                                           (ModernBERT, goal b)
#   bench/encoder_vs_pytorch.sh --model deberta --seq 128 --batch 32 \
#       --lengths ../shared/reference/mrpc_train_lengths.txt [--bf16]       (DeBERTa)
# Without --lengths every row has --seq real tokens and both sides run that one shape. With
# --lengths FILE (one real length per line, capped at --seq; step k trains rows k*batch.. on both
# sides) shmtrain runs padded, longest and packed side by side and its packed row is compared with
# PyTorch --padding longest. Both sides see the same real tokens per step, so the samples/s ratio
# is the tokens/s ratio. The PyTorch side needs Debian's python3-torch (/usr/bin/python3); it gets
# shmtrain's OpenBLAS core type for this CPU (unless OPENBLAS_CORETYPE is set) and
# OMP_WAIT_POLICY=PASSIVE. PyTorch eager at 2,048 tokens takes minutes a step on a few cores.
# --bf16 needs a CPU with AVX512-BF16 or AMX (shmtrain refuses it elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench/encoder_vs_pytorch.sh [--model modernbert|deberta] [--seq N] [--batch N] [--lengths FILE] [--steps N] [--bf16]"
model=modernbert seq=2048 batch=1 lengths="" steps=3 bf16=""
while [ $# -gt 0 ]; do
  case "$1" in
    --model) model=$2; shift 2 ;;
    --bf16) bf16=--bf16; shift ;;
    --seq) seq=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --lengths) lengths=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "unknown argument $1; $usage" >&2; exit 2 ;;
  esac
done
[ -z "$lengths" ] || [ -r "$lengths" ] || { echo "cannot read --lengths $lengths" >&2; exit 2; }
case "$model" in
  modernbert) preset=modernbert-base peer=tools/torch_modernbert.py name=ModernBERT-base ;;
  deberta) preset=deberta-v3-base peer=tools/torch_deberta.py name=DeBERTa-v3-base ;;
  *) echo "unknown --model $model; $usage" >&2; exit 2 ;;
esac
[ -z "$bf16" ] || [ "$model" = deberta ] || { echo "--bf16 is measured for --model deberta" >&2; exit 2; }
python=/usr/bin/python3
[ -x build/shmtrain ] || tools/build.sh --target shmtrain >/dev/null
cores=$(nproc)
# The OpenBLAS kernels PyTorch gets: shmtrain's choice for this CPU, unless the caller set one.
core=${OPENBLAS_CORETYPE:-$(build/shmtrain info 2>/dev/null | sed -n 's/.*OpenBLAS core \([A-Za-z]*\).*/\1/p' | head -1)}

lengths_flag=()
[ -n "$lengths" ] && lengths_flag=(--lengths "$lengths")
ours_json=$(mktemp)
trap 'rm -f "$ours_json"' EXIT
build/shmtrain bench train --preset "$preset" $bf16 --seq "$seq" --batch "$batch" "${lengths_flag[@]}" \
  --steps "$steps" --warmup 1 --nproc_per_node 1 --configs 1xall --json >"$ours_json"

# PyTorch: padded to --seq without --lengths (every row is full anyway), to each batch's longest row with it.
padding=max_length
[ -n "$lengths" ] && padding=longest
theirs=$(mktemp)
trap 'rm -f "$ours_json" "$theirs"' EXIT
status=0
env OMP_NUM_THREADS="$cores" OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS="$cores" ${core:+OPENBLAS_CORETYPE=$core} \
  $python "$peer" --bench-one --preset base --nproc 1 --threads "$cores" --batch "$batch" \
  --seq "$seq" --steps "$steps" --warmup 1 "${lengths_flag[@]}" --padding "$padding" $bf16 >"$theirs" || status=$?
if [ $status -ne 0 ] || ! grep -q '^RESULT ' "$theirs"; then
  why="exit status $status"
  [ $status -eq 137 ] && why="killed (status 137: out of memory, most likely; see dmesg)"
  echo "PyTorch, pad $padding: no result, $why" >&2
  : >"$theirs"
fi

$python - "$ours_json" "$theirs" "$seq" "$batch" "$lengths" "$steps" "$cores" "${core:-(auto)}" "$name" "$bf16" <<'EOF'
import json, os, sys
ours_path, theirs_path, seq, batch, lengths, steps, cores, core, name, bf16 = sys.argv[1:]
precision = "bf16" if bf16 else "fp32"
seq, batch = int(seq), int(batch)
rows = [json.loads(l) for l in open(ours_path) if l.strip().startswith("{")]
rows = [r for r in rows if r.get("kind") == "row" and r.get("config", "1xall") == "1xall"]
assert rows and all(r["verified"] for r in rows), "a shmtrain configuration failed its verification"
if lengths:
    packed = [r for r in rows if r["padding"] == "none"]
    assert len(packed) == 1, f"expected one packed (padding none) row, got {[r['padding'] for r in rows]}"
    ours, ours_name = packed[0], "shmtrain 1xall, packed"
else:
    assert len(rows) == 1, f"expected one row without --lengths, got {len(rows)}"
    ours, ours_name = rows[0], f"shmtrain 1xall, pad {rows[0]['padding']}"
res = [json.loads(l[7:]) for l in open(theirs_path) if l.startswith("RESULT ")]
theirs = res[-1] if res else None
torch_name = "PyTorch eager, pad " + ("longest" if lengths else "max_length") + (", autocast bf16" if bf16 else "")

print(f"# {name}, seq {seq}, batch {batch}, lengths {lengths or 'all full'}, {precision}, {steps} timed steps "
      f"after 1 warm-up, {cores} cores; shmtrain 1 worker; PyTorch 1 process x {cores} threads, "
      f"OPENBLAS_CORETYPE={core}")
print(f"{'run':36} {'samples/s':>10} {'tokens/s':>10} {'peak RSS':>9}")
# shmtrain's rows carry no token count; both sides train the same rows, so its real tokens per sample are
# PyTorch's (every row is --seq tokens without --lengths).
per_sample = seq if not lengths else (theirs["tokens_per_s"] / theirs["samples_per_s"] if theirs else float("nan"))
ours_tokens = ours.get("tokens_per_s", ours["samples_per_s"] * per_sample)
print(f"{ours_name:36} {ours['samples_per_s']:10.3f} {ours_tokens:10.1f}")
for r in rows:  # every shmtrain row: useful GFLOP/s (the real tokens' FLOPs, model/train_flops) and the step's parts
    print(f"  shmtrain pad {r['padding']:8} {r['samples_per_s']:8.3f} samples/s  {r['gflops']:6.1f} GFLOP/s useful  "
          f"step {r['step_s']:.2f} s (forward {r['forward_s']:.2f}, backward {r['backward_s']:.2f}, "
          f"optimizer {r['optimizer_s']:.2f})")
if theirs:
    print(f"{torch_name:36} {theirs['samples_per_s']:10.3f} {theirs['tokens_per_s']:10.1f} "
          f"{theirs['peak_rss_gib']:7.2f}Gi")
else:
    print(f"{torch_name:36} {'n/a':>10}  (no PyTorch result)")
goal = None
mrpc = lengths and os.path.basename(lengths) == "mrpc_train_lengths.txt" and seq == 128 and batch == 32
if name.startswith("ModernBERT") and not lengths and seq == 2048 and batch == 1:
    goal = 2.5
elif mrpc:
    goal = 2.5 if bf16 else 2.3
label = "shmtrain / PyTorch (same real tokens: the tokens/s ratio)"
if theirs:
    ratio = ours["samples_per_s"] / theirs["samples_per_s"]
    verdict = "" if goal is None else f"  (goal >= {goal:.1f}x: {'met' if ratio >= goal else 'missed'})"
    print(f"{label:60} {ratio:6.2f}x{verdict}")
else:
    print(f"{label:60}    n/a  (no PyTorch result)")
EOF
