#!/usr/bin/env bash
# Installs the Debian packages shmtrain builds against. Idempotent and quiet when all is there.
# Usage: tools/setup.sh            (needs root or sudo for apt-get when something is missing)
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libhwloc-dev libtbb-dev libopenblas-dev libdnnl-dev
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libutf8proc-dev libfmt-dev
  libpcre2-dev libsentencepiece-dev
  libsnappy-dev libzstd-dev zlib1g-dev
  libprotobuf-dev protobuf-compiler libisal-dev
  libgtest-dev libgmock-dev
  libopenmpi-dev openmpi-bin
  tmux
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
