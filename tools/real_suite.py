#!/usr/bin/env python3
"""Runs a real library's whole test suite on the CPU and on the simulated device, and compares.

    tools/real_suite.py ARCHIVE EXPECTED [--work DIR] [--timeout S] [--stub DIR] [--max-warned 0.05]
                        [--random-sweep N] [--vdev-sync] [--rows option|parametrized] [--tests PATH...]

ARCHIVE is a release's source tarball (../shared/kornia/kornia-v0.7.1.tar.xz), or a Debian source
package's, fetched into the cache and checked against its SHA-256:
debian:pytorch-vision_0.14.1.orig.tar.gz#SHA256 (the mirror's pool, $DEVPARITY_DEBIAN_MIRROR). EXPECTED
is a TSV of the tests that fail on a real GPU too (test id with DEV for the device, a tab, the cause).
The suite runs twice at once (the two cores of a CI machine). With `--rows option` (Kornia's
conftest: a --device option) the runs are `--device cpu` and `--device vdev:1` under the tracer; with
`--rows parametrized` (torchvision's: tests parametrized with "cpu" and "cuda") they are the suite
without devparity (its cpu rows) and the suite with `--devparity-devices=cpu,vdev:1` under the tracer,
whose vdev:1 rows are compared with the cpu rows of the same test. It fails, naming each test, on:
  - a test that fails on vdev:1 alone and is not in EXPECTED (a false failure of the simulator or
    the tracer, or a real one nobody listed);
  - an error finding on a test that is not in EXPECTED;
  - warnings on more than --max-warned of the traced tests (the trace must stay quiet), counted as
    the plugin gives them: once per line of code, on the first test that runs it;
  - tests lost to devparity: a file or class the traced run could not collect and the CPU run could,
    one whose collection error has a frame of devparity's package (in either run), or a test of the
    CPU run the traced run does not have.
It prints the CPU seconds of both runs and their ratio, and the listed tests that now pass.
The CPU run's outcomes are kept in the cache ($DEVPARITY_CACHE, default ~/.cache/devparity,
real-suites/) under a key of the archive, the stub, torch, Python, the --installed package's version
and, with --rows option (that run loads the plugin), devparity's Python sources, and reused while
the key holds (--cpu-run always runs it regardless): the CPU row does not depend on the simulator,
and it is half of the suite's cost.
vdev:1 runs asynchronously, as the plugin runs it by default (races fail tests); --vdev-sync runs
it synchronously, for the cost of the asynchronous device (run both and compare the traced CPU seconds).
"""

import argparse
import hashlib
import re
import urllib.request
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
DEBIAN_MIRROR = os.environ.get("DEVPARITY_DEBIAN_MIRROR", "http://deb.debian.org/debian")


def cache_folder():
    return os.environ.get("DEVPARITY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "devparity")


def fetch_debian(spec):
    """debian:NAME_VERSION.orig.tar.gz#SHA256: (the file from the mirror's pool, kept in the cache, None),
    or (None, why) when the mirror cannot be reached."""
    name, _, sha256 = spec[len("debian:"):].partition("#")
    if not sha256 or "_" not in name:
        raise SystemExit(f"real_suite: error: {spec}: expected debian:SOURCE_VERSION.orig.tar.gz#SHA256")
    source = name.split("_")[0]
    path = os.path.join(cache_folder(), "sources", name)
    if os.path.isfile(path):
        return path, None
    pool = "lib" + source[3] if source.startswith("lib") else source[0]
    url = f"{DEBIAN_MIRROR}/pool/main/{pool}/{source}/{name}"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    except OSError as e:
        return None, f"cannot fetch {url}: {e}"
    if hashlib.sha256(data).hexdigest() != sha256:
        raise SystemExit(f"real_suite: error: {url}: its SHA-256 is not {sha256}")
    with open(path + ".part", "wb") as f:
        f.write(data)
    os.replace(path + ".part", path)
    return path, None


def device_token(device):
    """A regex matching `device` as one parameter of a test id ("test_x[cpu-3]", "test_y[3-vdev:1]")."""
    return re.compile(r"(?<=[\[-])" + re.escape(device) + r"(?=[\]-])")


def extract(archive, work):
    # The release's folder is the archive's top folder (Debian's vision-0.14.1 in pytorch-vision_0.14.1.orig).
    with tarfile.open(archive) as tar:
        top = tar.next().name.split("/")[0]
        root = os.path.join(work, top)
        stamp = os.path.join(root, ".extracted")
        if not os.path.exists(stamp):
            if hasattr(tarfile, "data_filter"):
                tar.extractall(work, filter="data")
            else:
                tar.extractall(work)
            open(stamp, "w").close()
    return root


def tests_folder(root):
    return next(d for d in ("tests", "test") if os.path.isdir(os.path.join(root, d)))


def start(root, device, out, extra, stub, rows, tests, skip=()):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, stub, env.get("PYTHONPATH", "")) if p)
    if rows == "option":  # the suite's own --device option picks the row
        selection = ["-p", "devparity.pytest_plugin", f"--devparity-devices=cpu,{DEVICE}", f"--device={device}",
                     "--dtype=float32"]
    elif device == "cpu":  # the suite as its CI runs it without a GPU: the cpu rows
        selection = ["-p", "no:devparity.pytest_plugin"]
    else:
        selection = ["-p", "devparity.pytest_plugin", f"--devparity-devices=cpu,{DEVICE}"]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *selection,
               f"--junitxml={out}.xml", "--continue-on-collection-errors",
               # torch.compile does not run on the simulated device (the plugin skips those tests
               # there): on the CPU alone they would only cost minutes.
               "-k", " and ".join(["not compile and not dynamo", *(f"not {name}" for name in skip)]),
               *(tests or [tests_folder(root)]), *extra]
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


