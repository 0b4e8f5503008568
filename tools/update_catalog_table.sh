#!/bin/sh
# Rewrites the tables the docs embed from the registries: docs/transforms.md's
# transform table from `devparity list --markdown` (between the catalog:begin
# and catalog:end markers) and docs/perturbed-numerics.md's switch table from
# `devparity list --markdown=switches` (switches:begin, switches:end).
# Usage: tools/update_catalog_table.sh [path/to/devparity]
set -eu
cd "$(dirname "$0")/.."
bin=${1:-build/release/tools/devparity}
table=$(mktemp)
out=$(mktemp)
trap 'rm -f "$table" "$out"' EXIT
# embed PAGE MARKER FLAG: the table `list FLAG` prints, between PAGE's MARKER:begin and MARKER:end.
embed() {
  "$bin" list "$3" > "$table"
  awk -v table="$table" -v begin="<!-- $2:begin" -v end="<!-- $2:end -->" '
    index($0, begin) == 1 { print; while ((getline line < table) > 0) print line; skip = 1; next }
    index($0, end) == 1 { skip = 0 }
    !skip { print }
  ' "$1" > "$out"
  cp "$out" "$1"
}
embed docs/transforms.md catalog --markdown
embed docs/perturbed-numerics.md switches --markdown=switches
