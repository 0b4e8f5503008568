#!/usr/bin/env bash
# Gathers the C++ dependencies a machine with only LibTorch, CMake, ninja and
# a compiler lacks (the lent GPU machine: fmt, nlohmann-json, CLI11,
# valijson, GoogleTest, Google Benchmark, libspng, libjpeg-turbo) from
# Debian's packages, unpacked into one folder that travels with the tree
# (the device tool's `carry`):
#   tools/gpu/bundle.sh [DIR]     DIR defaults to .gpu-deps (ignored by git)
# The packages are this machine's Debian release's (apt-get download: no
# root needed for the download, an `apt-get update` first where the lists
# are empty). Their CMake and pkg-config files are relocatable, so
# tools/gpu/check.sh finds them with CMAKE_PREFIX_PATH=DIR/usr.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-.gpu-deps}
packages=(
  nlohmann-json3-dev libfmt-dev libfmt9 libcli11-dev libvalijson-dev
  libgtest-dev libgmock-dev libbenchmark-dev libbenchmark1debian
  libturbojpeg0-dev libturbojpeg0 libjpeg62-turbo-dev libjpeg62-turbo
  libspng-dev libspng0
)
debs=$(mktemp -d)
trap 'rm -rf "$debs"' EXIT
(cd "$debs" && apt-get download -qq "${packages[@]}") || {
  echo "bundle: apt-get download failed (run 'apt-get update' once first)" >&2
  exit 1
}
rm -rf "$dir"
mkdir -p "$dir"
for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$dir"; done
# libjpeg-turbo's CMake files name their libraries and headers by absolute
# paths under /usr: made relative to the files themselves, they travel.
for f in "$dir"/usr/lib/*/cmake/libjpeg-turbo/*.cmake; do
  sed -i -e 's|"/usr/lib/x86_64-linux-gnu/cmake/libjpeg-turbo"|"${CMAKE_CURRENT_LIST_DIR}"|g' \
    -e 's|/usr/lib/x86_64-linux-gnu/|${CMAKE_CURRENT_LIST_DIR}/../../|g' \
    -e 's|"/usr/include"|"${CMAKE_CURRENT_LIST_DIR}/../../../../include"|g' "$f"
done
# Documentation is most of the weight and none of the use.
rm -rf "$dir/usr/share/doc" "$dir/usr/share/man" "$dir/usr/src"
echo "bundle: ${#packages[@]} packages in $dir ($(du -sh "$dir" | cut -f1))"