def installed_version(package):
    """The version of the installed `package` the suite tests (Debian's python3-torchvision)."""
    import importlib.metadata

    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return getattr(importlib.import_module(package), "__version__", "")


def cpu_cache_path(archive, stub, selection, installed=None):
    """Where the CPU run's outcomes of this archive are kept: keyed by everything they depend on."""
    import torch

    digest = hashlib.sha256()
    if selection != ("option", None):  # (a whole suite picked by --device keeps its earlier key)
        digest.update(repr(selection).encode())
    with open(archive, "rb") as f:
        digest.update(f.read())
    if stub and os.path.isdir(stub):
        _hash_tree(digest, stub)
    digest.update(f"{torch.__version__} {sys.version}".encode())
    if installed:
        digest.update(f"{installed} {installed_version(installed)}".encode())
    spec = importlib.util.find_spec("devparity")
    # With --rows parametrized the CPU run is the suite without devparity (its plugin turned off):
    # devparity's sources are not part of what it depends on, so a change to them keeps its cache.
    if spec and spec.submodule_search_locations and selection[0] != "parametrized":
        _hash_tree(digest, list(spec.submodule_search_locations)[0], (".py",))
    cache = cache_folder()
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


def outcomes(path, device, times=None, rows="option"):
    result = {}
    token = device_token(device)
    for case in ET.parse(path).getroot().iter("testcase"):
        test = case.get("classname", "") + "::" + case.get("name", "")
        if rows == "option":
            test = test.replace(device, "DEV")
        elif device != "cpu" and not token.search(test):
            continue  # a cpu row of the traced run: the cpu run has it
        else:
            test = token.sub("DEV", test)
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


OUR_FRAME = re.compile(r"devparity/\w+\.py")  # a frame of devparity's package in a traceback


def test_ids(path):
    """The test ids a run's junit file holds, and the files or classes it could not collect, each with
    whether devparity's code is in the collection error's traceback."""
    ids, uncollected = set(), {}
    for case in ET.parse(path).getroot().iter("testcase"):
        error = case.find("error")
        if error is not None and error.get("message") == "collection failure":
            uncollected[case.get("name", "")] = bool(OUR_FRAME.search(error.text or ""))
            continue
        ids.add(case.get("classname", "") + "::" + case.get("name", ""))
    return ids, uncollected


def missing_from_traced(cpu_xml, traced_xml, rows):
    """The problems of runs that lost tests to devparity: a file the plugin cannot collect passes no
    gate by running nothing (with --rows option the CPU run loads the plugin too)."""
    cpu_ids, cpu_uncollected = test_ids(cpu_xml)
    traced_ids, traced_uncollected = test_ids(traced_xml)
    problems = [f"the traced run could not collect {name} (the CPU run could)"
                for name in sorted(set(traced_uncollected) - set(cpu_uncollected))]
    problems += [f"devparity's plugin failed collecting {name} (in its traceback)"
                 for name in sorted(n for n, ours in cpu_uncollected.items() if ours)]
    if rows == "option":  # the traced run's rows are the CPU run's on the device
        cpu_ids = {device_token("cpu").sub("DEV", t) for t in cpu_ids}
        traced_ids = {device_token(DEVICE).sub("DEV", t) for t in traced_ids}
    lost = sorted(cpu_ids - traced_ids)  # (parametrized: the traced run has the cpu rows too)
    if lost:
        problems.append(f"{len(lost)} tests of the CPU run are not in the traced run (first: {lost[0]})")
    return problems


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


