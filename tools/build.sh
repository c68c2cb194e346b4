#!/usr/bin/env bash
# Configures and builds shmtrain into build/ (Release).
#   tools/build.sh [--target NAME] [cmake options...]
# --target builds one target (tools/demo.sh builds only the `shmtrain` binary); the other
# arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
if [[ "${1:-}" == "--target" ]]; then
  targets=(--target "$2")
  shift 2
fi
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$jobs" "${targets[@]}"
