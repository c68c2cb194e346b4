#!/usr/bin/env bash
# Sentence-embedding training (--task_name sentence-embedding) measured in one run, on the same
# cores, on triplets of the demo's English sentences (tools/torch_sentence_embedding.py
# --write-inputs: anchor and positive a paraphrase pair, the negative another pair's sentence),
# the model BERT-base or ModernBERT-base from random weights with the demo's vocabulary.
#
#   bench/sentence_vs_pytorch.sh [--model bert|modernbert] [--batch 64] [--steps 3] [--warmup 1]
#       MultipleNegativesRankingLoss: shmtrain (1 worker x all cores, packed rows, its defaults)
#       against PyTorch eager (tools/torch_sentence_embedding.py: sentence-transformers' way, each
#       column padded to its longest text and encoded alone; 1 process x all threads). Goal: >= 2.5x.
#   bench/sentence_vs_pytorch.sh --reranker [--model bert|modernbert] [--batch 64] [--steps 3]
#       --task_name reranking: BinaryCrossEntropyLoss on (query, document, label) pairs of the demo's
#       sentences, the model <Family>ForSequenceClassification with one label, against PyTorch eager
#       as CrossEncoderTrainer runs it (each batch's pairs padded to its longest). Goal: >= 2.5x.
#   bench/sentence_vs_pytorch.sh --cached [--model bert] [--batch 32] [--cached_batch 1024]
#                                [--mini_batch_size 32] [--steps 2] [--warmup 1]
#       shmtrain alone: MNRL at --batch against CachedMultipleNegativesRankingLoss at --cached_batch
#       in chunks of --mini_batch_size texts. Goals: the cached run's peak memory within 1.3x of
#       the MNRL run's, and its time per sample within 1.25x.
#
# Both sides take the file's rows in order (shmtrain --shuffle false), so every step trains the same
# triplets and real tokens on both; the script checks that the token counts agree. Samples/s is the
# timed steps' triplets over their summed seconds (shmtrain: metrics.jsonl's per-step rates);
# peak RSS is the largest resident set of the process tree (getrusage of the children). The
# PyTorch side needs Debian's python3-torch (/usr/bin/python3) and gets shmtrain's OpenBLAS core
# type for this CPU (unless OPENBLAS_CORETYPE is set) and OMP_WAIT_POLICY=PASSIVE.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench/sentence_vs_pytorch.sh [--model bert|modernbert] [--batch N] [--steps N] [--warmup N] [--reranker | --cached [--cached_batch N] [--mini_batch_size N]]"
model=bert batch="" steps="" warmup=1 cached="" reranker="" cached_batch=1024 mini=32
while [ $# -gt 0 ]; do
  case "$1" in
    --model) model=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --cached) cached=1; shift ;;
    --reranker) reranker=--reranker; shift ;;
    --cached_batch) cached_batch=$2; shift 2 ;;
    --mini_batch_size) mini=$2; shift 2 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "unknown argument $1; $usage" >&2; exit 2 ;;
  esac
done
case "$model" in bert|modernbert) ;; *) echo "unknown --model $model; $usage" >&2; exit 2 ;; esac
if [ -n "$cached" ]; then batch=${batch:-32} steps=${steps:-2}; else batch=${batch:-64} steps=${steps:-3}; fi
python=/usr/bin/python3
[ -x build/shmtrain ] || tools/build.sh --target shmtrain >/dev/null
cores=$(nproc)
core=${OPENBLAS_CORETYPE:-$(build/shmtrain info 2>/dev/null | sed -n 's/.*OpenBLAS core \([A-Za-z]*\).*/\1/p' | head -1)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -z "$cached" ] || [ -z "$reranker" ] || { echo "--cached and --reranker are two separate runs; $usage" >&2; exit 2; }
$python tools/torch_sentence_embedding.py --write-inputs "$work" --model "$model" $reranker
task=sentence-embedding data=triplets.jsonl
[ -z "$reranker" ] || task=reranking data=pairs.jsonl

# One shmtrain training run into $work/NAME: its metrics.jsonl there, its peak RSS (GiB) in $work/NAME.rss.
shmtrain_run() {  # name, batch, extra flags...
  local name=$1 rows=$2
  shift 2
  $python - "$work/$name.rss" build/shmtrain train --task_name "$task" --do_train \
    --config_name "$work/model/config.json" --tokenizer_name "$work/model" --train_file "$work/$data" \
    --output_dir "$work/$name" --per_device_train_batch_size "$rows" --max_steps $((warmup + steps)) \
    --logging_steps 1 --save_steps 0 --shuffle false --disable_tqdm --nproc_per_node 1 --max_seq_length 128 \
    "$@" <<'EOF'
import resource, subprocess, sys
status = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL).returncode
open(sys.argv[1], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2 ** 20))
sys.exit(status)
EOF
}

