#!/usr/bin/env python3
"""How much slower the simulated device runs an audit than the CPU does.

Runs the same suite on `cpu`, on `vdev:1` with --vdev-sync and on `vdev:1` as it
runs by default, asynchronously (same seed, in this order, REPEAT times each, interleaved) and prints each
run's duration from its report and the ratios of the medians. Usage:
  tools/vdev_speed.py [--devparity BIN] [--repeat N] [--suite FILE]...
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


ROWS = {"cpu": ["--devices", "cpu"], "vdev:1 sync": ["--devices", "vdev:1", "--vdev-sync"],
        "vdev:1 async": ["--devices", "vdev:1"]}


def run_once(binary, suites, row, report):
    cmd = [binary, "run", *ROWS[row], "-q", "--report", report]
    for s in suites:
        cmd += ["--suite", s]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"vdev_speed: {' '.join(cmd)} exited {done.returncode}:\n{done.stdout}")
    with open(report) as f:
        summary = json.load(f)["summary"]
    return summary["duration_s"], summary["total"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devparity", default=os.path.join(ROOT, "build/release/tools/devparity"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--suite", action="append", default=[])
    args = ap.parse_args()
    if not os.access(args.devparity, os.X_OK):
        sys.exit(f"vdev_speed: no devparity binary at {args.devparity} (build first)")
    suites = args.suite or [os.path.join(ROOT, "cases/default.json")]
    times = {row: [] for row in ROWS}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            for device in times:
                seconds, trials = run_once(args.devparity, suites, device,
                                           os.path.join(tmp, f"{i}-{device.replace(':', '_').replace(' ', '_')}.json"))
                times[device].append(seconds)
                print(f"{device:12s} run {i + 1}: {trials} trials in {seconds:.2f} s", flush=True)
    cpu, vdev, asynchronous = (statistics.median(times[row]) for row in ROWS)
    print(f"median: cpu {cpu:.2f} s, vdev:1 sync {vdev:.2f} s, vdev:1 async {asynchronous:.2f} s; "
          f"sync vdev/cpu = {vdev / cpu:.2f}x, async/sync vdev = {asynchronous / vdev:.2f}x")


if __name__ == "__main__":
    main()
