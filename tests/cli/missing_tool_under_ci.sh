#!/bin/sh
# A check whose tool is missing skips (saying what to install) outside CI and
# fails under CI: run two of the cli tests that need a tool (xmllint,
# chromium) with every tool hidden from PATH, without and with CI=1, and
# once with the real PATH (where, under CI, the tools are installed).
#   missing_tool_under_ci.sh CLI_TESTS_BINARY
set -u
bin="$1"
filter='GateCli.JunitValidatesAgainstTheSchema:HtmlReport.InjectedScriptDoesNotRunInChromium'
empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$(env -u CI PATH="$empty" "$bin" --gtest_filter="$filter" 2>&1); rc=$?
echo "$out" | tail -6
[ "$rc" -eq 0 ] || fail "outside CI a missing tool must skip, not fail (exit $rc)"
[ "$(echo "$out" | grep -c '^\[  SKIPPED \] ')" -ge 2 ] || fail "both tests must say SKIPPED"
echo "$out" | grep -q "xmllint is not installed (Debian: libxml2-utils" || fail "the skip must say what to install"

out=$(CI=1 PATH="$empty" "$bin" --gtest_filter="$filter" 2>&1); rc=$?
echo "$out" | tail -6
[ "$rc" -ne 0 ] || fail "under CI a missing tool must fail the test"
[ "$(echo "$out" | grep -c 'MISSING under CI')" -ge 2 ] || fail "both tests must fail saying MISSING under CI"

if [ -n "${CI:-}" ]; then
  out=$("$bin" --gtest_filter="$filter" 2>&1); rc=$?
  echo "$out" | tail -3
  [ "$rc" -eq 0 ] || fail "with the tools on PATH under CI the two tests must pass"
  echo "$out" | grep -q '^\[  SKIPPED \]' && fail "under CI with the tools installed nothing may skip"
fi
echo "PASS: skipped outside CI, failed under CI"
