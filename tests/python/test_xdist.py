"""The plugin's report at scale: pytest-xdist workers' parts merged by the controller, and a suite
split across CI jobs (--devparity-shard) whose reports `devparity merge` joins."""

import json
import os
import shutil
import subprocess
import sys
import zlib

import pytest

from test_plugin import SAMPLE, load_report

pytest.importorskip("xdist", reason="pytest-xdist is not installed (Debian: python3-pytest-xdist)")

# A suite of 57 tests on three rows (cuda skips without a GPU): clean code, a placement fault, random
# draws (with a gate the test's own seed does not take), skips.
LIBRARY = '''
import torch


def clean(x, k):
    return x * k + torch.ones(1, device=x.device)


def plain_factory(x):
    return x + torch.arange(x.shape[-1])  # no device: host data meets device data


def gated(x):
    if torch.rand(1).item() > 0.5:
        return x + torch.zeros(x.shape[-1])  # only where the gate opens
    return x * 2
'''

TESTS = '''
import pytest
import torch

import mylib


@pytest.fixture(autouse=True)
def needs_cuda(request):
    callspec = getattr(request.node, "callspec", None)
    if callspec and callspec.params.get("device") == "cuda" and not torch.cuda.is_available():
        pytest.skip("no cuda")


@pytest.mark.parametrize("k", range(40))
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_clean(device, k):
    x = torch.full((2, 5), float(k), device=device)
    assert torch.equal(mylib.clean(x, 2).cpu(), torch.full((2, 5), 2.0 * k + 1))


@pytest.mark.parametrize("k", range(10))
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_plain_factory(device, k):
    x = torch.zeros(2, 3, device=device)
    assert mylib.plain_factory(x).shape == (2, 3)


@pytest.mark.parametrize("k", range(5))
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_gated(device, k):
    torch.manual_seed(0)  # torch.rand(1) is 0.496: the gate stays shut under the test's own seed
    x = torch.ones(4, device=device)
    assert mylib.gated(x).shape == (4,)


@pytest.mark.parametrize("k", range(2))
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_skips(device, k):
    pytest.skip("not here")
'''


@pytest.fixture
def project(pytester):
    (pytester.path / "lib").mkdir()
    (pytester.path / "lib" / "mylib.py").write_text(LIBRARY)
    (pytester.path / "test_many.py").write_text(TESTS)
    return pytester


def run(project, *args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(project.path / "lib"), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           "--devparity-devices=cpu,vdev:1", "--devparity-trace", *args],
                          cwd=project.path, env=env, capture_output=True, text=True, timeout=900)
    return done


def verdicts(path):
    """id -> (status, sorted finding kinds) of a session report."""
    report = load_report(path)
    return {r["id"]: (r["status"], tuple(sorted(f["kind"] for c in r["checks"] for f in c.get("findings", []))))
            for r in report["results"]}, report


def test_workers_give_the_serial_runs_report(project):
    serial = run(project, "--devparity-report=serial.json")
    assert serial.returncode == 1, serial.stdout + serial.stderr
    want, _ = verdicts(project.path / "serial.json")
    assert len(want) == 114  # 57 tests on cpu and vdev:1 (the cuda rows skip in setup without a GPU)
    failing = {i.split("[")[0] + "[" + i.split("[")[1].split("-")[0] for i, (s, _) in want.items() if s == "fail"}
    # The faults fail (the device-less factory on the cpu row too: its data is the test's device
    # data there); clean code, the shut gate and skips do not.
    assert failing == {"test_many.py::test_plain_factory[cpu", "test_many.py::test_plain_factory[vdev:1"}, failing
    for workers in ("2", "4"):
        done = run(project, "-n", workers, f"--devparity-report=n{workers}.json")
        assert done.returncode == 1, done.stdout + done.stderr
        assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
        got, report = verdicts(project.path / f"n{workers}.json")
        assert got == want, {i: (want.get(i), got.get(i)) for i in set(want) | set(got) if want.get(i) != got.get(i)}
        assert "interrupted" not in report["summary"], report["summary"]
        assert len(report["run"]["merged_from"]) == int(workers)
        assert not [p for p in os.listdir(project.path) if ".xdist-" in p], "the parts' folder is left behind"


def test_the_random_sweep_is_off_unless_asked_and_the_same_on_any_worker(project):
    # The gate stays shut under the test's own seed: only the sweep's other seeds open it.
    plain = run(project, "-k", "gated", "--devparity-report=plain.json")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    swept = run(project, "-k", "gated", "--devparity-random-sweep=8", "--devparity-report=swept.json")
    assert swept.returncode == 1, swept.stdout + swept.stderr
    got, _ = verdicts(project.path / "swept.json")
    assert {i for i, (s, _) in got.items() if s == "fail"} == {f"test_many.py::test_gated[vdev:1-{k}]" for k in range(5)}
    # Each swept row names the seeds it ran under.
    swept_rows = [r for r in load_report(project.path / "swept.json")["results"] if "vdev:1" in r["id"]]
    seeds = [r["checks"][0]["stats"].get("random_sweep_seeds") for r in swept_rows]
    assert swept_rows and all(s and all(isinstance(v, int) and 1 <= v <= 8 for v in s) for s in seeds), seeds
    parallel = run(project, "-n", "2", "-k", "gated", "--devparity-random-sweep=8", "--devparity-report=par.json")
    assert verdicts(project.path / "par.json")[0] == got, parallel.stdout


