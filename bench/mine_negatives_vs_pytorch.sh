#!/usr/bin/env bash
# mine-negatives measured in one run, on the same cores: its two parts against their limits.
#
#   bench/mine_negatives_vs_pytorch.sh [--passages 100000] [--queries 10000] [--sample 2000] [--full]
#       Inputs (tools/torch_embedding_bench.py --write-inputs): real English text, the docstring
#       paragraphs of this machine's Python packages, a BERT-base embedding model with random
#       weights and a vocabulary of the text's 30,517 most frequent words.
#       1. Embedding: `shmtrain encode` (packed rows, its defaults) against PyTorch eager as
#          SentenceTransformer.encode runs it (batches of 32 sorted by length, padded to their
#          longest), on the first --sample passages; the same real tokens on both sides (checked).
#          Goal: >= 3x.
#       2. Search: `shmtrain bench search` at --queries x --passages x 768 (top 13): the exact
#          top-k search against the machine's GEMM rate measured in the same run. Goal: >= 0.7.
#       --full: then the whole `shmtrain mine-negatives` over the passages and --queries queries
#          (its embedding and search times as it prints them).
# The PyTorch side needs Debian's python3-torch (/usr/bin/python3) and gets shmtrain's OpenBLAS
# core type for this CPU (unless OPENBLAS_CORETYPE is set) and OMP_WAIT_POLICY=PASSIVE.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench/mine_negatives_vs_pytorch.sh [--passages N] [--queries N] [--sample N] [--full]"
passages=100000 queries=10000 sample=2000 full=""
while [ $# -gt 0 ]; do
  case "$1" in
    --passages) passages=$2; shift 2 ;;
    --queries) queries=$2; shift 2 ;;
    --sample) sample=$2; shift 2 ;;
    --full) full=1; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "unknown argument $1; $usage" >&2; exit 2 ;;
  esac
done
python=/usr/bin/python3
[ -x build/shmtrain ] || tools/build.sh --target shmtrain >/dev/null
cores=$(nproc)
core=${OPENBLAS_CORETYPE:-$(build/shmtrain info 2>/dev/null | sed -n 's/.*OpenBLAS core \([A-Za-z]*\).*/\1/p' | head -1)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$python tools/torch_embedding_bench.py --write-inputs "$work" --passages "$passages" --queries "$queries"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $cores cores, OPENBLAS_CORETYPE=${core:-(auto)}"

head -n "$sample" "$work/passages.txt" > "$work/sample.txt"
ours=$(build/shmtrain encode --model_name_or_path "$work/model" --input "$work/sample.txt" --output "$work/sample.npy" |
  sed -n 's/^embedded \([0-9]*\) texts (\([0-9]*\) tokens) in \([0-9.]*\) s.*/\1 \2 \3/p')
theirs=$(env OMP_NUM_THREADS="$cores" OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS="$cores" \
  ${core:+OPENBLAS_CORETYPE=$core} $python tools/torch_embedding_bench.py --encode "$work" --texts "$sample" \
  --threads "$cores" | sed -n 's/^RESULT //p')
$python - "$ours" "$theirs" <<'PY'
import json, sys
texts, tokens, seconds = sys.argv[1].split()
texts, tokens, seconds = int(texts), int(tokens), float(seconds)
theirs = json.loads(sys.argv[2])
print(f"{'embedding ' + str(texts) + ' passages, BERT-base':52} {'texts/s':>9} {'tokens':>9} {'seconds':>8}")
print(f"{'shmtrain encode (packed rows)':52} {texts / seconds:9.1f} {tokens:9d} {seconds:8.2f}")
print(f"{'PyTorch eager, SentenceTransformer.encode':52} {theirs['texts_per_s']:9.1f} {theirs['tokens']:9d} "
      f"{theirs['seconds']:8.2f}")
if abs(tokens - theirs["tokens"]) > 0.005 * theirs["tokens"]:
    sys.exit(f"the two sides embedded different tokens ({tokens} vs {theirs['tokens']})")
ratio = (texts / seconds) / theirs["texts_per_s"]
print(f"shmtrain / PyTorch: {ratio:.2f}x (goal >= 3x: {'met' if ratio >= 3 else 'missed'}); "
      f"{tokens / texts:.1f} real tokens a passage")
PY

build/shmtrain bench search --queries "$queries" --corpus "$passages" --dim 768 --k 13

if [ -n "$full" ]; then
  build/shmtrain mine-negatives --model_name_or_path "$work/model" --dataset "$work/pairs.jsonl" \
    --corpus "$work/passages.txt" --output "$work/mined.jsonl" --num_negatives 3
fi
