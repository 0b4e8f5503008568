#!/usr/bin/env python3
"""Runs a real library's whole test suite on the CPU and on the simulated device, and compares.

    tools/real_suite.py ARCHIVE EXPECTED [--work DIR] [--timeout S] [--stub DIR] [--max-warned 0.05]
                        [--random-sweep N] [--vdev-sync]

ARCHIVE is a release's source tarball (../shared/kornia/kornia-v0.7.1.tar.xz); EXPECTED a TSV of
the tests that fail on a real GPU too (test id with DEV for the device, a tab, the cause). The
suite runs twice at once (the two cores of a CI machine): `--device cpu`, and `--device vdev:1`
under the tracer with a session report. It fails, naming each test, on:
  - a test that fails on vdev:1 alone and is not in EXPECTED (a false failure of the simulator or
    the tracer, or a real one nobody listed);
  - an error finding on a test that is not in EXPECTED;
  - warnings on more than --max-warned of the traced tests (the trace must stay quiet), counted as
    the plugin gives them: once per line of code, on the first test that runs it.
It prints the CPU seconds of both runs and their ratio, and the listed tests that now pass.
The CPU run's outcomes are kept in the cache ($DEVPARITY_CACHE, default ~/.cache/devparity,
real-suites/) under a key of the archive, the stub, torch, Python and devparity's Python sources,
and reused while the key holds (--cpu-run always runs it regardless): the CPU row does not depend
on the simulator, and it is half of the suite's cost.
vdev:1 runs asynchronously, as the plugin runs it by default (races fail tests); --vdev-sync runs
it synchronously, for the cost of the asynchronous device (run both and compare the traced CPU seconds).
"""

import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import resource
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET

DEVICE = "vdev:1"


def extract(archive, work):
    name = os.path.basename(archive).split(".tar")[0]
    root = os.path.join(work, name)
    stamp = os.path.join(root, ".extracted")
    if not os.path.exists(stamp):
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(work, filter="data")
            else:
                tar.extractall(work)
        open(stamp, "w").close()
    return root


def tests_folder(root):
    return next(d for d in ("tests", "test") if os.path.isdir(os.path.join(root, d)))


def start(root, device, out, extra, stub):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, stub, env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "devparity.pytest_plugin",
               f"--devparity-devices=cpu,{DEVICE}", f"--device={device}", "--dtype=float32",
               f"--junitxml={out}.xml", "--continue-on-collection-errors",
               # torch.compile does not run on the simulated device (the plugin skips those tests
               # there): on the CPU alone they would only cost minutes.
               "-k", "not compile and not dynamo", tests_folder(root), *extra]
    log = open(out + ".log", "w")
    return subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT), log


def _hash_tree(digest, folder, suffixes=None):
    for base, dirs, files in sorted(os.walk(folder)):
        dirs.sort()
        for name in sorted(files):
            if suffixes is None or name.endswith(suffixes):
                digest.update(name.encode())
                with open(os.path.join(base, name), "rb") as f:
                    digest.update(f.read())


