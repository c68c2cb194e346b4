#!/usr/bin/env bash
# Regenerates tests/fixtures/tokenizers (see README.md beside this file).
# Usage: tools/tokenizer_reference/run.sh [SCRATCH_DIR]      (default /tmp/tokref)
# Needs: node + npm (the npm registry), /usr/bin/python3 with Debian's python3-sentencepiece.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
scratch="${1:-/tmp/tokref}"
fix="$repo/tests/fixtures/tokenizers"
work="$scratch/work"
mkdir -p "$scratch" "$work"
if [ ! -d "$scratch/node_modules/tokenizers" ]; then
  (cd "$scratch" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --no-save tokenizers@0.23.2)
fi
export NODE_PATH="$scratch/node_modules"
mkdir -p "$fix"
# everything but the hand-written README.md is generated
find "$fix" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
/usr/bin/python3 "$here/corpus.py" "$work"
/usr/bin/python3 "$here/train_spm.py" "$work" "$fix"
node "$here/build_tokenizers.js" "$work" "$fix" | grep -v '^[[:space:]]*$'
node "$here/make_cases.js" "$work" "$fix"
node "$here/make_bad.js" "$fix"
/usr/bin/python3 "$here/check_spm.py" "$fix"
