#!/bin/sh
# Rewrites docs/transforms.md's transform table from `devparity list --markdown`
# (between the catalog:begin and catalog:end markers).
# Usage: tools/update_catalog_table.sh [path/to/devparity]
set -eu
cd "$(dirname "$0")/.."
bin=${1:-build/release/tools/devparity}
table=$(mktemp)
out=$(mktemp)
trap 'rm -f "$table" "$out"' EXIT
"$bin" list --markdown > "$table"
awk -v table="$table" '
  /<!-- catalog:begin/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- catalog:end -->/ { skip = 0 }
  !skip { print }
' docs/transforms.md > "$out"
cp "$out" docs/transforms.md
