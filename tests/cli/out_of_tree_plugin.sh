#!/bin/sh
# Installs devparity from BUILD into a temporary prefix, builds the example
# plugin out of tree against it with find_package(devparity), and audits the
# plugin with the installed executable: the clean transform and the custom
# JPEG operator pass, the plain-member twin fails on meta and vdev:1.
#   out_of_tree_plugin.sh BUILD_DIR SOURCE_DIR GENERATOR CXX_COMPILER
# (the generator and compiler of the main build: a machine with Ninja may
# have no make).
set -eu
build=$1
src=$2
generator=$3
cxx=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
cmake -S "$src/examples/plugin" -B "$work/build" -G "$generator" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
plugin="$work/build/libdevparity_example_plugin.so"
test -f "$plugin"

rc=0
(cd "$work" && NO_COLOR=1 "$work/prefix/bin/devparity" run --plugin "$plugin" \
    --suite "$src/examples/plugin/cases.json" --devices cpu,meta,vdev:1 --report r.json) \
    >"$work/run.log" 2>&1 || rc=$?
cat "$work/run.log"
fail() { echo "out_of_tree_plugin: $*" >&2; exit 1; }
[ "$rc" -eq 1 ] || fail "expected exit 1 (the faulty twin), got $rc"
grep -q "FAIL  gain_plain/example_channel_gain_plain/float32/meta/" "$work/run.log" || fail "the plain-member twin was not caught on meta"
grep -q "FAIL  gain_plain/example_channel_gain_plain/float32/vdev:1/" "$work/run.log" || fail "the plain-member twin was not caught on vdev:1"
# The clean subjects pass on every device: no failure, error or skip hidden
# among them; the faulty twin fails exactly on the two devices with the
# stale member and passes on the CPU.
# The report file is packed; a script reads it in full through `devparity unpack`.
"$work/prefix/bin/devparity" unpack "$work/r.json" "$work/full.json" >/dev/null || fail "unpack refused the report"
python3 - "$work/full.json" <<'PY' || fail "the verdicts above are not the expected ones"
import json, sys
report = json.load(open(sys.argv[1]))
bad = []
for r in report["results"]:
    key = (r["case"], r["device"])
    want = "fail" if r["case"] == "gain_plain" and r["device"] in ("meta", "vdev:1") else "pass"
    if r["status"] != want:
        bad.append(f"{r['id']}: {r['status']}, expected {want}: {r.get('message', '')}")
cases = {r["case"] for r in report["results"]}
if cases != {"gain", "gain_plain", "jpeg_op"}:
    bad.append(f"cases {sorted(cases)}")
print("\n".join(bad) if bad else f"{len(report['results'])} verdicts as expected")
sys.exit(1 if bad else 0)
PY
grep -q '"example_channel_gain_plain"' "$work/r.json" \
  || fail "the report does not list the plugin's transforms"
echo "out_of_tree_plugin: ok"