def test_a_worker_that_dies_marks_the_merged_report_and_keeps_what_it_relayed(project):
    (project.path / "test_dies.py").write_text(
        "import os\nimport pytest\n\n\n@pytest.mark.parametrize('device', ['cpu', 'cuda'])\n"
        "def test_dies(device):\n    if device not in ('cpu', 'cuda'):\n        os._exit(3)\n")
    done = run(project, "-n", "2", "-k", "clean or dies", "--devparity-report=r.json")
    assert done.returncode == 1, done.stdout + done.stderr
    got, report = verdicts(project.path / "r.json")
    interrupted = report["summary"]["interrupted"]
    assert interrupted["signal"] == "incomplete", interrupted
    assert any("died running test_dies.py::test_dies[vdev:1]" in gap for gap in interrupted["gaps"]), interrupted
    assert any("wrote no part of the report" in gap for gap in interrupted["gaps"]), interrupted
    # Every clean test is in the report, whichever worker ran it.
    assert sum(1 for i in got if "test_clean" in i and "[cuda" not in i) == 80, sorted(got)


def test_shards_cover_the_suite_once_and_merge_refuses_a_missing_one(project):
    cli = os.environ.get("DEVPARITY_CLI") or shutil.which("devparity")
    if cli is None:
        pytest.skip("no devparity CLI (DEVPARITY_CLI) to merge with")
    serial = run(project, "--devparity-report=all.json")
    want, _ = verdicts(project.path / "all.json")
    parts = []
    for index in range(3):
        run(project, f"--devparity-shard={index}/3", f"--devparity-report=s{index}.json")
        got, report = verdicts(project.path / f"s{index}.json")
        assert report["run"]["shard"] == f"{index}/3"
        assert got and all(want[i] == v for i, v in got.items())
        parts.append(set(got))
    assert set.union(*parts) == set(want) and sum(map(len, parts)) == len(want), "each test in exactly one shard"
    merged = subprocess.run([cli, "merge", "m.json", "s0.json", "s1.json", "s2.json"], cwd=project.path,
                            capture_output=True, text=True)
    assert merged.returncode == 1, merged.stdout + merged.stderr  # the faults fail: exit as run's
    assert verdicts(project.path / "m.json")[0] == want
    missing = subprocess.run([cli, "merge", "m2.json", "s0.json", "s2.json"], cwd=project.path,
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "shard 1/3 is missing" in missing.stderr, missing.stdout + missing.stderr
    assert serial.returncode == 1


def test_a_shard_that_holds_no_test_passes_and_writes_its_part(pytester):
    """Fewer tests than CI jobs: the empty parts exit 0 (not pytest's 5, "no tests collected") and
    write their reports, so that merge finds every part; an empty suite unsharded still exits 5."""
    cli = os.environ.get("DEVPARITY_CLI") or shutil.which("devparity")
    pytester.makepyfile(test_one="def test_only(devparity_device):\n    assert devparity_device is not None\n")
    codes = []
    for index in range(4):
        done = run(pytester, f"--devparity-shard={index}/4", f"--devparity-report=s{index}.json")
        codes.append(done.returncode)
        assert (pytester.path / f"s{index}.json").exists(), done.stdout + done.stderr
    assert codes == [0, 0, 0, 0], codes
    if cli is not None:
        merged = subprocess.run([cli, "merge", "m.json", *[f"s{i}.json" for i in range(4)]], cwd=pytester.path,
                                capture_output=True, text=True)
        assert merged.returncode == 0, merged.stdout + merged.stderr
        assert len(load_report(pytester.path / "m.json")["results"]) == 2  # test_only on cpu and vdev:1
    assert run(pytester, "-k", "no_such_test").returncode == 5


@pytest.mark.parametrize("value", ["3/3", "1", "a/b", "-1/2", "0/0"])
def test_a_bad_shard_is_a_usage_error(project, value):
    done = run(project, f"--devparity-shard={value}")
    assert done.returncode == 4, done.stdout + done.stderr
    assert f"--devparity-shard={value}: expected I/N" in done.stderr, done.stderr


def test_a_shards_verdicts_do_not_depend_on_which_tests_it_holds(pytester):
    """Files beside any test module of the suite are its helpers (Note [Scaffolding]), whichever part
    holds their tests: a part whose tests use b/'s helper but hold none of b/'s tests judges the
    helper's warning as the whole suite does (it reported it as the library's before)."""
    pytester.mkdir("a")
    pytester.mkdir("b")
    (pytester.path / "b" / "helper.py").write_text("def total(x):\n    return x.sum().item()\n")
    (pytester.path / "b" / "test_b.py").write_text("def test_b():\n    pass\n")
    (pytester.path / "a" / "test_a.py").write_text(
        "import os, sys\n"
        "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'b'))\n"
        "import torch\nfrom helper import total\n\n\n"
        "def test_total(devparity_device):\n"
        "    assert total(torch.ones(3, device=devparity_device)) == 3\n")
    a_row, b_row = "a/test_a.py::test_total[vdev:1]", "b/test_b.py::test_b"
    index = zlib.crc32(a_row.encode("utf-8")) % 2
    assert zlib.crc32(b_row.encode("utf-8")) % 2 != index  # the part that holds a's row holds none of b's tests

    def findings(*args):
        done = run(pytester, "--devparity-report=r.json", *args)
        assert done.returncode == 0, done.stdout + done.stderr
        return verdicts(pytester.path / "r.json")[0]

    whole = findings()
    assert whole[a_row] == ("pass", ()) and b_row in whole, whole
    part = findings(f"--devparity-shard={index}/2")
    assert part[a_row] == whole[a_row] and b_row not in part, part
