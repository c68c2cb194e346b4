#!/usr/bin/env bash
# Tokenizer throughput, one thread, against Hugging Face's tokenizers (npm `tokenizers` 0.23.2, the
# Node binding of the Rust library) on the same QQP-like sentence pairs in the same run (issue
# #35): byte-level BPE in RoBERTa's layout, Unigram with XLM-R's precompiled charsmap, and BERT's
# WordPiece (its tokenizer.json, and vocab.txt), encoded as run_glue encodes (pairs, truncation
# longest_first to 128, padding to 128). Pairs/s and MB/s (of the pairs' UTF-8 text), medians of
# --runs runs; every pair's ids are compared with Hugging Face's (the mismatch count must be 0).
#
#   bench/tokenizers_vs_hf.sh [--scratch DIR] [--pairs N] [--runs N] [--passes N] [--build DIR]
#
# The scratch folder (default /tmp/shmtrain-tokenizers-vs-hf, never in the repo) gets npm's
# tokenizers, the texts and the tokenizers, made once by tools/hf_tokenize_bench.js and Debian's
# python3-sentencepiece: an 8 MB training text of made-up words drawn Zipf-like, 20,000 pairs of
# the same kind (about 53 bytes a text), byte-level BPE trained by the library (its default
# trainer's 30,000 tokens: the binding takes no trainer options), WordPiece trained by the
# library (30,000), a SentencePiece Unigram of 32,000 pieces (nmt_nfkc). Delete it to remake them.
# Needs node + npm (the npm registry, once), /usr/bin/python3 with python3-sentencepiece, and
# tokenize_bench (built into --build, default build/, when missing).
# Hugging Face's rates (tools/hf_tokenize_bench.js says more): "encode" calls encode(a, b) per
# pair, each awaited (RAYON_NUM_THREADS=1, TOKENIZERS_PARALLELISM=false); "batch" is encodeBatch
# over the same texts as single texts, unpadded, 1000 a call: the Rust side without the binding's
# per-call cost, a little less work than the pairs. The ratios are shmtrain's pairs/s over each.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench/tokenizers_vs_hf.sh [--scratch DIR] [--pairs N] [--runs N] [--passes N] [--build DIR]"
scratch=/tmp/shmtrain-tokenizers-vs-hf pairs=20000 runs=3 passes=3 build=build
while [ $# -gt 0 ]; do
  case "$1" in
    --scratch) scratch=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --passes) passes=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) echo "$usage"; awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    *) echo "unknown argument $1; $usage" >&2; exit 2 ;;
  esac
done
python=/usr/bin/python3
command -v node >/dev/null && command -v npm >/dev/null || { echo "needs node and npm (apt-get install nodejs npm)" >&2; exit 2; }
$python -c 'import sentencepiece' 2>/dev/null || { echo "needs python3-sentencepiece (apt-get install python3-sentencepiece)" >&2; exit 2; }
bench_bin=$build/bench/tokenize_bench
if [ ! -x "$bench_bin" ]; then
  if [ "$build" = build ]; then tools/build.sh --target tokenize_bench >/dev/null; else cmake --build "$build" --target tokenize_bench >/dev/null; fi
fi

mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
work=$scratch/work-$pairs
if [ ! -d "$scratch/node_modules/tokenizers" ]; then
  (cd "$scratch" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --no-save tokenizers@0.23.2 >/dev/null)
fi
export NODE_PATH=$scratch/node_modules
hf="node tools/hf_tokenize_bench.js"
if [ ! -f "$work/xlmr_unigram/tokenizer.json" ]; then
  echo "making the texts and tokenizers in $work (a few minutes, once)" >&2
  mkdir -p "$work"
  $hf corpus "$work" --pairs "$pairs"
  (cd "$work" && $python - <<'EOF'
import json
import sentencepiece as spm
spm.SentencePieceTrainer.train(input="corpus.txt", model_prefix="spm", model_type="unigram", vocab_size=32000,
                               normalization_rule_name="nmt_nfkc", character_coverage=1.0, num_threads=1,
                               hard_vocab_limit=False, minloglevel=2)
sp = spm.SentencePieceProcessor(model_file="spm.model")
pieces = [[sp.id_to_piece(i), sp.get_score(i)] for i in range(sp.get_piece_size())]
json.dump(pieces, open("spm_pieces.json", "w"), ensure_ascii=False)
EOF
  )
  $hf build "$work" tests/fixtures/tokenizers | grep -v '^[[:space:]]*$' >&2
