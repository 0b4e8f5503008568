#!/bin/sh
# Run inside the CUDA trixie root (tools/in_trixie.sh --cuda makes it).
# Debian's cuDNN package (non-free nvidia-cudnn) downloads the library from
# NVIDIA when installed; where that is declined or unreachable,
# libtorch_cuda.so still names libcudnn.so.9. This makes a stand-in with
# every cudnn symbol LibTorch (and its Python module) imports, each aborting
# with its name if ever called, so the CUDA build links and its tests (Python
# ones too) load on a machine without a GPU (where no cuDNN call is
# reached). A real libcudnn.so.9 is left alone.
set -eu
lib=/usr/lib/x86_64-linux-gnu
real=$(readlink -f "$lib/libcudnn.so.9" 2>/dev/null || true)
if [ -n "$real" ] && [ -f "$real" ]; then
  echo "cudnn_stub: $lib/libcudnn.so.9 is installed; nothing to do"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Every library of the root that imports cuDNN: LibTorch's and, with
# python3-torch-cuda, libtorch_python (cudnnGetProperty and others).
for f in "$lib"/libtorch*.so*; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  nm -D --undefined-only "$f" 2>/dev/null | awk '$2 ~ /^cudnn/ { sub(/@.*/, "", $2); print $2 }'
done | sort -u >"$work/symbols"
{
  echo '#include <stdio.h>'
  echo '#include <stdlib.h>'
  printf '%s\n' 'static void stub(const char* name) { fprintf(stderr, "cuDNN stand-in (tools/cudnn_stub.sh): %s called\n", name); abort(); }'
  while read -r s; do printf 'void %s(void) { stub("%s"); }\n' "$s" "$s"; done <"$work/symbols"
} >"$work/cudnn_stub.c"
# LibTorch imports them under cuDNN's symbol version, named after its soname.
printf 'libcudnn.so.9 { global: *; };\n' >"$work/cudnn.map"
mkdir -p /usr/local/lib/cudnn-stub
gcc -shared -fPIC -O1 -Wl,-soname,libcudnn.so.9 -Wl,--version-script="$work/cudnn.map" \
  -o /usr/local/lib/cudnn-stub/libcudnn.so.9 "$work/cudnn_stub.c"
echo /usr/local/lib/cudnn-stub >/etc/ld.so.conf.d/cudnn-stub.conf
ldconfig
echo "cudnn_stub: /usr/local/lib/cudnn-stub/libcudnn.so.9 with $(wc -l <"$work/symbols") symbols"
