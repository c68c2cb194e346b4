#!/usr/bin/env bash
# README command 1: set up, build, and train a small BERT from random weights on the
# built-in paraphrase task (demo/paraphrase): 1-3 minutes of training on 2 cores, after the set-up
# and build (7-10 minutes the first time). Extra arguments
# are passed to `shmtrain train` (e.g. --num_train_epochs 3 for a shorter run).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh --target shmtrain
build/shmtrain train --config configs/demo.toml "$@"
output_dir=$(sed -n 's/^output_dir = "\(.*\)"$/\1/p' configs/demo.toml)
for ((i = 1; i <= $#; i++)); do
  if [[ "${!i}" == "--output_dir" ]]; then
    next=$((i + 1))
    output_dir="${!next}"
  fi
done
echo
echo "The fine-tuned model (Hugging Face format) and its results are in ${output_dir}/:"
echo "  ${output_dir}/model.safetensors, config.json, vocab.txt   the model"
echo "  ${output_dir}/eval_results.json                           dev accuracy and F1"
echo "  ${output_dir}/metrics.jsonl                               loss and learning rate per logged step"
echo "  ${output_dir}/report.html                                 the run's charts and summary (open in a browser)"
