#!/usr/bin/env bash
# Issue 58's device check (Python only; nothing of ours is built): on the lent GPU machine, Kornia
# 0.8.1's numeric tests on cuda in float32 under its conftest (it sets
# set_float32_matmul_precision("high") on torch 2.x: TF32 matmuls), as JUnit, then again with TF32
# matmuls off after the conftest (tools/gpu/no_tf32.py): a test that fails in the first run and passes
# in the second fails on the GPU for TF32. The archive and the kornia_rs stub are carried in
# .gpu-carry/, as tools/gpu/half_precision.sh says. Afterwards, here:
#   tools/gpu/tf32_compare.py OUT tests/realsuites/kornia-v0.8.1.tsv
# compares them with the tests vdev lists as TF32 failures; copy OUT to docs/gpu-runs/DATE/.
#   tools/gpu/cuda_arithmetic.sh [OUT]   OUT: $OUT (the device tool's) or build/gpu-arith
#   DEVICE=cpu FOLDERS=tests/utils PYTHON=/usr/bin/python3 tools/gpu/cuda_arithmetic.sh   a rehearsal on the CPU
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${1:-${OUT:-$root/build/gpu-arith}}
carry=${DEVPARITY_GPU_CARRY:-$root/.gpu-carry}
device=${DEVICE:-cuda}
folders=${FOLDERS:-tests/geometry tests/augmentation/_3d tests/feature tests/sensors tests/integration tests/utils}
limit=${LIMIT_S:-250}
python=${PYTHON:-python3}
mkdir -p "$out"
work=$(mktemp -d)
log() { echo "$*" | tee -a "$out/summary.txt"; }
log "$("$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")' 2>&1)"
tar -xJf "$carry/kornia-v0.8.1.tar.xz" -C "$work"
src=$(ls -d "$work"/kornia-*)
for run in tf32 no_tf32; do
  t0=$SECONDS
  plugin=(); [ "$run" = no_tf32 ] && plugin=(-p no_tf32)
  # shellcheck disable=SC2086
  (cd "$src" && PYTHONPATH="$carry/kornia_rs_stub:$src:$root/tools/gpu" timeout "$limit" "$python" -m pytest $folders \
     "${plugin[@]}" --device "$device" --dtype float32 -p no:cacheprovider -q -rfE \
     --junitxml="$out/kornia-0.8.1-$run.xml") > "$work/$run.log" 2>&1
  log "kornia 0.8.1 on $device, $run: exit $? in $((SECONDS - t0)) s: $(tail -1 "$work/$run.log")"
  cat "$work/$run.log" >> "$out/logs.txt"
done
rm -rf "$work"