summary() {  # name -> "samples/s tokens-per-sample gflops peak-gib" over the timed steps
  $python - "$work/$1/metrics.jsonl" "$work/$1.rss" "$warmup" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"samples_per_second"' in l]
timed = rows[int(sys.argv[3]):]
# Each step trains the batch's samples in batch / samples_per_second seconds: the timed steps'
# rate is their count over the summed seconds per sample.
step_seconds = [1.0 / r["samples_per_second"] for r in timed]
tokens = sum(r["tokens_per_second"] / r["samples_per_second"] for r in timed) / len(timed)
print(len(timed) / sum(step_seconds), tokens, sum(r["gflops"] for r in timed) / len(timed), open(sys.argv[2]).read())
EOF
}

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $cores cores; $(build/shmtrain info 2>/dev/null | grep -m1 -i 'cpu features' || true)"
if [ -z "$cached" ]; then
  shmtrain_run mnrl "$batch"
  read -r ours_rate ours_tokens ours_gflops ours_rss < <(summary mnrl)
  theirs=$(env OMP_NUM_THREADS="$cores" OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS="$cores" \
    ${core:+OPENBLAS_CORETYPE=$core} $python tools/torch_sentence_embedding.py --bench-one "$work" $reranker \
    --threads "$cores" --batch "$batch" --steps "$steps" --warmup "$warmup" | sed -n 's/^RESULT //p')
  $python - "$model" "$batch" "$steps" "$warmup" "$cores" "${core:-(auto)}" "$ours_rate" "$ours_tokens" \
    "$ours_gflops" "$ours_rss" "$theirs" "$reranker" <<'EOF'
import json, sys
model, batch, steps, warmup, cores, core = sys.argv[1:7]
rate, tokens, gflops, rss = map(float, sys.argv[7:11])
theirs = json.loads(sys.argv[11])
reranker = bool(sys.argv[12])
their_tokens = theirs["tokens_per_s"] / theirs["samples_per_s"]
name = {"bert": "BERT-base", "modernbert": "ModernBERT-base"}[model]
what = ("a reranker, BinaryCrossEntropyLoss on (query, document, label) pairs" if reranker
        else "MultipleNegativesRankingLoss on (anchor, positive, negative) triplets")
print(f"# {name}, {what}, batch {batch}, {steps} timed steps after {warmup}, {cores} cores, OPENBLAS_CORETYPE={core}")
print(f"{'run':52} {'samples/s':>10} {'tokens/sample':>14} {'peak RSS':>9}")
print(f"{'shmtrain, 1 worker, packed':52} {rate:10.3f} {tokens:14.1f} {rss:7.2f}Gi   ({gflops:.1f} useful GFLOP/s)")
padded = "each batch's pairs padded to longest" if reranker else "each column padded to longest"
print(f"{'PyTorch eager, ' + padded:52} {theirs['samples_per_s']:10.3f} {their_tokens:14.1f} "
      f"{theirs['peak_rss_gib']:7.2f}Gi")
if abs(tokens - their_tokens) > 0.005 * their_tokens:
    sys.exit(f"the two sides trained different tokens per sample ({tokens:.2f} vs {their_tokens:.2f})")
ratio = rate / theirs["samples_per_s"]
print(f"{'shmtrain / PyTorch (same samples and real tokens)':60} {ratio:6.2f}x  "
      f"(goal >= 2.5x: {'met' if ratio >= 2.5 else 'missed'})")
EOF
else
  shmtrain_run mnrl "$batch"
  read -r plain_rate plain_tokens plain_gflops plain_rss < <(summary mnrl)
  shmtrain_run cached "$cached_batch" --loss CachedMultipleNegativesRankingLoss --mini_batch_size "$mini"
  read -r cached_rate cached_tokens cached_gflops cached_rss < <(summary cached)
  $python - "$model" "$batch" "$cached_batch" "$mini" "$steps" "$warmup" "$plain_rate" "$plain_rss" \
    "$cached_rate" "$cached_rss" "$plain_gflops" "$cached_gflops" <<'EOF'
import sys
model, batch, cached_batch, mini, steps, warmup = sys.argv[1:7]
plain_rate, plain_rss, cached_rate, cached_rss, plain_gflops, cached_gflops = map(float, sys.argv[7:13])
name = {"bert": "BERT-base", "modernbert": "ModernBERT-base"}[model]
print(f"# {name}, shmtrain 1 worker, triplets, {steps} timed steps after {warmup}")
print(f"{'run':56} {'samples/s':>10} {'peak RSS':>9}")
print(f"{'MultipleNegativesRankingLoss, batch ' + batch:56} {plain_rate:10.3f} {plain_rss:7.2f}Gi")
print(f"{'CachedMultipleNegativesRankingLoss, batch ' + cached_batch + ', mini-batch ' + mini:56} "
      f"{cached_rate:10.3f} {cached_rss:7.2f}Gi")
memory, time = cached_rss / plain_rss, plain_rate / cached_rate
print(f"peak memory, cached / MNRL: {memory:.2f}x (goal <= 1.3x: {'met' if memory <= 1.3 else 'missed'})")
print(f"time per sample, cached / MNRL: {time:.2f}x (goal <= 1.25x: {'met' if time <= 1.25 else 'missed'}; "
      f"a second forward of every chunk but the last costs ~1.33x of a step's FLOPs)")
EOF
fi
