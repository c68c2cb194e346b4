#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ (clang, ASan + UBSan, into build-fuzz/) and runs each
# for SECONDS (default 60) over a corpus seeded from tests/fixtures, kept in build-fuzz/corpus/
# between runs. Prints each harness's executions; a crash stops with the input that caused it
# (build-fuzz/crashes/), which then belongs in a regression test or in fuzz/corpus/HARNESS/: the
# inputs there (past findings) are replayed by every run, before any new input.
#   tools/fuzz.sh [SECONDS] [HARNESS...]
#   tools/fuzz.sh --ci SECONDS        CI's pass: every harness (one per core at a time) runs even after one fails; exit 1 if any did
#   tools/fuzz.sh --runs N [HARNESS...]   N executions each instead of a time (docs/fuzzing.md's long runs)
set -euo pipefail
cd "$(dirname "$0")/.."
ci=0
limit=()
case "${1:-}" in
  --ci) ci=1; shift ;;
  --runs) limit=(-runs="$2"); shift 2 ;;
esac
if [ ${#limit[@]} -eq 0 ]; then
  seconds=${1:-60}
  shift || true
  limit=(-max_total_time="$seconds")
fi
tools/setup.sh
missing=()
for p in clang libclang-rt-14-dev libomp-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "fuzz: installing ${missing[*]}"
  # The package lists may be empty (a fresh image) when tools/setup.sh found nothing to install.
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHMTRAIN_FUZZ=ON \
  -DSHMTRAIN_BUILD_TESTS=OFF -DSHMTRAIN_BUILD_BENCH=OFF -DSHMTRAIN_WITH_MPI=OFF -DSHMTRAIN_MARCH=native >/dev/null
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=($(ls fuzz/*_fuzz.cpp | xargs -n1 basename | sed 's/\.cpp$//'))
cmake --build build-fuzz -j "$(nproc)" --target "${harnesses[@]}" >/dev/null

make_tokenizer_json() {  # a BERT tokenizer.json of the test vocabulary, as tokenizers writes one
  mkdir -p build-fuzz/seed
  /usr/bin/python3 - tests/fixtures/squad_tiny/vocab.txt build-fuzz/seed/tokenizer.json <<'PY'
import json, sys
tokens = open(sys.argv[1], encoding="utf-8").read().splitlines()
specials = [t for t in tokens if t.startswith("[") and t.endswith("]")]
json.dump({"version": "1.0",
           "added_tokens": [{"id": tokens.index(t), "content": t, "single_word": False, "lstrip": False,
                             "rstrip": False, "normalized": False, "special": True} for t in specials],
           "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                          "strip_accents": None, "lowercase": True},
           "pre_tokenizer": {"type": "BertPreTokenizer"},
           "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                     "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(tokens)}}},
          open(sys.argv[2], "w"), ensure_ascii=False)
PY
}

seed() {  # harness -> the fixture files its corpus starts from
  case "$1" in
    safetensors_fuzz) ls tests/fixtures/reference_tiny/*.safetensors ;;
    config_json_fuzz) ls tests/fixtures/reference_tiny/config.json tests/fixtures/squad_tiny/*config.json \
                         tests/fixtures/reference_heads/*/config.json ;;
    tokenizer_json_fuzz) make_tokenizer_json && echo build-fuzz/seed/tokenizer.json ;;
    hf_tokenizer_json_fuzz) ls tests/fixtures/tokenizers/*/tokenizer.json tests/fixtures/tokenizers/bad/*/tokenizer.json ;;
    hf_tokenize_text_fuzz) ls tests/fixtures/tokenizers/README.md tests/fixtures/tokenizers/cases.jsonl ;;
    tagged_file_fuzz) ls tests/fixtures/ner_tiny/dev.txt tests/fixtures/ner_tiny/train.jsonl ;;
    vocab_txt_fuzz | tokenize_text_fuzz) ls tests/fixtures/squad_tiny/vocab.txt ;;
    squad_fuzz) ls tests/fixtures/squad_tiny/train.json tests/fixtures/squad_tiny/dev.json ;;
    train_config_fuzz) ls configs/*.toml ;;
    table_fuzz) ls demo/paraphrase/*.tsv 2>/dev/null | head -2 ;;
    parquet_fuzz) ls tests/fixtures/parquet/*.parquet ;;
    torch_checkpoint_fuzz) ls tests/fixtures/torch_bin/*.bin tests/fixtures/torch_bin/sharded/*.bin ;;
  esac
}
max_len() {  # harness -> the largest input it is given
  case "$1" in
    # Text harnesses: tokenizing is linear (a unit test checks that at 150,000 characters), so a
    # short text finds what a long one would, at many times the executions. Byte-level BPE and
    # Unigram under ASan take ~3 us a byte: 512 bytes. The NER files are lines of a word and its
    # tag (or short JSON objects): 4 KiB holds a hundred of them.
    hf_tokenize_text_fuzz) echo 512 ;;
    tokenize_text_fuzz | tagged_file_fuzz) echo 4096 ;;
    *) echo 65536 ;;
  esac
}
mkdir -p build-fuzz/crashes

run_harness() {  # harness -> its line; non-zero when it crashed
  local h=$1 corpus=build-fuzz/corpus/$1 log=build-fuzz/$1.log start=$SECONDS found=() f runs
  if [ ! -d "$corpus" ]; then
    mkdir -p "$corpus"
    for f in $(seed "$h"); do
      # Big fixtures are cut into pieces of max_len: the fuzzer mutates small inputs fastest.
      split -b "$(max_len "$h")" -a 3 "$f" "$corpus/$(echo "$f" | tr / _)."
    done
  fi
  [ ! -d "fuzz/corpus/$h" ] || found=("fuzz/corpus/$h")  # read only: new inputs go to $corpus
  if ! build-fuzz/fuzz/$h "$corpus" "${found[@]}" "${limit[@]}" -max_len="$(max_len "$h")" -timeout=10 \
      -rss_limit_mb=4096 -artifact_prefix=build-fuzz/crashes/$h- >"$log" 2>&1; then
    echo "$h: FAILED, see $log and build-fuzz/crashes/"
    tail -30 "$log"
    return 1
  fi
  runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 | grep -o '[0-9]*')
  echo "$h: ${runs:-?} executions in $((SECONDS - start))s, no crash"
}

if [ "$ci" -eq 0 ]; then
  for h in "${harnesses[@]}"; do run_harness "$h" || exit 1; done
  exit 0
fi
# CI: one harness per core at a time, every one to the end; then each one's lines, in order.
for h in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  run_harness "$h" >"build-fuzz/$h.result" 2>&1 &
done
wait
failed=()
for h in "${harnesses[@]}"; do
  cat "build-fuzz/$h.result"
  grep -q "^$h: FAILED" "build-fuzz/$h.result" && failed+=("$h")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} harness(es) failed: ${failed[*]}"
  exit 1
fi
