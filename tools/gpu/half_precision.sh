#!/usr/bin/env bash
# Issue 40's device check (Python only; nothing of ours is built): on the lent GPU machine,
#   1. tools/autocast_table.py on cuda: the conformance table's CUDA side (tests/data/autocast/);
#   2. tools/torchvision_goldens.py on cuda in float16 and bfloat16: the fixed set and a sweep, and
#      the fixed set on the same torch's CPU, packed as OUT/half_goldens.txz;
#   3. the autocast tests of the shipped Kornia releases on cuda (their tarballs and the kornia_rs
#      stub carried in .gpu-carry/), as JUnit. Make that folder here first, ignored by git:
#        echo /.gpu-carry/ >> .git/info/exclude; mkdir -p .gpu-carry
#        cp -r ../shared/kornia/kornia-v*.tar.xz ../shared/kornia/kornia_rs_stub .gpu-carry/
#      and name it in the device tool's `carry`.
# Writes OUT/summary.txt, logs.txt, autocast-cuda.json, half_goldens.txz and the JUnit files.
#   tools/gpu/half_precision.sh [OUT]     OUT: $OUT (the device tool's) or build/gpu-half
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${1:-${OUT:-$root/build/gpu-half}}
carry=${DEVPARITY_GPU_CARRY:-$root/.gpu-carry}
mkdir -p "$out"
work=$(mktemp -d)
log() { echo "$*" | tee -a "$out/summary.txt"; }
log "$(python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))' 2>&1)"
t0=$SECONDS
python3 tools/autocast_table.py --device cuda --out "$out/autocast-cuda.json" > "$work/autocast.log" 2>&1
log "autocast table: exit $? in $((SECONDS - t0)) s: $(tail -1 "$work/autocast.log")"
cat "$work/autocast.log" >> "$out/logs.txt"
t0=$SECONDS
mkdir -p "$work/g"
python3 tools/torchvision_goldens.py --device cuda --dtypes float16,bfloat16 --out "$work/g/fixed" > "$work/goldens.log" 2>&1
python3 tools/torchvision_goldens.py --device cuda --dtypes float16,bfloat16 --sweep 300 --seed 13 --out "$work/g/sweep" >> "$work/goldens.log" 2>&1
python3 tools/torchvision_goldens.py --device cpu --dtypes float16,bfloat16 --out "$work/g/fixed_cpu" >> "$work/goldens.log" 2>&1
tar -cJf "$out/half_goldens.txz" -C "$work/g" . 2>> "$work/goldens.log"
log "goldens in $((SECONDS - t0)) s: $(grep vectors "$work/goldens.log" | tr '\n' ' ')"
cat "$work/goldens.log" >> "$out/logs.txt"
for release in 0.8.1 0.7.1; do
  t0=$SECONDS
  mkdir -p "$work/k$release"
  tar -xJf "$carry/kornia-v$release.tar.xz" -C "$work/k$release"
  src=$(ls -d "$work/k$release"/kornia-*)
  tests=tests; [ -d "$src/tests" ] || tests=test
  (cd "$src" && PYTHONPATH="$carry/kornia_rs_stub:$src" timeout 240 python3 -m pytest "$tests" -k autocast \
     --device cuda --dtype float32,float16,bfloat16 -p no:cacheprovider -q -rfEs \
     --junitxml="$out/kornia-$release-autocast.xml") > "$work/kornia.log" 2>&1
  log "kornia $release autocast on cuda: exit $? in $((SECONDS - t0)) s: $(tail -1 "$work/kornia.log")"
  cat "$work/kornia.log" >> "$out/logs.txt"
done
rm -rf "$work"
