#!/usr/bin/env bash
# Set-up + configure + build + the whole test suite (ctest); prints ctest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh -DSHMTRAIN_WERROR=ON
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 600
