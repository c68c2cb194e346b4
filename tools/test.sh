#!/usr/bin/env bash
# Set-up + configure + build + the whole test suite (ctest); prints ctest's summary, then each
# skipped test with the reason it gave.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
# Only the tests need these: Chromium (the report test opens the HTML report in it, headless),
# podman, runc and mmdebstrap (the image test builds deploy/Containerfile's image, its Debian base
# from Debian's mirror, and runs it; runc because crun, podman's default, refuses hybrid cgroups).
# Each test skips, saying why, where its tool cannot run.
missing=()
command -v chromium >/dev/null || missing+=(chromium)
for p in podman runc mmdebstrap; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "test: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
tools/build.sh -DSHMTRAIN_WERROR=ON
cd build
status=0
ctest --output-on-failure -j "$(nproc)" --timeout 600 || status=$?
# ctest lists skipped tests without their reasons: the reason is the line after gtest's "Skipped".
awk '/^[0-9]+\/[0-9]+ Test: /{name=$3} /: Skipped$/{getline reason; print "skipped: " name ": " reason}' \
  Testing/Temporary/LastTest.log
exit $status
