#!/usr/bin/env bash
# The device check, one script for a lent GPU machine (torch with CUDA,
# nvcc, CMake and ninja there; none of our other C++ dependencies): builds
# devparity against the torch of $PYTHON (default python3) with the folder
# tools/gpu/bundle.sh made (carried), then runs what CI cannot:
#   1. the default audit on cpu and cuda:0 (JSON and JUnit reports),
#   2. every test but the real suites (the CUDA rows, the tracer on CUDA, the
#      JPEG hand-over on real streams, the Python suites on the real device),
# and writes each step's log, the reports and a summary to OUT.
#   tools/gpu/check.sh [OUT]      OUT: $OUT (the device tool's) or build/gpu-check
#   DEVPARITY_GPU_AUDIT_ONLY=1 tools/gpu/check.sh [OUT]
#                                 step 1 alone, with the command-line tool alone
#                                 built (a few minutes of a lent machine's time)
# Works on a machine without a GPU too (the CUDA rows are then skipped, each
# with its reason): that is how it is tried before a GPU is lent.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
deps=${DEVPARITY_GPU_DEPS:-$root/.gpu-deps}
out=${1:-${OUT:-$root/build/gpu-check}}
python=${PYTHON:-python3}
build=${DEVPARITY_GPU_BUILD:-$root/build/gpu}
jobs=$(nproc)
mkdir -p "$out"
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
step() {  # step NAME LOG COMMAND...: runs, logs, notes the exit code
  local name=$1 log=$2
  shift 2
  local t0=$SECONDS
  "$@" > "$out/$log" 2>&1
  local rc=$?
  note "$name: exit $rc in $((SECONDS - t0)) s (log $log)"
  return $rc
}

if [ ! -d "$deps/usr" ]; then
  note "no dependency folder at $deps: run tools/gpu/bundle.sh here and carry it"
  exit 2
fi
torch_prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)') || {
  note "$python cannot import torch"
  exit 2
}
note "torch: $("$python" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, "devices", torch.cuda.device_count())' 2>&1)"
command -v nvidia-smi > /dev/null && note "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"

audit_only=${DEVPARITY_GPU_AUDIT_ONLY:-0}
tests=ON target=()
if [ "$audit_only" = 1 ]; then tests=OFF target=(--target devparity); fi
step configure configure.log cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$deps/usr;$torch_prefix" -DDEVPARITY_BUILD_BENCH=OFF -DDEVPARITY_BUILD_TESTS=$tests \
  -DDEVPARITY_PYTHON="$(command -v "$python")" || { tail -30 "$out/configure.log"; exit 1; }
grep -E "devparity:|Found (fmt|nlohmann|CLI11|GTest|valijson|libjpeg)" "$out/configure.log" >> "$summary"
step build build.log cmake --build "$build" -j "$jobs" "${target[@]}" || { tail -40 "$out/build.log"; exit 1; }

step audit audit.log "$build/tools/devparity" run --devices cpu,cuda:0 --seed 5 \
  --report "$out/default-cuda.json" --junit "$out/default-cuda.xml"
tail -3 "$out/audit.log" >> "$summary"
if [ "$audit_only" = 1 ]; then
  gzip -f "$out/default-cuda.json" "$out/default-cuda.xml"  # what comes back is limited to 16 MiB a file
  cat "$summary"
  exit 0
fi
step tests ctest.log ctest --test-dir "$build" -LE realsuite -j "$jobs" --output-on-failure --timeout 600
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$out/ctest.log" >> "$summary"
# What ran on the device and what skipped, by name (the CUDA and hand-over tests).
grep -E "Cuda|CUDA|cuda|HandOver|Handover|Python\." "$out/ctest.log" | grep -E "Passed|Failed|Skipped" \
  > "$out/device-tests.txt"
note "device-facing tests: $(grep -c Passed "$out/device-tests.txt") passed, $(grep -c Failed "$out/device-tests.txt") failed, $(grep -c Skipped "$out/device-tests.txt") skipped (device-tests.txt)"
cat "$summary"