def cpu_cache_path(archive, stub):
    """Where the CPU run's outcomes of this archive are kept: keyed by everything they depend on."""
    import torch

    digest = hashlib.sha256()
    with open(archive, "rb") as f:
        digest.update(f.read())
    if stub and os.path.isdir(stub):
        _hash_tree(digest, stub)
    digest.update(f"{torch.__version__} {sys.version}".encode())
    spec = importlib.util.find_spec("devparity")
    if spec and spec.submodule_search_locations:
        _hash_tree(digest, list(spec.submodule_search_locations)[0], (".py",))
    cache = os.environ.get("DEVPARITY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "devparity")
    name = os.path.basename(archive).split(".tar")[0]
    return os.path.join(cache, "real-suites", f"{name}-cpu-{digest.hexdigest()[:16]}")


def wait(process, log, deadline):
    # os.wait4 gives each child's own CPU seconds, though both run at once.
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            log.close()
            return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime
        if time.time() > deadline:
            process.kill()
            log.close()
            raise SystemExit(f"real_suite: error: {log.name} ran past its timeout")
        time.sleep(0.5)


def outcomes(path, device, times=None):
    result = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        test = (case.get("classname", "") + "::" + case.get("name", "")).replace(device, "DEV")
        status = "pass"
        for tag in ("failure", "error", "skipped"):
            element = case.find(tag)
            if element is not None:
                status = tag
                break
        result[test] = status
        if times is not None:
            times[test] = float(case.get("time") or 0)
    return result


def time_on_both(cpu, traced, cpu_times, traced_times):
    # The tests that ran on both rows (the plugin skips torch.compile tests on the simulated device,
    # and they are the costliest on the CPU): their own seconds, without collection.
    both = [t for t, s in traced.items() if s != "skipped" and cpu.get(t) not in (None, "skipped")]
    return len(both), sum(cpu_times[t] for t in both), sum(traced_times[t] for t in both)


def expected_failures(path):
    listed = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            test, _, cause = line.rstrip("\n").partition("\t")
            if not cause.strip():
                raise SystemExit(f"real_suite: error: {path}:{number}: a listed failure needs its cause after a tab")
            listed[test.strip()] = cause.strip()
    return listed


def junit_id(result_id):
    # pytest's node id "test/a/test_b.py::TestC::test_d[p]" as junit names it: "test.a.test_b.TestC::test_d[p]".
    path, _, rest = result_id.partition("::")
    module = path[:-3].replace("/", ".") if path.endswith(".py") else path
    cls, _, name = rest.rpartition("::")
    return (f"{module}.{cls}" if cls else module) + "::" + name


def judge(cpu, traced, report, listed, max_warned):
    failed = ("failure", "error")
    problems = []
    only_on_device = sorted(t for t, s in traced.items() if s in failed and cpu.get(t) not in failed)
    for test in only_on_device:
        if test not in listed:
            problems.append(f"fails on {DEVICE} only and is not a listed GPU failure: {test}")
    for test in sorted(listed):
        if test not in only_on_device:
            print(f"real_suite: note: listed, but does not fail on {DEVICE} alone now: {test}")
    warned = raw_warned = 0
    seen = set()  # the plugin gives a warning once per session, on the first test at its line
    for result in report["results"]:
        test = junit_id(result["id"]).replace(DEVICE, "DEV")
        findings = [f for check in result.get("checks", []) for f in check.get("findings", [])]
        sites = {(f["kind"], f.get("op", ""), f.get("source", "")) for f in findings if f["severity"] == "warning"}
        raw_warned += bool(sites)
        warned += bool(sites - seen)
        seen |= sites
        for f in findings:
            if f["severity"] == "error" and test not in listed:
                problems.append(f"error finding on a test that is not a listed GPU failure: {test}: "
                                f"{f['kind']} at {f.get('source', '?')}: {f.get('message', '')[:200]}")
    traced_count = max(1, len(report["results"]))
    share = warned / traced_count
    print(f"real_suite: warnings on {warned} of {traced_count} traced tests ({100 * share:.1f}%; {len(seen)} lines, "
          f"found on {raw_warned} tests)")
    if share > max_warned:
        problems.append(f"warnings on {100 * share:.1f}% of the traced tests, over {100 * max_warned:.0f}%")
    return only_on_device, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("expected")
    parser.add_argument("--work", default="build/realsuites")
    parser.add_argument("--stub", default="", help="a folder put on PYTHONPATH (Kornia's kornia_rs stand-in)")
    parser.add_argument("--timeout", type=float, default=1200)
    parser.add_argument("--max-warned", type=float, default=0.05)
    parser.add_argument("--random-sweep", type=int, default=None,
                        help="--devparity-random-sweep for the traced run (default: the plugin's own, off; each "
                             "rerun of a random test costs a whole run of it)")
    parser.add_argument("--cpu-run", choices=("cache", "always"), default=os.environ.get("DEVPARITY_REAL_SUITE_CPU", "cache"),
                        help="cache (the default): reuse the CPU run's outcomes while their key holds; always: run it")
    parser.add_argument("--vdev-sync", action="store_true",
                        help="run vdev:1 synchronously (--devparity-vdev-sync) instead of as the plugin does by default")
    args = parser.parse_args()
    if not os.path.isfile(args.archive):
        message = f"real_suite: no {args.archive} (the shared releases of real suites)"
        if os.environ.get("CI"):
            raise SystemExit("MISSING: " + message[len("real_suite: "):])
        print("SKIPPED: " + message[len("real_suite: "):])
        return 0
    listed = expected_failures(args.expected)
    os.makedirs(args.work, exist_ok=True)
    root = extract(args.archive, os.path.abspath(args.work))
    out = os.path.join(os.path.abspath(args.work), os.path.basename(root))
    report_path = out + "-trace.json"
    started = time.time()
    deadline = started + args.timeout
    cached = cpu_cache_path(args.archive, args.stub) if args.cpu_run == "cache" else None
    reuse = cached is not None and os.path.isfile(cached + ".xml") and os.path.isfile(cached + ".json")
    cpu_run = None if reuse else start(root, "cpu", out + "-cpu", [], args.stub)
    traced_run = start(root, DEVICE, out + "-trace", ["--devparity-trace", f"--devparity-report={report_path}",
                                                      *([f"--devparity-random-sweep={args.random_sweep}"]
                                                        if args.random_sweep is not None else []),
                                                      *(["--devparity-vdev-sync"] if args.vdev_sync else [])],
                  args.stub)
    if reuse:
        shutil.copyfile(cached + ".xml", out + "-cpu.xml")
        with open(cached + ".json", encoding="utf-8") as f:
            cpu_seconds = json.load(f)["cpu_seconds"]
        print(f"real_suite: the CPU run's outcomes from the cache ({cached}.xml; --cpu-run always runs it)")
    else:
        cpu_status, cpu_seconds = wait(*cpu_run, deadline)
    traced_status, traced_seconds = wait(*traced_run, deadline)
    runs = [(traced_status, traced_run[1])] + ([] if reuse else [(cpu_status, cpu_run[1])])
    for status, log in runs:
        if status not in (0, 1):  # 1: tests failed; anything else is a run that did not finish
            raise SystemExit(f"real_suite: error: pytest exited {status} (interrupted, or no tests): see {log.name}")
    if cached is not None and not reuse and os.path.isfile(out + "-cpu.xml"):
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        shutil.copyfile(out + "-cpu.xml", cached + ".xml.part")
        with open(cached + ".json", "w", encoding="utf-8") as f:
            json.dump({"cpu_seconds": cpu_seconds, "archive": args.archive}, f)
        os.replace(cached + ".xml.part", cached + ".xml")
    for path in (out + "-cpu.xml", out + "-trace.xml", report_path):
        if not os.path.isfile(path):
            raise SystemExit(f"real_suite: error: the run wrote no {path} (see its .log)")
    cpu_times, traced_times = {}, {}
    cpu = outcomes(out + "-cpu.xml", "cpu", cpu_times)
    traced = outcomes(out + "-trace.xml", DEVICE, traced_times)
    import devparity  # the file is packed (docs/report-format.md): read it back in full

    report = devparity.load_report(report_path)
    only_on_device, problems = judge(cpu, traced, report, listed, args.max_warned)
    counts = {s: sum(1 for v in traced.values() if v == s) for s in ("pass", "failure", "error", "skipped")}
    print(f"real_suite: {os.path.basename(root)}: {len(traced)} tests on {DEVICE} ({counts}), "
          f"{len(only_on_device)} fail there alone ({len(listed)} listed GPU failures)")
    print(f"real_suite: CPU seconds: cpu {cpu_seconds:.1f}, {DEVICE} traced {traced_seconds:.1f} "
          f"({traced_seconds / max(cpu_seconds, 1e-9):.2f}x); wall {time.time() - started:.0f} s")
    count, cpu_time, traced_time = time_on_both(cpu, traced, cpu_times, traced_times)
    print(f"real_suite: the {count} tests run on both: cpu {cpu_time:.1f} s, {DEVICE} traced {traced_time:.1f} s "
          f"({traced_time / max(cpu_time, 1e-9):.2f}x)")
    for problem in problems:
        print(f"real_suite: FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())
