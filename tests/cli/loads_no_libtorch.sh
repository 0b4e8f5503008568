#!/bin/sh
# Usage: loads_no_libtorch.sh EXECUTABLE REPORT
# Runs `EXECUTABLE diff REPORT REPORT` and fails, naming the library, if the
# process loaded any of LibTorch's (libtorch*.so): the report commands run
# without it (Note [Report commands without LibTorch]). The dynamic loader's
# own trace (LD_DEBUG=files) sees libraries opened later by dlopen too.
set -u
exe=$1 report=$2
trace=$(LD_DEBUG=files "$exe" diff "$report" "$report" 2>&1 >/dev/null)
rc=$?
loaded=$(printf '%s\n' "$trace" | sed -n 's/.*file=\(libtorch[^ ]*\).*/\1/p' | sort -u | tr '\n' ' ')
if [ -n "$loaded" ]; then
  echo "$exe diff loads LibTorch: $loaded"
  exit 1
fi
if [ "$rc" -ne 0 ]; then
  echo "$exe diff exited $rc:"
  printf '%s\n' "$trace" | grep -v '^ *[0-9]*:' | tail -5
  exit 1
fi
echo "$exe diff ran without LibTorch"