def judge(cpu, traced, report, listed, max_warned, rows="option"):
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
    token = device_token(DEVICE)
    for result in report["results"]:
        test = junit_id(result["id"])
        test = test.replace(DEVICE, "DEV") if rows == "option" else token.sub("DEV", test)
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
    parser.add_argument("--rows", choices=("option", "parametrized"), default="option",
                        help="how the suite picks its device: its own --device option (Kornia), or tests "
                             "parametrized with \"cpu\" and \"cuda\" (torchvision)")
    parser.add_argument("--tests", nargs="+", default=None, metavar="PATH",
                        help="the suite's test files or folders to run (default: its tests folder)")
    parser.add_argument("--skip", action="append", default=[], metavar="NAME",
                        help="leave out the tests whose names (or classes) hold NAME: tests that download (their "
                             "outcome is the network's, and the CPU run's is cached), or a whole model's forward "
                             "pass left to a run by hand for CI's minutes")
    parser.add_argument("--installed", default=None, metavar="PACKAGE",
                        help="test the installed PACKAGE (Debian's python3-torchvision, built with its C++ ops), "
                             "not the archive's uncompiled sources: they are moved out of the way")
    parser.add_argument("--vdev-sync", action="store_true",
                        help="run vdev:1 synchronously (--devparity-vdev-sync) instead of as the plugin does by default")
    args = parser.parse_args()
    if args.archive.startswith("debian:"):
        fetched, why = fetch_debian(args.archive)
        if fetched is None:
            message = f"real_suite: {why} (Debian's source package of the suite)"
            if os.environ.get("CI"):
                raise SystemExit("MISSING: " + message[len("real_suite: "):])
            print("SKIPPED: " + message[len("real_suite: "):])
            return 0
        args.archive = fetched
    if not os.path.isfile(args.archive):
        message = f"real_suite: no {args.archive} (the shared releases of real suites)"
        if os.environ.get("CI"):
            raise SystemExit("MISSING: " + message[len("real_suite: "):])
        print("SKIPPED: " + message[len("real_suite: "):])
        return 0
    listed = expected_failures(args.expected)
    os.makedirs(args.work, exist_ok=True)
    root = extract(args.archive, os.path.abspath(args.work))
    if args.installed and os.path.isdir(os.path.join(root, args.installed)):
        os.replace(os.path.join(root, args.installed), os.path.join(root, args.installed + ".source"))
    out = os.path.join(os.path.abspath(args.work), os.path.basename(root))
    report_path = out + "-trace.json"
    started = time.time()
    deadline = started + args.timeout
    selection = (args.rows, args.tests) + ((tuple(args.skip),) if args.skip else ())
    cached = cpu_cache_path(args.archive, args.stub, selection, args.installed) if args.cpu_run == "cache" else None
    reuse = cached is not None and os.path.isfile(cached + ".xml") and os.path.isfile(cached + ".json")
    cpu_run = None if reuse else start(root, "cpu", out + "-cpu", [], args.stub, args.rows, args.tests, args.skip)
    traced_run = start(root, DEVICE, out + "-trace", ["--devparity-trace", f"--devparity-report={report_path}",
                                                      *([f"--devparity-random-sweep={args.random_sweep}"]
                                                        if args.random_sweep is not None else []),
                                                      *(["--devparity-vdev-sync"] if args.vdev_sync else [])],
                  args.stub, args.rows, args.tests, args.skip)
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
    cpu = outcomes(out + "-cpu.xml", "cpu", cpu_times, args.rows)
    traced = outcomes(out + "-trace.xml", DEVICE, traced_times, args.rows)
    import devparity  # the file is packed (docs/report-format.md): read it back in full

    report = devparity.load_report(report_path)
    only_on_device, problems = judge(cpu, traced, report, listed, args.max_warned, args.rows)
    problems += missing_from_traced(out + "-cpu.xml", out + "-trace.xml", args.rows)
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
