#!/usr/bin/env bash
# Runs a command in a Debian trixie root (LibTorch 2.6), as root:
#   tools/in_trixie.sh                 the README's test command (setup, build, ctest)
#   tools/in_trixie.sh --cuda          the same with the CUDA LibTorch: the `cuda` preset
#   tools/in_trixie.sh [--cuda] -- CMD run CMD in the root's copy of this clone instead
#   tools/in_trixie.sh [--cuda] --if-cached ...   do nothing (say so) unless the root exists
#   tools/in_trixie.sh [--cuda] --root-only        make (or update) the root, run nothing
#
# The root is made with mmdebstrap in a cache outside the clone
# ($DEVPARITY_CACHE, default ~/.cache/devparity), reused while its package
# list is unchanged and remade when it changes. The clone's files (tracked
# and untracked-not-ignored) are copied to /src in the root, keeping the
# root's build/, and ccache is kept beside the root, so later runs build
# incrementally. /proc and
# /dev are mounted for the command and unmounted on exit, also on failure.
set -euo pipefail

clone="$(cd "$(dirname "$0")/.." && pwd)"
flavour=cpu
if_cached=0
root_only=0
command=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cuda) flavour=cuda ;;
    --if-cached) if_cached=1 ;;
    --root-only) root_only=1 ;;
    --) shift; command=("$@"); break ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "in_trixie: error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

if [ "$(id -u)" -ne 0 ]; then
  echo "in_trixie: error: must run as root (mmdebstrap, mount and chroot)" >&2
  exit 1
fi

mirror="${DEVPARITY_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
cache="${DEVPARITY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/devparity}"
root="$cache/trixie-$flavour"
mkdir -p "$cache"
exec 9>"$root.lock"
flock 9  # one run per root at a time

