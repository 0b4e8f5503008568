#!/usr/bin/env python3
"""How much slower the simulated device runs an audit than the CPU does.

Runs the same suite on `cpu` and on `vdev:1` (same seed, in this process
order, REPEAT times each, interleaved) and prints each run's duration from
its report and the ratio of the medians. Usage:
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


def run_once(binary, suites, device, report):
    cmd = [binary, "run", "--devices", device, "-q", "--report", report]
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
    times = {"cpu": [], "vdev:1": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            for device in times:
                seconds, trials = run_once(args.devparity, suites, device,
                                           os.path.join(tmp, f"{device.replace(':', '_')}-{i}.json"))
                times[device].append(seconds)
                print(f"{device:7s} run {i + 1}: {trials} trials in {seconds:.2f} s", flush=True)
    cpu, vdev = statistics.median(times["cpu"]), statistics.median(times["vdev:1"])
    print(f"median: cpu {cpu:.2f} s, vdev:1 {vdev:.2f} s; vdev/cpu = {vdev / cpu:.2f}x")


if __name__ == "__main__":
    main()
