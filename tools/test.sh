#!/usr/bin/env bash
# Set-up + configure + build + the whole test suite (ctest); prints ctest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
# Only the tests need Chromium: the report test opens the HTML report in it, headless (and skips,
# saying why, where it cannot start).
if ! command -v chromium >/dev/null; then
  echo "test: installing chromium"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
tools/build.sh -DSHMTRAIN_WERROR=ON
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 600
