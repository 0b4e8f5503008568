#!/usr/bin/env bash
# The device check, one script for a lent GPU machine (torch with CUDA,
# nvcc, CMake and ninja there; none of our other C++ dependencies): builds
# devparity against the torch of $PYTHON (default python3) with the folder
# tools/gpu/bundle.sh made (carried), then runs what CI cannot, each step
# logged, its reports kept in OUT, and a summary written:
#   audit     the default audit on cpu,cuda:0 (JSON and JUnit)
#   split     the default audit on cpu,cuda:0,vdev:1: the vdev rows in a worker
#             process of their own (Note [One accelerator per process])
#   jpeg      the JPEG hand-over under threads on real streams (cases/jpeg_stress.json)
#   tests     every test but the real suites (the CUDA rows, the tracer on
#             CUDA, the Python suites on the real device)
#   kornia    Kornia 0.8.1's augmentation tests under the plugin's trace on
#             cuda:0 and on vdev:1, the findings compared (tools/gpu/trace_compare.py;
#             the archive and stub carried in .gpu-carry/, as tools/gpu/half_precision.sh says)
#   tools/gpu/check.sh [OUT]      OUT: $OUT (the device tool's) or build/gpu-check
#   DEVPARITY_GPU_STEPS="audit split" tools/gpu/check.sh [OUT]   the steps named, in this order
#   DEVPARITY_GPU_BUILT=1 DEVPARITY_GPU_BUILD=build/release ...   no configure or build: the
#                                 steps against a build made already (a rehearsal on the CPU)
#   DEVPARITY_GPU_AUDIT_ONLY=1 tools/gpu/check.sh [OUT]
#                                 the command-line tool alone built, and the audit
# Works on a machine without a GPU too (the CUDA rows are then skipped, each
# with its reason): that is how it is tried before a GPU is lent. Copy OUT's
# summary, JUnit files and compare.txt to docs/gpu-runs/DATE/ afterwards.
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

built=${DEVPARITY_GPU_BUILT:-0}  # 1: $build is built already (a rehearsal against build/release)
if [ "$built" != 1 ] && [ ! -d "$deps/usr" ]; then
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
steps=${DEVPARITY_GPU_STEPS:-audit split jpeg tests kornia}
carry=${DEVPARITY_GPU_CARRY:-$root/.gpu-carry}
kornia=${DEVPARITY_GPU_KORNIA:-0.8.1}  # the release of the GPU machine's torch series
tests=ON target=()
if [ "$audit_only" = 1 ]; then tests=OFF target=(--target devparity) steps=audit; fi
if [ "$built" != 1 ]; then
  step configure configure.log cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$deps/usr;$torch_prefix" -DDEVPARITY_BUILD_BENCH=OFF -DDEVPARITY_BUILD_TESTS=$tests \
    -DDEVPARITY_PYTHON="$(command -v "$python")" || { tail -30 "$out/configure.log"; exit 1; }
  grep -E "devparity:|Found (fmt|nlohmann|CLI11|GTest|valijson|libjpeg)" "$out/configure.log" >> "$summary"
  step build build.log cmake --build "$build" -j "$jobs" "${target[@]}" || { tail -40 "$out/build.log"; exit 1; }
fi

cli=$build/tools/devparity
# An audit's totals by device, from its report (devparity.load_report).
totals() {
  PYTHONPATH="$build/python" "$python" - "$1" <<'PY' 2>&1
import collections, sys, devparity
rep = devparity.load_report(sys.argv[1])
by = collections.defaultdict(collections.Counter)
for r in rep["results"]:
    by[r["device"]][r["status"]] += 1
print("; ".join(f"{d}: " + ", ".join(f"{n} {s}" for s, n in sorted(c.items())) for d, c in sorted(by.items())),
      "| worker_devices", rep["run"].get("worker_devices"), "| vdev_installed", rep["environment"].get("vdev_installed"),
      "| accelerator", rep["environment"].get("accelerator"))
PY
}
for s in $steps; do
  case $s in
    audit)
      step audit audit.log "$cli" run --devices cpu,cuda:0 --seed 5 --report "$out/default-cuda.json" \
        --junit "$out/default-cuda.xml"
      tail -3 "$out/audit.log" >> "$summary"; note "  $(totals "$out/default-cuda.json")" ;;
    split)
      step split split.log "$cli" run --devices cpu,cuda:0,vdev:1 --seed 5 --report "$out/default-split.json" \
        --junit "$out/default-split.xml"
      tail -3 "$out/split.log" >> "$summary"; note "  $(totals "$out/default-split.json")" ;;
    jpeg)
      step jpeg jpeg.log "$cli" run --suite cases/jpeg_stress.json --devices cpu,cuda:0 --report "$out/jpeg-cuda.json" \
        --junit "$out/jpeg-cuda.xml"
      tail -3 "$out/jpeg.log" >> "$summary"; note "  $(totals "$out/jpeg-cuda.json")" ;;
    tests)
      step tests ctest.log ctest --test-dir "$build" -LE realsuite -j "$jobs" --output-on-failure --timeout 600
      grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$out/ctest.log" >> "$summary"
      # What ran on the device and what skipped, by name (the CUDA and hand-over tests).
      grep -E "Cuda|CUDA|cuda|HandOver|Handover|Python\.|AcceleratorSplit" "$out/ctest.log" | grep -E "Passed|Failed|Skipped" \
        > "$out/device-tests.txt"
      note "device-facing tests: $(grep -c Passed "$out/device-tests.txt") passed, $(grep -c Failed "$out/device-tests.txt") failed, $(grep -c Skipped "$out/device-tests.txt") skipped (device-tests.txt)" ;;
    kornia)
      if [ ! -f "$carry/kornia-v$kornia.tar.xz" ]; then
        note "kornia: no $carry/kornia-v$kornia.tar.xz (carry it: tools/gpu/half_precision.sh says how)"
        continue
      fi
      step kornia kornia.log env PYTHONPATH="$build/python" "$python" tools/gpu/trace_compare.py \
        "$carry/kornia-v$kornia.tar.xz" "$out/kornia" --stub "$carry/kornia_rs_stub"
      cat "$out/kornia/compare.txt" >> "$summary"
      rm -rf "$out/kornia/kornia-v$kornia" ;;
    *) note "unknown step '$s' (audit split jpeg tests kornia)" ;;
  esac
done
for f in "$out"/*.json "$out"/*.xml; do [ -f "$f" ] && gzip -f "$f"; done  # what comes back is limited a file
cat "$summary"