# The root's packages: setup.sh's list (so setup.sh inside finds nothing to
# install); the CUDA root swaps LibTorch and torch for the CUDA builds, adds the CUDA
# toolkit its CMake config needs, and declines cuDNN's download from NVIDIA.
mapfile -t packages < <("$clone/tools/setup.sh" --list)
components=main
if [ "$flavour" = cuda ]; then
  components="main contrib non-free"
  for i in "${!packages[@]}"; do
    case "${packages[$i]}" in
      libtorch-dev) packages[$i]=libtorch-cuda-dev ;;
      python3-torch) packages[$i]=python3-torch-cuda ;;
    esac
  done
  packages+=(nvidia-cuda-toolkit)
  [ ${#command[@]} -gt 0 ] || command=(bash -c \
    "tools/setup.sh && cmake --preset cuda && cmake --build --preset cuda && ctest --preset cuda")
fi
[ ${#command[@]} -gt 0 ] || command=(bash -c \
  "tools/setup.sh && cmake --preset release && cmake --build --preset release && ctest --preset release")

stamp="suite=trixie mirror=$mirror components=$components packages=${packages[*]}"
[ "$flavour" != cuda ] || stamp+=" cudnn_stub=$(sha256sum <"$clone/tools/cudnn_stub.sh" | cut -c1-16)"
# A list that only gained packages keeps the root: they are installed into it (a remade CUDA root is
# ~3 GB of downloads). Anything else - a package dropped, another mirror or stub - remakes it.
only_added() {
  local old="$1" new="$2" p
  local -a old_packages new_packages
  read -r -a old_packages <<<"$(sed -n 's/.* packages=\([^=]*\)\( cudnn_stub=.*\)\{0,1\}$/\1/p' <<<"$old")"
  read -r -a new_packages <<<"$(sed -n 's/.* packages=\([^=]*\)\( cudnn_stub=.*\)\{0,1\}$/\1/p' <<<"$new")"
  [ "${old%% packages=*}" = "${new%% packages=*}" ] || return 1
  [ "$(sed -n 's/.*\( cudnn_stub=.*\)$/\1/p' <<<"$old")" = "$(sed -n 's/.*\( cudnn_stub=.*\)$/\1/p' <<<"$new")" ] || return 1
  for p in "${old_packages[@]}"; do
    [[ " ${new_packages[*]} " == *" $p "* ]] || return 1
  done
  added=()
  for p in "${new_packages[@]}"; do
    [[ " ${old_packages[*]} " == *" $p "* ]] || added+=("$p")
  done
}
added=()
if [ -f "$root/.devparity-stamp" ] && [ "$(cat "$root/.devparity-stamp")" != "$stamp" ] &&
   only_added "$(cat "$root/.devparity-stamp")" "$stamp"; then
  echo "in_trixie: adding ${added[*]} to the $flavour trixie root in $root"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  mount -t proc proc "$root/proc"
  if chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
       sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"' in_trixie "${added[@]}"; then
    echo "$stamp" >"$root/.devparity-stamp"
  fi
  umount "$root/proc" 2>/dev/null || umount -l "$root/proc" || true
fi
if [ ! -f "$root/.devparity-stamp" ] || [ "$(cat "$root/.devparity-stamp")" != "$stamp" ]; then
  if [ "$if_cached" -eq 1 ]; then
    echo "in_trixie: no $flavour trixie root in $cache (or its package list changed); skipping as asked (--if-cached)"
    exit 0
  fi
  if ! command -v mmdebstrap >/dev/null 2>&1; then
    echo "in_trixie: installing mmdebstrap"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap
  fi
  echo "in_trixie: making the $flavour trixie root in $root (${#packages[@]} packages)"
  started=$SECONDS
  rm -rf "$root.new"
  hooks=()
  if [ "$flavour" = cuda ]; then
    # debconf is not installed yet: preseed its database file directly.
    hooks+=(--essential-hook='mkdir -p "$1/var/cache/debconf" && printf "Name: nvidia-cudnn/question\nTemplate: nvidia-cudnn/question\nValue: I Decline\nOwners: nvidia-cudnn\nFlags: seen\n\n" >>"$1/var/cache/debconf/config.dat"')
    hooks+=(--customize-hook="copy-in $clone/tools/cudnn_stub.sh /tmp" --customize-hook='chroot "$1" sh /tmp/cudnn_stub.sh')
  fi
  packages_csv="$(IFS=,; echo "${packages[*]}")"
  mmdebstrap --variant=apt --components="$components" --include="ca-certificates,$packages_csv" \
    --aptopt='APT::Install-Recommends "false"' "${hooks[@]}" trixie "$root.new" "$mirror"
  rm -rf "$root"
  mv "$root.new" "$root"
  echo "$stamp" >"$root/.devparity-stamp"
  echo "in_trixie: root made in $((SECONDS - started)) s"
else
  echo "in_trixie: reusing the $flavour trixie root in $root"
fi
[ "$root_only" -eq 0 ] || exit 0

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" || true
  done
}
trap cleanup EXIT
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount --rbind /dev "$root/dev" && mounted+=("$root/dev")
mount --make-rslave "$root/dev"
# ccache lives beside the root, so a remade root still builds warm.
mkdir -p "$cache/ccache-$flavour" "$root/var/cache/devparity-ccache"
mount --bind "$cache/ccache-$flavour" "$root/var/cache/devparity-ccache" &&
  mounted+=("$root/var/cache/devparity-ccache")
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# The shared data beside the clone (../shared: the Kornia releases, the CUDA goldens), read-only.
shared_env=()
if [ -d "$clone/../shared" ]; then
  mkdir -p "$root/shared"
  mount --bind "$clone/../shared" "$root/shared" && mounted+=("$root/shared") &&
    mount -o remount,bind,ro "$root/shared" 2>/dev/null || true
  shared_env=(DEVPARITY_SHARED=/shared)
fi

# This clone's files replace the root's copy; its build/ stays. Extracted
# with fresh times (-m): a file edited after the last copy but before that
# build's object was made would otherwise look older than the object, and
# ninja, which goes by times, would keep the stale object (ccache makes the
# rebuild of unchanged files cheap).
mkdir -p "$root/src"
find "$root/src" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
if git -C "$clone" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$clone" ls-files -z -co --exclude-standard \
    | tar -C "$clone" --null --ignore-failed-read -T - -cf - | tar -C "$root/src" -xmf -
else
  tar -C "$clone" --exclude=./build -cf - . | tar -C "$root/src" -xmf -
fi

echo "in_trixie: running in the $flavour root: ${command[*]}"
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin CCACHE_DIR=/var/cache/devparity-ccache \
  ${CI:+CI="$CI"} ${CTEST_PARALLEL_LEVEL:+CTEST_PARALLEL_LEVEL="$CTEST_PARALLEL_LEVEL"} "${shared_env[@]}" \
  /bin/sh -c 'cd /src && exec "$@"' in_trixie "${command[@]}"
