#!/usr/bin/env bash
# Installs the Debian packages devparity needs to build and test, and only
# those that are missing: the same names on bookworm (LibTorch 1.13) and
# trixie (LibTorch 2.6). Idempotent: with everything present it says so and
# changes nothing. Runs apt-get update once, before installing.
#   tools/setup.sh          install what is missing
#   tools/setup.sh --list   print the package names (tools/in_trixie.sh uses them)
set -euo pipefail

packages=(
  # toolchain; clang and its runtime build the fuzz targets, and llvm's
  # llvm-symbolizer names the functions they reach
  cmake ninja-build g++ git ccache pkg-config clang libclang-rt-dev llvm
  # libraries (DESIGN.md, "Dependencies"); libjpeg-turbo's CMake config also
  # needs libjpeg62-turbo-dev's files, which --no-install-recommends leaves out
  libtorch-dev libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libfmt-dev
  libturbojpeg0-dev libjpeg62-turbo-dev libcli11-dev libvalijson-dev libspng-dev
  # tests: numpy loads the .npy files devparity writes; xmllint validates JUnit
  # XML; headless Chromium opens the HTML report; benchmarks: ratios.py
  python3 python3-numpy libxml2-utils chromium
  # the Python front (tests/python): Debian's torch, torchvision and pytest,
  # pytest-xdist (the plugin's report from parallel workers), and mypy (the
  # package's types, which its py.typed promises: `mypy --strict`)
  python3-torch python3-torchvision python3-pytest python3-pytest-xdist mypy
)

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
elif [ $# -gt 0 ]; then
  echo "setup: error: unknown argument '$1' (usage: tools/setup.sh [--list])" >&2
  exit 2
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
for p in "${packages[@]}"; do
  # The CUDA builds of LibTorch and torch (trixie contrib) stand in for the CPU ones.
  if [ "$p" = libtorch-dev ] && installed libtorch-cuda-dev; then continue; fi
  if [ "$p" = python3-torch ] && installed python3-torch-cuda; then continue; fi
  if ! installed "$p"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed; nothing to do"
  exit 0
fi

echo "setup: installing ${#missing[@]} missing package(s): ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "setup: error: run as root (or install sudo) to install: ${missing[*]}" >&2
  exit 1
fi
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
  "${missing[@]}"
echo "setup: done"
