#!/usr/bin/env bash
# Builds shmtrain's container image from deploy/Containerfile and tags it shmtrain:<version>.
#   tools/image.sh [options]
#     --base-from-debian-mirror  first build the Debian 12 base the Containerfile names
#                                (docker.io/library/debian:bookworm) with mmdebstrap from Debian's
#                                mirror, so that no container registry is needed at all
#     --binary PATH              put this already-built binary into the runtime image instead of
#                                compiling shmtrain in the build stage (CI's image test; the binary
#                                must have been built on Debian 12 against its packages)
#     --tag NAME                 the image's name (default shmtrain:<version of CMakeLists.txt>)
#     --builder podman|buildah|docker   default: the first of them that can build here
#   tools/image.sh --demo [--tag NAME] [shmtrain train flags...]
#                                trains the built-in demo in a container of the image (its CMD),
#                                printing the `run` line with the flags this machine needs
# Installs podman and runc (and mmdebstrap for --base-from-debian-mirror) when no builder is found
# and it may (root or sudo). podman and buildah build with --isolation chroot (no container runtime
# needed for the RUN steps); podman runs containers with runc here: crun, which installing podman
# makes the default, refuses hybrid cgroups. Prints the image's name and size last.
set -euo pipefail
cd "$(dirname "$0")/.."

base_image=docker.io/library/debian:bookworm
version=$(sed -n 's/^project(shmtrain VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
tag="shmtrain:${version}"
binary=""
from_mirror=0
builder=""
demo=0
demo_flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --demo) demo=1; shift ;;
    --base-from-debian-mirror) from_mirror=1; shift ;;
    --binary) binary="${2:?image: --binary needs a path}"; shift 2 ;;
    --tag) tag="${2:?image: --tag needs a name}"; shift 2 ;;
    --builder) builder="${2:?image: --builder needs podman, buildah or docker}"; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *)
      if [ $demo -eq 1 ]; then demo_flags+=("$1"); shift; continue; fi
      echo "image: unknown argument $1 (see tools/image.sh --help)" >&2; exit 2 ;;
  esac
done

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
install_packages() {  # apt-get install of the packages not installed yet
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "image: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

if [ -z "$builder" ]; then
  for candidate in podman buildah docker; do
    if command -v "$candidate" >/dev/null; then
      # The docker client answers without an engine; it can build only where one runs.
      if [ "$candidate" = docker ] && ! docker info >/dev/null 2>&1; then continue; fi
      builder=$candidate
      break
    fi
  done
  if [ -z "$builder" ]; then
    install_packages podman runc
    builder=podman
  fi
fi
case "$builder" in
  podman | buildah) build=("$builder" build --isolation chroot --format docker) ;;
  docker) build=(docker build) ;;
  *) echo "image: --builder must be podman, buildah or docker, not $builder" >&2; exit 2 ;;
esac
command -v "$builder" >/dev/null || { echo "image: $builder is not installed" >&2; exit 1; }

if [ $demo -eq 1 ]; then
  [ "$builder" != buildah ] || { echo "image: --demo runs a container: podman or docker, not buildah" >&2; exit 2; }
  # A VM's hard limits of open files and processes may be below the runtime's defaults, which it
  # then fails to set ("error setting rlimit"): the container gets this shell's hard limits.
  files=$(ulimit -Hn); procs=$(ulimit -Hu)
  [ "$files" = unlimited ] && files=1048576
  { [ "$procs" = unlimited ] || [ "$procs" -gt 32768 ]; } && procs=32768
  # No health-check timer for a one-off run (podman would ask systemd for one).
  run=("$builder" run --rm --no-healthcheck --ulimit "nofile=$files:$files" --ulimit "nproc=$procs:$procs")
  # podman takes crun when both are installed; crun refuses hybrid cgroups, runc does not.
  if [ "$builder" = podman ] && command -v runc >/dev/null; then run+=(--runtime runc); fi
  command=()
  [ ${#demo_flags[@]} -eq 0 ] || command=(shmtrain train --config configs/demo.toml "${demo_flags[@]}")
  echo "image: ${run[*]} $tag ${command[*]}"
  exec "${run[@]}" "$tag" "${command[@]}"
fi

if [ $from_mirror -eq 1 ]; then
  install_packages mmdebstrap
  tarball=$(mktemp --tmpdir shmtrain-base.XXXXXX.tar)
  trap 'rm -f "$tarball"' EXIT
  echo "image: building $base_image with mmdebstrap from deb.debian.org"
  start=$SECONDS
  $sudo mmdebstrap --quiet --variant=minbase --format=tar bookworm "$tarball" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main"
  case "$builder" in
    podman) podman import --quiet "$tarball" "$base_image" >/dev/null ;;
    buildah) container=$(buildah from scratch) && buildah add "$container" "$tarball" / >/dev/null &&
               buildah commit --quiet "$container" "$base_image" >/dev/null && buildah rm "$container" >/dev/null ;;
    docker) docker import "$tarball" "$base_image" >/dev/null ;;
  esac
  rm -f "$tarball"
  echo "image: $base_image built in $((SECONDS - start)) s"
fi

target=image
labels=(--label "org.opencontainers.image.title=shmtrain" --label "org.opencontainers.image.version=${version}")
if [ -n "$binary" ]; then
  [ -x "$binary" ] || { echo "image: --binary $binary: no executable there" >&2; exit 1; }
  mkdir -p build/image
  cp "$binary" build/image/shmtrain
  target=prebuilt
  labels+=(--label "shmtrain.binary-sha256=$(sha256sum build/image/shmtrain | cut -d' ' -f1)")
fi

echo "image: building $tag ($target stage of deploy/Containerfile) with $builder"
start=$SECONDS
"${build[@]}" --file deploy/Containerfile --target "$target" --tag "$tag" "${labels[@]}" .
size=$("$builder" image inspect --format '{{.Size}}' "$tag" 2>/dev/null || echo 0)
echo "image: $tag built in $((SECONDS - start)) s, $((size / 1000000)) MB"
