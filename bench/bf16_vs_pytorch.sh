#!/usr/bin/env bash
# shmtrain fp32 and bf16 training samples/s beside PyTorch's bf16 autocast (and fp32),
# measured in the same run on the same cores: BERT-base and BERT-mini (L4 H256), seq 128,
# global batch 32, 1 worker x all cores and 2 workers x half the cores.
#
#   bench/bf16_vs_pytorch.sh PATH/TO/torch_bert.py [--presets "base mini"] [--steps 3]
#
# torch_bert.py is the peer script of the project's shared reference folder (plain PyTorch
# BERT with Hugging Face's semantics); it needs Debian's python3-torch (/usr/bin/python3).
# Both sides get OPENBLAS_CORETYPE unset or as the caller sets it; shmtrain picks its own.
set -euo pipefail
cd "$(dirname "$0")/.."
torch_bert=${1:?usage: bench/bf16_vs_pytorch.sh PATH/TO/torch_bert.py [--presets "base mini"] [--steps N]}
shift
presets="base mini"
steps=3
while [ $# -gt 0 ]; do
  case "$1" in
    --presets) presets=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
python=/usr/bin/python3
[ -x build/shmtrain ] || tools/build.sh --target shmtrain >/dev/null
cores=$(nproc)
half=$((cores / 2))
# The OpenBLAS kernels PyTorch gets: shmtrain's choice for this CPU, unless the caller set one.
core=${OPENBLAS_CORETYPE:-$(build/shmtrain info 2>/dev/null | sed -n 's/.*OpenBLAS core \([A-Za-z]*\).*/\1/p' | head -1)}

ours() {  # preset precision -> "samples/s of 1xall" "samples/s of Pxpart"
  local flags=""
  [ "$2" = bf16 ] && flags="--bf16"
  build/shmtrain bench train --preset "$1" --nproc_per_node 2 --configs 1xall,Pxpart --steps "$steps" --warmup 1 \
    $flags --json | $python -c '
import json, sys
rows = {r["config"]: r for r in map(json.loads, sys.stdin) if r.get("kind") == "row"}
assert all(r["verified"] for r in rows.values()), "a configuration failed its verification"
print(rows["1xall"]["samples_per_s"], rows["Pxpart"]["samples_per_s"])'
}

theirs() {  # preset nproc threads bf16(0|1) -> samples/s
  local flags=""
  [ "$4" = 1 ] && flags="--bf16"
  OMP_NUM_THREADS=$3 OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=$3 OPENBLAS_CORETYPE=$core \
    $python "$torch_bert" --bench-one --preset "$1" --nproc "$2" --threads "$3" --batch 32 --seq 128 \
    --steps "$steps" --warmup 1 $flags 2>/dev/null | sed -n 's/^RESULT //p' |
    $python -c 'import json, sys; print(json.loads(sys.stdin.read())["samples_per_s"])'
}

printf '# seq 128, global batch 32, %s timed steps after 1 warm-up, %s cores, PyTorch OPENBLAS_CORETYPE=%s\n' \
  "$steps" "$cores" "$core"
printf '%-6s %-22s %10s %10s %10s %10s %12s %12s\n' preset layout "ours fp32" "ours bf16" "torch fp32" \
  "torch bf16" "bf16/torch" "bf16/fp32"
for preset in $presets; do
  ours_preset=$preset
  [ "$preset" = mini ] && ours_preset=small
  read -r fp32_all fp32_part < <(ours "$ours_preset" fp32)
  read -r bf16_all bf16_part < <(ours "$ours_preset" bf16)
  t_fp32_all=$(theirs "$preset" 1 "$cores" 0)
  t_bf16_all=$(theirs "$preset" 1 "$cores" 1)
  t_fp32_part=$(theirs "$preset" 2 "$half" 0)
  t_bf16_part=$(theirs "$preset" 2 "$half" 1)
  for layout in all part; do
    eval "a=\$fp32_$layout b=\$bf16_$layout c=\$t_fp32_$layout d=\$t_bf16_$layout"
    label="1 x $cores threads"
    [ $layout = part ] && label="2 x $half (DDP for torch)"
    $python -c "
a, b, c, d = $a, $b, $c, $d
print(f'{\"$preset\":6} {\"$label\":22} {a:10.2f} {b:10.2f} {c:10.2f} {d:10.2f} {b / d:11.2f}x {b / a:11.2f}x')"
  done
done