fi

results=$(mktemp)
trap 'rm -f "$results"' EXIT
export RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false UV_THREADPOOL_SIZE=1
for run in $(seq "$runs"); do
  for name in roberta_bpe xlmr_unigram bert_wordpiece; do
    ids=$work/ids_$name.txt
    $hf bench "$work" "$name" --passes "$passes" --ids "$ids" | grep '^RESULT ' >>"$results"
    "$bench_bin" --pairs "$work/pairs.tsv" --tokenizer "$work/$name" --expect-ids "$ids" --passes "$passes" |
      grep '^RESULT ' >>"$results"
    if [ $name = bert_wordpiece ]; then
      "$bench_bin" --pairs "$work/pairs.tsv" --tokenizer "$work/$name/vocab_txt" --vocab-txt --expect-ids "$ids" \
        --passes "$passes" | grep '^RESULT ' >>"$results"
    fi
  done
  echo "run $run of $runs done" >&2
done

$python - "$results" "$runs" "$passes" "$pairs" <<'EOF'
import json, os, statistics, sys
path, runs, passes, pairs = sys.argv[1:]
rows = [json.loads(line[7:]) for line in open(path)]
def name(r):
    base = os.path.basename(r["tokenizer"].rstrip("/"))
    return "bert_wordpiece (vocab.txt)" if base == "vocab_txt" else base
def med(side, tok, key):
    return statistics.median(r[key] for r in rows if r["side"] == side and name(r) == tok)
print(f"# {pairs} QQP-like pairs, truncation and padding to 128, one thread; medians of {runs} runs "
      f"(each the median of {passes} passes after a warm-up); {os.cpu_count()} CPUs")
print(f"{'tokenizer':28} {'tok/pair':>8} {'shmtrain':>9} {'MB/s':>6} {'HF encode':>9} {'MB/s':>6} {'ratio':>6} "
      f"{'HF batch':>9} {'MB/s':>6} {'ratio':>6} {'mismatch':>8}")
bad = 0
for tok in ["roberta_bpe", "xlmr_unigram", "bert_wordpiece", "bert_wordpiece (vocab.txt)"]:
    hf_tok = "bert_wordpiece" if tok.startswith("bert") else tok
    ours, ours_mb = med("shmtrain", tok, "pairs_per_s"), med("shmtrain", tok, "mb_per_s")
    hf, hf_mb = med("hf", hf_tok, "pairs_per_s"), med("hf", hf_tok, "mb_per_s")
    hfb, hfb_mb = med("hf", hf_tok, "batch_pairs_per_s"), med("hf", hf_tok, "batch_mb_per_s")
    mism = max(r["mismatches"] for r in rows if r["side"] == "shmtrain" and name(r) == tok)
    checked = all(r["checked"] for r in rows if r["side"] == "shmtrain" and name(r) == tok)
    bad += mism if checked else 1
    tpp = next(r["tokens_per_pair"] for r in rows if r["side"] == "shmtrain" and name(r) == tok)
    print(f"{tok:28} {tpp:8.1f} {ours:9.0f} {ours_mb:6.2f} {hf:9.0f} {hf_mb:6.2f} {ours / hf:5.2f}x "
          f"{hfb:9.0f} {hfb_mb:6.2f} {ours / hfb:5.2f}x {mism:8d}")
print("goal (issue #35): shmtrain >= 1.0x Hugging Face's single-thread pairs/s for each; ids equal on every pair")
sys.exit(1 if bad else 0)
EOF
