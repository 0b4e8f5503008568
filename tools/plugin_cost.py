#!/usr/bin/env python3
"""Where the pytest plugin's time goes on a selection of a suite's tests, one configuration at a time.

Runs the selection (pytest arguments after `--`) without devparity, then with the plugin on
`cpu,vdev:1` untraced and traced, synchronous and asynchronous, each in its own process one after
another, and prints the seconds of the tests (setup, call and teardown, from JUnit XML) on the cpu rows and on
the vdev:1 rows, and each vdev:1 total over the cpu rows' without devparity. For a suite
parametrized with "cpu" and "cuda" (torchvision's), run in its folder:

    tools/plugin_cost.py -- test/test_transforms_tensor.py -k randaugment
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

CONFIGURATIONS = [
    ("without devparity", ["-p", "no:devparity.pytest_plugin"]),
    ("plugin, vdev:1 synchronous", ["--devparity-vdev-sync"]),
    ("plugin (its defaults: asynchronous)", []),
    ("traced, vdev:1 synchronous", ["--devparity-trace", "--devparity-vdev-sync"]),
    ("traced (the defaults with --devparity-trace)", ["--devparity-trace"]),
]
ROW = re.compile(r"[\[-](cpu|cuda|vdev(?::|_)?\d*)[\]-]")


def seconds(selection, extra):
    plugin = [] if "no:devparity.pytest_plugin" in extra else ["-p", "devparity.pytest_plugin",
                                                                "--devparity-devices=cpu,vdev:1"]
    # Each test's own seconds from JUnit XML (setup, call and teardown): pytest's --durations hides
    # those under 5 ms, and most of a suite's tests are that short.
    with tempfile.TemporaryDirectory() as folder:
        xml = os.path.join(folder, "times.xml")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin, *extra,
                   f"--junitxml={xml}", *selection]
        run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode not in (0, 1) or not os.path.isfile(xml):
            raise SystemExit(f"plugin_cost: error: pytest exited {run.returncode}:\n{run.stdout[-3000:]}")
        cases = ET.parse(xml).getroot().iter("testcase")
        cpu = vdev = 0.0
        # Without devparity the "cuda" rows are skips, not vdev:1's (a CUDA torch without a GPU spends
        # milliseconds deciding so).
        device_rows = ("vdev",) if not plugin else ("vdev", "cuda")
        for case in cases:
            row = ROW.search(case.get("name", ""))
            seconds_taken = float(case.get("time") or 0)
            if row and row.group(1) == "cpu":
                cpu += seconds_taken
            elif row and row.group(1).startswith(device_rows):
                vdev += seconds_taken
    return cpu, vdev


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("selection", nargs=argparse.REMAINDER, help="-- then pytest's arguments")
    args = parser.parse_args()
    selection = args.selection[1:] if args.selection[:1] == ["--"] else args.selection
    if not selection:
        parser.error("give the tests to run after --")
    base = None
    print(f"{'configuration':48} {'cpu rows':>9} {'vdev:1 rows':>12} {'vdev:1 / cpu':>13}")
    for name, extra in CONFIGURATIONS:
        cpu, vdev = seconds(selection, extra)
        base = cpu if base is None else base
        ratio = f"{vdev / base:.2f}x" if base and vdev else "-"
        print(f"{name:48} {cpu:8.2f}s {vdev:11.2f}s {ratio:>13}", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
