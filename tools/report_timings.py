#!/usr/bin/env python3
"""What post-processing the default audit's report costs (issue 41): its size, and the wall time
and peak memory of `diff`, `merge` of three shards, `html` and a run with `--baseline`.

    tools/report_timings.py [DEVPARITY] [--devices LIST] [--work DIR]

Runs the default audit twice (the second with another seed, so that `diff` has statistics that
moved) and in three shards, then times each command once in a fresh process (wall seconds, and
peak RSS from wait4). Prints a Markdown table; docs/performance.md has the figures of one run.
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
    rows += [
        ("diff (text)", *timed([args.devparity, "diff", full, other])),
        ("diff --format md", *timed([args.devparity, "diff", full, other, "--format", "md"])),
        ("merge of 3 shards", *timed([args.devparity, "merge", os.path.join(work, "merged.json"), *shards])),
        ("html", *timed([args.devparity, "html", full, os.path.join(work, "full.html")])),
    ]
    baseline_wall, baseline_mb = timed(small + ["--baseline", full])
    rows.append(("--baseline overhead (resize_up run)", baseline_wall - small_wall, baseline_mb))
    size = os.path.getsize(full) / 1e6
    print(f"report: {full}: {size:.1f} MB; work folder {work}\n")
    print("| step | wall s | peak MB |\n|---|---:|---:|")
    for label, wall, peak in rows:
        print(f"| {label} | {wall:.2f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
