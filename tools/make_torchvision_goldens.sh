#!/usr/bin/env bash
# Remakes tests/transforms/goldens/torchvision from the real torchvision 0.21
# (torch 2.6) in the trixie root: runs tools/torchvision_goldens.py there and
# copies its output back into this clone. As root (see tools/in_trixie.sh).
set -euo pipefail
clone="$(cd "$(dirname "$0")/.." && pwd)"
cache="${DEVPARITY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/devparity}"
dest="$clone/tests/transforms/goldens/torchvision"
"$clone/tools/in_trixie.sh" -- python3 tools/torchvision_goldens.py --out /src/build/torchvision_goldens
mkdir -p "$dest"
rm -f "$dest"/*.npy "$dest"/manifest.json
cp "$cache/trixie-cpu/src/build/torchvision_goldens/"* "$dest/"
echo "goldens: $(ls "$dest" | wc -l) files in $dest"
