#!/usr/bin/env python3
"""What post-processing the default audit's report costs (issue 41): its size, and the wall time
and peak memory of `diff`, `merge` of three shards, `html` and a run with `--baseline`.

    tools/report_timings.py [DEVPARITY] [--devices LIST] [--work DIR] [--compare OTHER_DEVPARITY]

Runs the default audit twice (the second with another seed, so that `diff` has statistics that
moved) and in three shards, then times each command once in a fresh process (wall seconds, and
peak RSS from wait4). Prints a Markdown table; docs/performance.md has the figures of one run.
With --compare, another build's `devparity` (its report commands need no LibTorch: a copy of
the executable alone will do) runs diff, merge and html on the same reports right after each of
this build's, and the table gains its columns and the ratios.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time


def timed(argv, ok=(0, 1)):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        sys.exit(f"report_timings: {' '.join(argv)} exited {code}: {proc.stderr.read().decode()[-800:]}")
    return wall, usage.ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("devparity", nargs="?", default="build/release/tools/devparity")
    parser.add_argument("--devices", default="auto", help="the audit's --devices (default: auto)")
    parser.add_argument("--work", default=None, help="folder for the reports (default: a temporary one)")
    parser.add_argument("--compare", default=None, help="another build's devparity, for diff, merge and html")
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="report-timings-")
    os.makedirs(work, exist_ok=True)
    run = [args.devparity, "run", "--devices", args.devices, "-q", "--progress-s", "0"]
    full, other = os.path.join(work, "full.json"), os.path.join(work, "other.json")
    rows = [("run: the default audit", *timed(run + ["--report", full]))]
    timed(run + ["--report", other, "--seed", "1"])
    shards = []
    for i in range(3):
        shards.append(os.path.join(work, f"shard{i}.json"))
        timed(run + ["--report", shards[-1], "--shard", f"{i}/3"])
    small = run + ["--filter", "resize_up/*", "--report", os.path.join(work, "small.json")]
    small_wall, _ = timed(small)
    commands = [
        ("diff (text)", lambda d: [d, "diff", full, other]),
        ("diff --format md", lambda d: [d, "diff", full, other, "--format", "md"]),
        ("merge of 3 shards", lambda d: [d, "merge", os.path.join(work, "merged.json"), *shards]),
        ("html", lambda d: [d, "html", full, os.path.join(work, "full.html")]),
    ]
    compared = {}
    for label, argv in commands:
        rows.append((label, *timed(argv(args.devparity))))
        if args.compare:
            compared[label] = timed(argv(args.compare))
    baseline_wall, baseline_mb = timed(small + ["--baseline", full])
    rows.append(("--baseline overhead (resize_up run)", baseline_wall - small_wall, baseline_mb))
    size = os.path.getsize(full) / 1e6
    print(f"report: {full}: {size:.1f} MB; work folder {work}\n")
    if not args.compare:
        print("| step | wall s | peak MB |\n|---|---:|---:|")
        for label, wall, peak in rows:
            print(f"| {label} | {wall:.2f} | {peak:.0f} |")
        return
    print(f"| step | wall s | peak MB | {args.compare}: wall s | peak MB | wall ratio | peak ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, wall, peak in rows:
        if label in compared:
            other_wall, other_peak = compared[label]
            print(f"| {label} | {wall:.2f} | {peak:.0f} | {other_wall:.2f} | {other_peak:.0f} | "
                  f"{wall / other_wall:.2f} | {peak / other_peak:.2f} |")
        else:
            print(f"| {label} | {wall:.2f} | {peak:.0f} | | | | |")


if __name__ == "__main__":
    main()
