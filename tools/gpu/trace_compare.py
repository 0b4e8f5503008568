#!/usr/bin/env python3
"""Runs a real library's tests under devparity's pytest plugin on a real GPU and on the simulated
device, and compares what the trace found on each (issue 55, item 5: they must agree).

    tools/gpu/trace_compare.py ARCHIVE OUT [--tests tests/augmentation] [--stub DIR] [--timeout S]
                               [--gpu cuda:0] [--keyword EXPR]

ARCHIVE is a release's source tarball (Kornia's, from ../shared/kornia, carried to the GPU machine).
Two pytest processes, one after the other, each with --devparity-trace and a session report:
  - GPU: `--device=cuda` (Kornia's option) and no --devparity-devices, so the simulated device is
    never installed in that process (Note [One accelerator per process]);
  - vdev: `--devparity-devices=cpu,vdev:1 --device=vdev:1`.
OUT gets both reports and JUnit files, their logs, and compare.json / compare.txt: per test (the
device in its id replaced by DEV), the outcome and the error findings on each device, and every
test where they disagree. Exit status 0 when both runs finished (whatever they found), 1 otherwise.
On a machine without CUDA the GPU run's tests skip: that is how the script is tried before a GPU
is lent.
"""

import argparse
import json
import os
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET


def extract(archive, work):
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(work, filter="data")
        else:
            tar.extractall(work)
    return os.path.join(work, os.path.basename(archive).split(".tar")[0])


def run(root, args, out, stub, timeout, label):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, stub, env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "devparity.pytest_plugin",
               "--devparity-trace", f"--devparity-report={out}/{label}.json", f"--junitxml={out}/{label}.xml",
               "--dtype=float32", "--continue-on-collection-errors", *args]
    started = time.time()
    with open(f"{out}/{label}.log", "w") as log:
        try:
            status = subprocess.run(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                    timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            status = "timeout"
    return {"label": label, "command": " ".join(command[3:]), "exit": status, "seconds": round(time.time() - started, 1)}


def outcomes(path, device):
    found = {}
    if not os.path.exists(path):
        return found
    for case in ET.parse(path).getroot().iter("testcase"):
        test = (case.get("classname", "") + "::" + case.get("name", "")).replace(device, "DEV")
        status = "pass"
        for tag in ("failure", "error", "skipped"):
            if case.find(tag) is not None:
                status = {"failure": "fail", "error": "error", "skipped": "skip"}[tag]
        found[test] = status
    return found


def junit_name(node_id):
    # pytest's "tests/a/test_b.py::TestC::test_d[p]" as JUnit names it: "tests.a.test_b.TestC::test_d[p]".
    parts = node_id.split("::")
    module = parts[0][:-3].replace("/", ".") if parts[0].endswith(".py") else parts[0].replace("/", ".")
    return ".".join([module] + parts[1:-1]) + "::" + parts[-1]


def errors(report_path, device):
    """{test id with DEV: sorted error finding kinds at their lines} from a session report."""
    if not os.path.exists(report_path):
        return {}
    import devparity

    found = {}
    for result in devparity.load_report(report_path)["results"]:
        kinds = sorted({f"{f['kind']} at {f.get('source', '')}" for c in result["checks"]
                        for f in c.get("findings", []) if f["severity"] == "error"})
        test = junit_name(result["id"]).replace(device, "DEV")
        found[test] = kinds
    return found


def compare(out, gpu, vdev):
    gpu_out, vdev_out = outcomes(f"{out}/gpu.xml", gpu.split(":")[0]), outcomes(f"{out}/vdev.xml", "vdev:1")
    gpu_err, vdev_err = errors(f"{out}/gpu.json", gpu.split(":")[0]), errors(f"{out}/vdev.json", "vdev:1")
    rows, disagree = [], []
    for test in sorted(set(gpu_out) | set(vdev_out)):
        if "DEV" not in test:
            continue
        row = {"test": test, "gpu": gpu_out.get(test), "vdev": vdev_out.get(test),
               "gpu_errors": gpu_err.get(test, []), "vdev_errors": vdev_err.get(test, [])}
        rows.append(row)
        ran_both = row["gpu"] not in (None, "skip") and row["vdev"] not in (None, "skip")
        if ran_both and (row["gpu"] != row["vdev"] or row["gpu_errors"] != row["vdev_errors"]):
            disagree.append(row)
    return rows, disagree


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive")
    parser.add_argument("out")
    parser.add_argument("--tests", default="tests/augmentation")
    parser.add_argument("--stub", default="")
    parser.add_argument("--timeout", type=float, default=1500)
    parser.add_argument("--gpu", default="cuda:0")
    parser.add_argument("--keyword", default="not compile and not dynamo")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = os.path.abspath(args.out)
    root = extract(os.path.abspath(args.archive), out)
    selection = [args.tests, "-k", args.keyword]
    runs = [run(root, [f"--device={args.gpu.split(':')[0]}", *selection], out, args.stub, args.timeout, "gpu"),
            run(root, ["--devparity-devices=cpu,vdev:1", "--device=vdev:1", *selection], out, args.stub,
                args.timeout, "vdev")]
    rows, disagree = compare(out, args.gpu, "vdev:1")
    counts = {side: {s: sum(1 for r in rows if r[side] == s) for s in ("pass", "fail", "error", "skip")}
              for side in ("gpu", "vdev")}
    summary = {"archive": os.path.basename(args.archive), "tests": args.tests, "runs": runs, "counts": counts,
               "disagree": disagree, "rows": rows}
    with open(f"{out}/compare.json", "w") as f:
        json.dump(summary, f, indent=1)
    lines = [f"{r['label']}: exit {r['exit']} in {r['seconds']} s ({r['command']})" for r in runs]
    lines += [f"{side}: " + ", ".join(f"{n} {s}" for s, n in counts[side].items()) for side in counts]
    lines.append(f"tests run on both whose outcome or error findings differ: {len(disagree)}")
    lines += [f"  {r['test']}: gpu {r['gpu']} {r['gpu_errors']}; vdev {r['vdev']} {r['vdev_errors']}"
              for r in disagree]
    with open(f"{out}/compare.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(r["exit"] in (0, 1) for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
