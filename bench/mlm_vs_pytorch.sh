#!/usr/bin/env bash
# Masked-LM training samples/s: shmtrain's run_mlm job beside PyTorch eager's BertForMaskedLM /
# XLMRobertaForMaskedLM (tools/torch_mlm.py, a port of Hugging Face's modeling code), measured in
# the same run on the same cores; then the ratio the goals are stated in (#34):
#   BERT-base (vocabulary 30,522): shmtrain >= 3x PyTorch;  XLM-R-base (250,002): >= 4x.
#
#   bench/mlm_vs_pytorch.sh [--model bert|xlmr] [--batch 8] [--steps 3]
#
# shmtrain runs the real command, `shmtrain run_mlm`, from random weights of the model's shapes
# (a config.json this script writes) on English text (the demo's MRPC-style sentences,
# demo/paraphrase/train.tsv, one per line) cut into run_mlm's group_texts blocks of 128 tokens,
# 15% masked, fp32, 1 worker x all cores; its rate is the median of the logged steps' samples/s
# after the warm-up step. Only the masked ~15% of tokens reach the vocabulary projection. The
# tokenizer is the demo's small WordPiece vocabulary: the model's vocabulary (the decoder's width)
# is the real one, and every block is 128 tokens either way. PyTorch trains full blocks of 128
# random words with the same 15% masking and projects every token onto the vocabulary, as
# transformers does (1 process x all threads, OMP_WAIT_POLICY=PASSIVE, shmtrain's OpenBLAS core
# type unless OPENBLAS_CORETYPE is set). Needs Debian's python3-torch (/usr/bin/python3).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench/mlm_vs_pytorch.sh [--model bert|xlmr] [--batch N] [--steps N]"
model=bert batch=8 steps=3
while [ $# -gt 0 ]; do
  case "$1" in
    --model) model=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "unknown argument $1; $usage" >&2; exit 2 ;;
  esac
done
case "$model" in
  bert) preset=bert-base name=BERT-base goal=3
        config='{"model_type": "bert", "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12,
                 "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 512,
                 "type_vocab_size": 2, "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "pad_token_id": 0}' ;;
  xlmr) preset=xlmr-base name=XLM-R-base goal=4
        config='{"model_type": "xlm-roberta", "vocab_size": 250002, "hidden_size": 768, "num_hidden_layers": 12,
                 "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 514,
                 "type_vocab_size": 1, "layer_norm_eps": 1e-5, "hidden_dropout_prob": 0.1,
                 "attention_probs_dropout_prob": 0.1, "pad_token_id": 0}' ;;
  *) echo "unknown --model $model; $usage" >&2; exit 2 ;;
esac
python=/usr/bin/python3
[ -x build/shmtrain ] || tools/build.sh --target shmtrain >/dev/null
cores=$(nproc)
core=${OPENBLAS_CORETYPE:-$(build/shmtrain info 2>/dev/null | sed -n 's/.*OpenBLAS core \([A-Za-z]*\).*/\1/p' | head -1)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "$config" >"$work/config.json"
tail -n +2 demo/paraphrase/train.tsv | cut -f4,5 | tr '\t' '\n' >"$work/text.txt"

# The PyTorch peer's dropout is 0; the demo tokenizer's [PAD] is 0 (config.json's pad_token_id).
build/shmtrain run_mlm --config_name "$work/config.json" --tokenizer_name demo/paraphrase \
  --train_file "$work/text.txt" --max_seq_length 128 --per_device_train_batch_size "$batch" --do_train \
  --max_steps $((steps + 1)) --logging_steps 1 --save_steps 0 --report_to none --nproc_per_node 1 \
  --hidden_dropout_prob 0 --attention_probs_dropout_prob 0 --disable_tqdm --output_dir "$work/out" >"$work/ours.log"

theirs="$work/theirs.txt"
status=0
env OMP_NUM_THREADS="$cores" OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS="$cores" ${core:+OPENBLAS_CORETYPE=$core} \
  $python tools/torch_mlm.py --bench-one --preset "$preset" --threads "$cores" --batch "$batch" --seq 128 \
  --steps "$steps" --warmup 1 >"$theirs" || status=$?
if [ $status -ne 0 ] || ! grep -q '^RESULT ' "$theirs"; then
  echo "PyTorch: no result, exit status $status" >&2
  : >"$theirs"
fi

$python - "$work/out/metrics.jsonl" "$theirs" "$batch" "$steps" "$cores" "${core:-(auto)}" "$name" "$goal" <<'EOF'
import json, statistics, sys
metrics, theirs_path, batch, steps, cores, core, name, goal = sys.argv[1:]
logged = [json.loads(l) for l in open(metrics) if '"loss"' in l]
rates = [r["samples_per_second"] for r in logged[1:]]  # after the warm-up step
assert rates, "shmtrain logged no timed step"
ours = statistics.median(rates)
res = [json.loads(l[7:]) for l in open(theirs_path) if l.startswith("RESULT ")]
theirs = res[-1] if res else None
print(f"# {name} masked LM, blocks of 128, batch {batch}, 15% masked, fp32, {steps} timed steps after 1 warm-up, "
      f"{cores} cores; PyTorch 1 process x {cores} threads, OPENBLAS_CORETYPE={core}")
print(f"{'run':44} {'samples/s':>10} {'tokens/s':>10}")
print(f"{'shmtrain run_mlm (masked rows projected)':44} {ours:10.3f} {ours * 128:10.1f}   "
      f"(steps: {', '.join(f'{r:.3f}' for r in rates)}; GFLOP/s {statistics.median(r['gflops'] for r in logged[1:]):.1f})")
if theirs:
    print(f"{'PyTorch eager (every token projected)':44} {theirs['samples_per_s']:10.3f} {theirs['tokens_per_s']:10.1f}   "
          f"(peak RSS {theirs['peak_rss_gib']:.2f} GiB, step median {theirs['step_seconds_median']:.2f} s)")
    ratio = ours / theirs["samples_per_s"]
    print(f"{'shmtrain / PyTorch':44} {ratio:9.2f}x  (goal >= {goal}x: {'met' if ratio >= float(goal) else 'missed'})")
else:
    print("PyTorch: n/a (no result)")
EOF
