"""The pytest plugin, run on tests/python/sample_project the way a library's CI would run it: each
test copies the project into pytester's folder and runs pytest on it in a subprocess (the plugin
installs a device backend, a process-wide act, so no run shares a process with another)."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import run_pytest

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sample_project")


def load_report(path):
    """The plugin's report read back in full (devparity.load_report), in a process of its own: loading
    devparity's library here would import torch into the process pytester runs pytest in."""
    code = "import json, sys, devparity; json.dump(devparity.load_report(sys.argv[1]), sys.stdout)"
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def pytest_run(pytester, monkeypatch):
    """Runs pytest with `args` on a copy of the sample project; returns the run (returncode, stdout,
    stderr as text, `result` pytester's RunResult) and each test's outcome by node id."""
    for name in os.listdir(SAMPLE):
        if name.endswith(".py"):
            shutil.copy(os.path.join(SAMPLE, name), pytester.path / name)

    def run(*args, env=None):
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        return run_pytest(pytester, *args)

    return run


def test_the_faulty_module_fails_only_on_vdev(pytest_run):
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "--device=cpu,vdev:1")
    assert run.returncode == 1, run.stdout + run.stderr
    failed = sorted(t for t, s in outcomes.items() if s == "FAILED")
    assert failed == ["test_sample.py::test_channel_gain[vdev:1]", "test_sample.py::test_gain_listed_devices[vdev:1]"]
    passed = {t for t, s in outcomes.items() if s == "PASSED"}
    for test in ("test_brightness", "test_brightness_gradient", "test_ramp", "test_ramp_on_devparity_device"):
        assert {f"test_sample.py::{test}[cpu]", f"test_sample.py::{test}[vdev:1]"} <= passed, test
    assert "test_sample.py::test_channel_gain[cpu]" in passed
    assert run.result.parseoutcomes()["failed"] == 2


def test_trace_fails_on_placement_errors_and_reports_them(pytest_run, tmp_path):
    report = tmp_path / "session.json"
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "--device=all", "--devparity-trace",
                               f"--devparity-report={report}")
    assert run.returncode == 1, run.stdout + run.stderr
    # The gains are on the CPU the test built the module on: left behind on vdev:1 alone
    # (Note [Kept state in Python]).
    assert sorted(t for t, s in outcomes.items() if s == "FAILED") == [
        "test_sample.py::test_channel_gain[vdev:1]", "test_sample.py::test_gain_listed_devices[vdev:1]"]
    data = load_report(report)
    by_id = {r["id"]: r for r in data["results"]}
    # Written by devparity's session (issue 37): totals counted there, a case the schema accepts.
    assert data["summary"]["failed"] == 2 and data["run"]["planned_trials"] == len(data["results"]), data["summary"]
    assert {r["case"] for r in data["results"]} == {"test_sample_py"}
    assert not os.path.exists(str(report) + ".partial")
    gain = by_id["test_sample.py::test_channel_gain[vdev:1]"]
    kinds = {f["kind"] for f in gain["checks"][0]["findings"]}
    assert "unregistered_tensor_state" in kinds and gain["status"] == "fail"
    # The attribute is named at its assignment, the rest where the gains meet the image.
    for f in gain["checks"][0]["findings"]:
        line = 10 if f["kind"] == "unregistered_tensor_state" else 13
        assert f["source"].endswith(f"sample_lib.py:{line}"), f
    kept = next(f for f in gain["checks"][0]["findings"] if f["kind"] == "unregistered_tensor_state")
    assert kept["met_at"].endswith("sample_lib.py:13"), kept
    assert by_id["test_sample.py::test_ramp[vdev:1]"]["status"] == "pass"
    assert data["summary"]["failed"] == 2 and data["summary"]["total"] == len(data["results"])
    assert data["run"]["placement"] == "warn"
    cli = os.environ.get("DEVPARITY_CLI")
    if cli:  # the CLI reads it: html renders it
        html = subprocess.run([cli, "html", str(report), str(tmp_path / "s.html")], capture_output=True, text=True)
        assert html.returncode == 0, html.stderr


def test_the_plugin_does_nothing_unless_asked(pytest_run):
    run, outcomes = pytest_run("--device=cpu")
    assert run.returncode == 0, run.stdout + run.stderr
    assert not any("vdev" in t for t in outcomes)
    assert outcomes["test_sample.py::test_ramp_on_devparity_device"] == "PASSED"


def test_an_unknown_device_is_a_usage_error(pytest_run):
    run, _ = pytest_run("--devparity-devices=cpu,vdev:x")
    assert run.returncode == 4 and "expected 'vdev'" in run.stderr, run.stdout + run.stderr


def test_a_bad_vdev_count_in_the_environment_is_a_usage_error(pytest_run):
    run, _ = pytest_run(env={"DEVPARITY_VDEV": "1", "DEVPARITY_VDEV_COUNT": "two"})
    assert run.returncode == 4 and "DEVPARITY_VDEV_COUNT='two': expected a whole number" in run.stderr, \
        run.stdout + run.stderr
    run, outcomes = pytest_run(env={"DEVPARITY_VDEV": "1", "DEVPARITY_VDEV_COUNT": "3"})
    assert run.returncode != 4 and outcomes, run.stdout + run.stderr  # (its clean twin: a number runs)


def test_the_plugin_loads_with_dash_p_and_the_environment_variable(pytest_run):
    run, outcomes = pytest_run("-p", "devparity.pytest_plugin", "--device=all",
                               env={"DEVPARITY_VDEV": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert run.returncode == 1, run.stdout + run.stderr
    assert outcomes["test_sample.py::test_brightness[vdev:1]"] == "PASSED"
    assert outcomes["test_sample.py::test_channel_gain[vdev:1]"] == "FAILED"


STREAMS_MODULE = """
import os

import pytest
import torch

from devparity._devices import ops


def test_mode(devparity_device):
    expected = devparity_device.type != "cpu" and os.environ["EXPECT_ASYNC"] == "1"
    assert ops().async_enabled() == expected


def side_stream(device, wait):
    if devparity_device_is_cpu(device) or not hasattr(torch, "accelerator"):
        pytest.skip("torch 1.13 has no device-generic torch.Stream for a PrivateUse1 backend")
    x = torch.arange(1.0, 1025.0, device=device)
    main = torch.accelerator.current_stream(device)
    side = torch.Stream(device=device)
    a = x * 3
    if wait:
        side.wait_stream(main)
    torch.accelerator.set_stream(side)
    try:
        b = a + 1  # FAULT without the wait: reads a, written on main
    finally:
        torch.accelerator.set_stream(main)
    main.wait_stream(side)
    assert torch.equal(b.cpu(), torch.arange(1.0, 1025.0) * 3 + 1)


def devparity_device_is_cpu(device):
    return device.type == "cpu"


def test_side_stream_without_a_wait(devparity_device):
    side_stream(devparity_device, wait=False)


def test_side_stream_with_a_wait(devparity_device):
    side_stream(devparity_device, wait=True)
"""


def test_vdev_rows_run_asynchronously_by_default_and_a_race_fails_them(pytest_run, pytester):
    import torch

    pytester.makepyfile(test_streams_module=STREAMS_MODULE)
    two = int(torch.__version__.split(".")[0]) >= 2
    report = pytester.path / "session.json"
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "--devparity-trace", f"--devparity-report={report}",
                               "test_streams_module.py", env={"EXPECT_ASYNC": "1"})
    assert outcomes["test_streams_module.py::test_mode[vdev:1]"] == "PASSED", run.stdout[-3000:]
    assert outcomes["test_streams_module.py::test_mode[cpu]"] == "PASSED", run.stdout[-3000:]
    if two:
        assert outcomes["test_streams_module.py::test_side_stream_without_a_wait[vdev:1]"] == "FAILED", run.stdout
        assert outcomes["test_streams_module.py::test_side_stream_with_a_wait[vdev:1]"] == "PASSED", run.stdout
        assert "with no event, wait or synchronize ordering them" in run.stdout, run.stdout[-3000:]
        rows = {r["id"]: r for r in load_report(report)["results"]}
        racy = rows["test_streams_module.py::test_side_stream_without_a_wait[vdev:1]"]
        assert any(f["kind"] == "unsynchronized_access" for c in racy["checks"] for f in c.get("findings", [])), racy
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "--devparity-vdev-sync", "test_streams_module.py",
                               env={"EXPECT_ASYNC": "0"})
    assert run.returncode in (0, 5) or all(s in ("PASSED", "SKIPPED") for s in outcomes.values()), run.stdout[-3000:]
    assert outcomes["test_streams_module.py::test_mode[vdev:1]"] == "PASSED", run.stdout[-3000:]
    if two:
        assert outcomes["test_streams_module.py::test_side_stream_without_a_wait[vdev:1]"] == "PASSED", run.stdout


PERTURB_MODULE = """
import torch


def test_round(devparity_device):
    x = torch.arange(8, dtype=torch.float32, device=devparity_device) + 0.5
    assert torch.equal(torch.round(x).cpu(), torch.tensor([0.0, 2.0, 2.0, 4.0, 4.0, 6.0, 6.0, 8.0]))
"""


def test_perturbed_numerics_fail_a_test_that_depends_on_the_tie_rule(pytest_run, pytester):
    pytester.makepyfile(test_perturb_module=PERTURB_MODULE)
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "test_perturb_module.py")
    assert outcomes["test_perturb_module.py::test_round[vdev:1]"] == "PASSED", run.stdout[-3000:]
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "--devparity-perturb=all", "test_perturb_module.py")
    assert outcomes["test_perturb_module.py::test_round[vdev:1]"] == "FAILED", run.stdout[-3000:]
    assert outcomes["test_perturb_module.py::test_round[cpu]"] == "PASSED", run.stdout[-3000:]
    assert "values moved by: round_half_away in 1 op call(s)" in run.stdout, run.stdout[-3000:]


def test_the_index_less_and_the_cpu_only_rows_and_the_current_device(pytest_run):
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev,vdev:0,vdev:1,cpu-only", "--device=all")
    for row in ("vdev", "vdev:0", "vdev:1", "cpu-only"):
        assert outcomes[f"test_sample.py::test_brightness[{row}]"] == "PASSED", (row, run.stdout[-2000:])
        assert outcomes[f"test_sample.py::test_another_index_is_current[{row}]"] == "PASSED", row
    assert outcomes["test_sample.py::test_channel_gain[vdev]"] == "FAILED"
    assert outcomes["test_sample.py::test_channel_gain[cpu-only]"] == "PASSED"


def test_what_the_device_cannot_do_is_a_skip_and_a_skip_ends_the_trace(pytest_run, tmp_path):
    report = tmp_path / "session.json"
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "--device=cpu,vdev:1", "--devparity-trace",
                               f"--devparity-report={report}", "-k",
                               "dlpack or draws_then_skips or test_ramp or autocast")
    assert run.returncode == 0, run.stdout + run.stderr
    assert outcomes["test_sample.py::test_exports_through_dlpack[cpu]"] == "PASSED"
    # Autocast: CUDA's policy on 2.x (the test passes as on a GPU), a named skip on 1.13.
    assert outcomes["test_sample.py::test_autocast_keeps_the_input_dtype[cpu]"] == "PASSED", run.stdout
    assert (outcomes.get("test_sample.py::test_autocast_keeps_the_input_dtype[vdev:1]") == "PASSED" or
            re.search(r"^SKIPPED \[1\] test_sample.py:\d+: devparity: this torch's autocast has no way", run.stdout,
                      re.M)), run.stdout
    # A torch whose DLPack takes the device runs it; one that does not gives a named skip.
    assert (outcomes.get("test_sample.py::test_exports_through_dlpack[vdev:1]") == "PASSED" or
            re.search(r"^SKIPPED \[1\] test_sample.py:\d+: devparity: DLPack has no device type", run.stdout, re.M)), run.stdout
    # A test that drew random numbers and skipped: its reruns skip too, and the trace ends with
    # it, so the tests after it trace as usual.
    assert outcomes["test_sample.py::test_ramp[vdev:1]"] == "PASSED", run.stdout
    assert "already active" not in run.stdout
    # The session report says skip for a test that skipped itself, not pass (issue 36).
    by_id = {r["id"]: r for r in load_report(report)["results"]}
    skipped = by_id["test_sample.py::test_draws_then_skips[vdev:1]"]
    assert skipped["status"] == "skip" and skipped["checks"][0]["status"] == "skip", skipped
    assert skipped["message"].startswith("skipped: drew, then skipped"), skipped["message"]
    assert by_id["test_sample.py::test_ramp[vdev:1]"]["status"] == "pass"
    # What the device cannot do by torch's design is a skip in the report too, as pytest says (issue 56),
    # and the same test on the CPU, its twin, a pass.
    if outcomes.get("test_sample.py::test_exports_through_dlpack[vdev:1]") != "PASSED":
        dlpack = by_id["test_sample.py::test_exports_through_dlpack[vdev:1]"]
        assert dlpack["status"] == "skip" and "devparity: DLPack has no device type" in dlpack["message"], dlpack
    assert by_id["test_sample.py::test_exports_through_dlpack[cpu]"]["status"] == "pass"


OTHER_DEVICES_MODULE = """
import pytest
import torch


def present(device):
    kind, _, index = device.partition(":")
    if kind == "cuda":
        return torch.cuda.is_available() and torch.cuda.device_count() > int(index or 0)
    if kind == "mps":
        return getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
    return True


@pytest.mark.parametrize("device", ["cpu", "cuda", "cuda:1", "mps"])
def test_skips_where_the_device_is_missing(device):
    if not present(device):
        pytest.skip(f"no {device} here")
    assert torch.ones(2, device=device).sum().item() == 2


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_uses_the_device_without_asking(device):
    assert torch.ones(2, device=device).sum().item() == 2
"""


def test_a_row_on_a_device_this_process_lacks_runs_as_without_devparity(pytest_run, pytester, tmp_path):
    # issue 55: the trace's setup touched "cuda" on a machine without it, so the test failed with
    # "not linked with support for cuda devices" instead of skipping, and its row was lost.
    pytester.makepyfile(test_other_devices=OTHER_DEVICES_MODULE)
    report = tmp_path / "session.json"
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "--devparity-trace", f"--devparity-report={report}",
                               "test_other_devices.py")
    rows = {r["id"]: r for r in load_report(report)["results"]}
    name = "test_other_devices.py::test_skips_where_the_device_is_missing"
    assert outcomes[f"{name}[cpu]"] == outcomes[f"{name}[vdev:1]"] == "PASSED", run.stdout[-3000:]
    assert rows[f"{name}[vdev:1]"]["status"] == "pass"
    present = devices_present()
    missing = [d for d in ("cuda", "cuda:1", "mps") if d not in present]
    for device in ("cuda", "cuda:1", "mps"):
        row = rows[f"{name}[{device}]"]
        assert f"{name}[{device}]" not in outcomes, (device, run.stdout[-3000:])  # -rA names no skipped test
        assert row["status"] == "skip", row
        if device in missing:  # the test's own skip, with its own reason
            assert row["message"].startswith(f"skipped: no {device} here"), row
            assert re.search(rf"^SKIPPED \[1\] test_other_devices.py:\d+: no {device} here$", run.stdout, re.M)
        else:  # a real GPU beside the simulated device: held back, with the reason
            assert "does not run in this process" in row["message"], row
    # The twin: a test that uses a missing device without asking fails as it would without devparity,
    # and is no pass in the report.
    if "cuda" in missing:
        twin = "test_other_devices.py::test_uses_the_device_without_asking[cuda]"
        assert outcomes[twin] == "FAILED", run.stdout[-3000:]
        assert rows[twin]["status"] == "skip" and "not traced" in rows[twin]["message"], rows[twin]
    assert "already active" not in run.stdout


def devices_present():
    """Which of cuda, cuda:1 and mps this machine has, asked in a process of its own (importing torch
    here would break pytester's inline runs, which import it afresh)."""
    code = ("import json, torch; mps = getattr(torch.backends, 'mps', None); print(json.dumps("
            "{'cuda': torch.cuda.is_available(), 'cuda:1': torch.cuda.device_count() > 1, "
            "'mps': mps is not None and mps.is_available()}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return {name for name, here in json.loads(done.stdout).items() if here}


def test_the_session_report_names_the_placement_mode(pytest_run, tmp_path):
    # issue 37: it said "warn" whatever --devparity-placement was.
    report = tmp_path / "session.json"
    run, _ = pytest_run("--devparity-devices=cpu,vdev:1", "--device=cpu,vdev:1", "--devparity-trace",
                        "--devparity-placement=strict", f"--devparity-report={report}", "-k", "test_ramp",
                        "-v")  # -q (pytest_run's) and -v: the session header is printed
    assert run.returncode in (0, 1), run.stdout + run.stderr
    assert load_report(report)["run"]["placement"] == "strict"
    # The session's header says what devparity does in it.
    assert re.search(r"^devparity: devices cpu, vdev:1; simulated vdev indices \d+; trace on \(placement strict, "
                     r"warnings once\)$", run.stdout, re.M), run.stdout[:2000]


def test_each_session_report_row_names_its_test(pytest_run, pytester, tmp_path):
    # The rows are built by devparity's C++ code: a test's case is its path with each character that is
    # not an ASCII letter, digit or "_" one "_" (a UTF-8 character is one), its subject the test's name.
    (pytester.path / "test_ünï_cödé.py").write_text("def test_plain():\n    pass\n")
    report = tmp_path / "session.json"
    run, outcomes = pytest_run("--devparity-devices=cpu", "--devparity-trace", f"--devparity-report={report}",
                               "test_ünï_cödé.py", "test_sample.py", "-k", "test_plain or test_ramp")
    assert run.returncode == 0, run.stdout + run.stderr
    rows = {r["id"]: r for r in load_report(report)["results"]}
    plain = rows["test_ünï_cödé.py::test_plain"]
    assert (plain["case"], plain["subject"], plain["suite"]) == ("test__n__c_d__py", "test_plain", "test_ünï_cödé.py")
    assert plain["case"] == re.sub(r"[^A-Za-z0-9_]", "_", "test_ünï_cödé.py")
    ramp = next(r for i, r in rows.items() if i.startswith("test_sample.py::test_ramp"))
    assert ramp["case"] == "test_sample_py" and ramp["checks"][0]["name"] == "placement"
    assert ramp["message"].endswith("traced op(s)") or "first: [" in ramp["message"], ramp["message"]


def test_a_warning_is_given_once_per_line_of_code():
    from devparity import Finding
    from devparity.pytest_plugin import new_warnings

    def finding(kind, source, severity="warning"):
        return Finding.from_json({"kind": kind, "severity": severity, "op": "aten::to", "source": source, "message": "m"})

    seen = set()
    first = [finding("host_sync", "lib.py:3"), finding("host_sync", "lib.py:4"), finding("x", "lib.py:3", "error")]
    assert [f.source for f in new_warnings(first, seen)] == ["lib.py:3", "lib.py:4"]
    again = [finding("host_sync", "lib.py:4"), finding("host_to_device_copy", "lib.py:4")]
    assert [(f.kind, f.source) for f in new_warnings(again, seen)] == [("host_to_device_copy", "lib.py:4")]


PLUGIN_STATE = """
import argparse, pytest, torch
from devparity import pytest_plugin as plugin
from devparity._plugin_options import PluginOptions
from devparity._plugin_session import PluginSession

class Config:
    def __init__(self):
        self.stash = pytest.Stash()

options = PluginOptions.of(argparse.Namespace(
    devparity_devices="cpu", devparity_vdev_count=None, devparity_trace=False, devparity_placement="warn",
    devparity_report=None, devparity_random_sweep=0, devparity_scaffolding=[], devparity_vdev_sync=False,
    devparity_pinned_release="pooled", devparity_perturb=None, devparity_vdev_arithmetic="cuda",
    devparity_shard=None, devparity_warnings="once"))
first, second = Config(), Config()
session = first.stash[plugin._SESSION] = PluginSession(options, [("cpu", torch.device("cpu"))])
assert second.stash.get(plugin._SESSION, None) is None
plugin._current[:] = [session]
assert plugin.devices_under_test() == [("cpu", torch.device("cpu"))]
plugin.pytest_unconfigure(second)  # another run's end leaves this one's state alone
assert plugin.devices_under_test() == [("cpu", torch.device("cpu"))]
plugin.pytest_unconfigure(first)
assert plugin.devices_under_test() == [] and plugin.simulated_devices() == []
print("ok")
"""


def test_the_plugin_keeps_each_runs_state_on_its_config():
    # issue 37: on config.stash, so two pytest runs in one process (pytester's inline runs) share nothing;
    # the public helpers read the run being configured or run, and another run's end leaves it alone. (In
    # a process of its own: the session imports torch, which pytester's snapshot of the modules would drop.)
    done = subprocess.run([sys.executable, "-c", PLUGIN_STATE], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr


def test_the_version_and_the_entry_point_are_declared_once():
    # issue 37: the version is CMakeLists.txt's project(VERSION) (pyproject.toml reads it), the entry
    # point pyproject.toml's (the staged dist-info reads it).
    import importlib.metadata

    import devparity

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as f:
        pyproject = f.read()
    assert not re.search(r"^version\s*=", pyproject, re.M) and 'dynamic = ["version"]' in pyproject
    with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as f:
        version = re.search(r"project\(devparity VERSION ([0-9.]+)", f.read()).group(1)
    dist = importlib.metadata.distribution("devparity")
    assert dist.version == version
    with open(os.path.join(os.path.dirname(devparity.__file__), "_build.json"), encoding="utf-8") as f:
        assert json.load(f)["devparity"] == version
    assert [(e.name, e.value) for e in dist.entry_points if e.group == "pytest11"] == [
        ("devparity.pytest_plugin", "devparity.pytest_plugin")]


# Issue 57: false alarms on correct code, each beside its faulty twin. The library lives in a folder
# of its own: files beside the tests are the suite's helpers (Note [Scaffolding]).
TWIN_LIBRARY = '''
import torch


def brighten(x):
    return x + 0.1


def checked(out, ref):
    # Reads its argument back for a look and hands the same tensor back: on the cpu row the
    # `.cpu()` returns `out` itself, and the test's own result goes nowhere.
    assert torch.allclose(out.cpu(), ref.cpu())
    return out


def checked_home(x, ref):
    out = brighten(x)
    assert torch.allclose(out.cpu(), ref.cpu())
    return out.cpu()  # FAULT: the result comes back on the host (Kornia #3066)


class Decoder:
    """Keeps a table on the device it is told: a second decoder on another device is the caller's."""

    def __init__(self, device):
        self.table = torch.arange(4, device=device)

    def __call__(self, x):
        return x + self.table.to(x.device)[0]


class FirstDeviceDecoder(Decoder):
    def __init__(self, device):
        device = torch.device(device)
        super().__init__(torch.device(device.type, 0) if device.type != "cpu" else device)  # FAULT: index 0
'''

TWIN_TESTS = '''
import cProfile
import ctypes
import pstats
import sys
import unittest

import devparity
import pytest
import torch

import twinlib


@pytest.fixture(autouse=True)
def needs_cuda(request):
    callspec = getattr(request.node, "callspec", None)  # (unittest's methods have none)
    if callspec is not None and callspec.params.get("device") == "cuda" and not torch.cuda.is_available():
        pytest.skip("no cuda")


def coverage_tool(frame, event, arg):
    return None


@pytest.fixture(autouse=True)
def traced_by_a_coverage_tool():
    previous = sys.gettrace()
    sys.settrace(coverage_tool)
    yield
    sys.settrace(previous)


def other_index(device):
    device = torch.device(device)
    return torch.device(device.type, 1 - (device.index or 0)) if device.type != "cpu" else device


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_checked(device):
    x = torch.rand(3, device=device)
    out = twinlib.checked(twinlib.brighten(x), x + 0.1)
    assert out.device == x.device


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_checked_home(device):
    x = torch.rand(3, device=device)
    twinlib.checked_home(x, x + 0.1)


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("fault", [False, True])
def test_after_a_profiler_handed_back(device, fault):
    # A profiler in the test's code saves the profile function and restores it (the watch then goes
    # on in Python), and a coverage tool's trace function is left where it was.
    saved = sys.getprofile()
    sys.setprofile(None)
    sys.setprofile(saved)
    assert sys.gettrace() is coverage_tool
    x = torch.rand(3, device=device)
    if fault:
        twinlib.checked_home(x, x + 0.1)
    else:
        twinlib.checked(twinlib.brighten(x), x + 0.1)


def profiled_after_the_test():
    return None


@pytest.fixture
def profiled():
    # `python -m cProfile -m pytest`: on Python 3.11 a profile function set in C, which
    # sys.setprofile cannot put back (Note [A profiler in C]).
    profiler = cProfile.Profile()
    profiler.enable()
    yield
    profiled_after_the_test()
    profiler.disable()
    assert "profiled_after_the_test" in {key[2] for key in pstats.Stats(profiler).stats}, "the profiler was lost"


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("fault", [False, True])
def test_under_cprofile(profiled, device, fault):
    x = torch.rand(3, device=device)
    if fault:
        twinlib.checked_home(x, x + 0.1)
    else:
        twinlib.checked(twinlib.brighten(x), x + 0.1)


class OtherProfiler:
    """Another profiler in C: its object is not a Python callable, and it has no way back in."""

    calls = 0


@ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
def other_profiler_event(profiler, frame, what, arg):
    profiler.calls += 1
    return 0


@pytest.fixture
def other_profiler():
    profiler = OtherProfiler()
    ctypes.pythonapi.PyEval_SetProfile(other_profiler_event, ctypes.py_object(profiler))
    yield profiler
    still = sys.getprofile()
    sys.setprofile(None)
    assert still is profiler and profiler.calls > 0, "the profiler was lost"


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_under_another_profiler_in_c(other_profiler, device):
    before = other_profiler.calls
    x = torch.rand(3, device=device)
    twinlib.checked(twinlib.brighten(x), x + 0.1)
    assert other_profiler.calls > before  # left in place: the test's received values go unjudged


class TestAsUnittest(unittest.TestCase):
    # unittest's methods run without pytest_pyfunc_call: watched all the same.
    def test_checked(self):
        x = torch.rand(3, device=devparity.device("vdev:1"))
        twinlib.checked(twinlib.brighten(x), x + 0.1)

    def test_checked_home(self):
        x = torch.rand(3, device=devparity.device("vdev:1"))
        twinlib.checked_home(x, x + 0.1)


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_second_decoder_on_the_other_device(device):
    x = torch.rand(3, device=device)
    other = twinlib.Decoder(other_index(device))
    assert other(x).device == x.device
    mine = torch.arange(4, device=other_index(device))  # the test's own data on the other index
    assert mine.to(x.device).device == x.device


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_decoder_on_the_first_device(device):
    x = torch.rand(3, device=device)
    assert twinlib.FirstDeviceDecoder(x.device)(x).device == x.device
'''


def test_correct_code_passes_where_its_faulty_twin_fails(pytest_run, pytester, tmp_path, monkeypatch):
    (pytester.path / "lib").mkdir()
    (pytester.path / "lib" / "twinlib.py").write_text(TWIN_LIBRARY)
    pytester.makepyfile(test_twins=TWIN_TESTS)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path / "lib"), os.environ.get("PYTHONPATH", "")]))
    report = tmp_path / "session.json"
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "--devparity-trace", f"--devparity-report={report}",
                               "test_twins.py")
    rows = {r["id"]: r for r in load_report(report)["results"]}

    def kinds(test):
        return {f["kind"] for c in rows[test]["checks"] for f in c["findings"] if f["severity"] == "error"}

    for row in ("cpu", "vdev:1"):
        # The library's look at the test's tensor through `.cpu()`: clean; its result sent home: caught.
        assert outcomes[f"test_twins.py::test_checked[{row}]"] == "PASSED", run.stdout[-4000:]
        assert "wrong_device_output" in kinds(f"test_twins.py::test_checked_home[{row}]"), rows
        assert outcomes[f"test_twins.py::test_after_a_profiler_handed_back[False-{row}]"] == "PASSED", run.stdout[-4000:]
        assert "wrong_device_output" in kinds(f"test_twins.py::test_after_a_profiler_handed_back[True-{row}]"), rows
        # A profiler in C (cProfile on 3.11) is put back after the test's call, which is watched;
        # one devparity cannot put back is left in place, and the test runs unwatched.
        assert outcomes[f"test_twins.py::test_under_cprofile[False-{row}]"] == "PASSED", run.stdout[-4000:]
        assert "wrong_device_output" in kinds(f"test_twins.py::test_under_cprofile[True-{row}]"), rows
        assert outcomes[f"test_twins.py::test_under_another_profiler_in_c[{row}]"] == "PASSED", run.stdout[-4000:]
    assert outcomes["test_twins.py::TestAsUnittest::test_checked"] == "PASSED", run.stdout[-4000:]
    assert "wrong_device_output" in kinds("test_twins.py::TestAsUnittest::test_checked_home"), rows
    # A decoder the test makes on the other index, and the test's own data there: its choice. A
    # library that picks index 0 itself: caught, on the row where that is not the data's device.
    assert outcomes["test_twins.py::test_second_decoder_on_the_other_device[vdev:1]"] == "PASSED", run.stdout[-4000:]
    assert kinds("test_twins.py::test_second_decoder_on_the_other_device[vdev:1]") == set()
    assert outcomes["test_twins.py::test_decoder_on_the_first_device[vdev:1]"] == "FAILED", run.stdout[-4000:]
    assert "foreign_device_target" in kinds("test_twins.py::test_decoder_on_the_first_device[vdev:1]")


PARAMS_LIBRARY = '''
import torch


def make_params(image, value):
    # torchvision's RandomErasing.make_params: parameters sampled on the host generator, the fill
    # value the caller gave as numbers; the kernel copies them over.
    if value is None:
        v = torch.empty([image.shape[-3], 2, 2], dtype=torch.float32).normal_()
    else:
        v = torch.tensor(value)[:, None, None]
    i = torch.randint(0, 3, size=(1,)).item()
    return dict(i=i, v=v, sigma=torch.rand(1))


def erase(image, i, v, sigma):
    image = image.clone()
    image[..., i:i + 2, i:i + 2] = v
    return image


def describe(image):
    return torch.empty(image.shape[0], 0, 128)  # FAULT: no device (Kornia #2926)


def describe_ones(image):
    return {"descs": -1 * torch.ones(image.shape[0], 4)}  # FAULT: no device (efficientdet #105)
'''

PARAMS_TESTS = '''
import pytest
import torch

import paramslib


@pytest.fixture(autouse=True)
def needs_cuda(request):
    if request.node.callspec.params.get("device") == "cuda" and not torch.cuda.is_available():
        pytest.skip("no cuda")


@pytest.mark.parametrize("value", [None, [0.5], [0.0, 1.0, 0.5]])
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_erase(device, value):
    image = torch.rand(3, 8, 8, device=device)
    params = paramslib.make_params(image, value)
    assert paramslib.erase(image, **params).device == image.device


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_describe(device):
    assert paramslib.describe(torch.rand(2, 8, 8, device=device)).shape == (2, 0, 128)


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_describe_ones(device):
    assert paramslib.describe_ones(torch.rand(2, 8, 8, device=device))["descs"].shape == (2, 4)


@pytest.mark.parametrize("dev", ["cpu", "cuda"])  # torchvision's test_models names it so
def test_describe_dev(dev):
    if dev == "cuda" and not torch.cuda.is_available():
        pytest.skip("no cuda")
    assert paramslib.describe(torch.rand(2, 8, 8, device=dev)).shape == (2, 0, 128)


@pytest.mark.parametrize("backend", ["cuda", "triton"])  # names, not devices
def test_backend_names(backend):
    assert backend in ("cuda", "triton")
'''


def test_parameters_sampled_on_the_host_are_handed_back_there_and_results_are_not(pytest_run, pytester, tmp_path,
                                                                                   monkeypatch):
    # Note [Parameters the library samples]; the suite turns every warning into an error, as
    # torchvision's does (Note [Placement warnings under a suite's filters]): the erase kernel's
    # host_to_device_copy warning stays a warning.
    (pytester.path / "lib").mkdir()
    (pytester.path / "lib" / "paramslib.py").write_text(PARAMS_LIBRARY)
    pytester.makepyfile(test_params=PARAMS_TESTS)
    pytester.makeini("[pytest]\nfilterwarnings =\n    error\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path / "lib"), os.environ.get("PYTHONPATH", "")]))
    report = tmp_path / "session.json"
    args = ("--devparity-devices=cpu,vdev:1", "--devparity-trace", f"--devparity-report={report}", "test_params.py")
    run, outcomes = pytest_run(*args)
    rows = {r["id"]: r for r in load_report(report)["results"]}

    def kinds(test, severity="error"):
        return {f["kind"] for c in rows[test]["checks"] for f in c["findings"] if f["severity"] == severity}

    for row in ("cpu", "vdev:1"):
        for value in ("None", "value1", "value2"):
            test = f"test_params.py::test_erase[{row}-{value}]"
            assert outcomes[test] == "PASSED", run.stdout[-4000:]
            assert kinds(test) == set(), rows[test]
        for test in ("test_describe", "test_describe_ones"):
            assert outcomes[f"test_params.py::{test}[{row}]"] == "FAILED", run.stdout[-4000:]
            assert "wrong_device_output" in kinds(f"test_params.py::{test}[{row}]")
    # A device parameter by another name gets the simulated rows, and the fault is caught there; a list of
    # names that holds "cuda" beside others is no device parameter.
    assert outcomes["test_params.py::test_describe_dev[vdev:1]"] == "FAILED", run.stdout[-4000:]
    assert "wrong_device_output" in kinds("test_params.py::test_describe_dev[vdev:1]")
    assert sorted(t for t in outcomes if "test_backend_names" in t) == [
        "test_params.py::test_backend_names[cuda]", "test_params.py::test_backend_names[triton]"]
    assert "host_to_device_copy" in {k for v in ("None", "value1", "value2")
                                     for k in kinds(f"test_params.py::test_erase[vdev:1-{v}]", "warning")}
    # A suite that names the plugin's warning as an error gets it as one.
    pytester.makeini("[pytest]\nfilterwarnings =\n    error::devparity.pytest_plugin.DevparityPlacementWarning\n")
    # (Once per line of code: the first test to meet the kernel's copy.)
    run, outcomes = pytest_run(*args[:3], "test_params.py::test_erase")
    assert run.returncode == 1 and "DevparityPlacementWarning" in run.stdout, run.stdout[-4000:]


REFUSED_MODULE = '''
import pytest
import torch


class OpCheckError(Exception):
    pass


def check(x):
    # torch.library.opcheck's autograd_registration_check, as torch 2.x words it
    if x.device.type not in ("cpu", "cuda"):
        raise NotImplementedError(f"autograd_registration_check: NYI devices other than CPU/CUDA, got {{{x.device.type!r}}}")


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_opcheck(device):
    x = torch.ones(2, device=device)
    try:
        check(x)
    except NotImplementedError as e:
        raise OpCheckError("opcheck(op, ...): test_autograd_registration failed") from e


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_not_implemented_here(device):
    raise NotImplementedError("the library has no such mode")  # the library's own: a failure
'''


def test_what_torch_refuses_on_the_simulated_device_is_a_named_skip(pytest_run, pytester):
    # Issue 57: torchvision 0.21's opcheck tests failed on vdev:1 alone ("NYI devices other than CPU/CUDA,
    # got {'vdev'}", raised inside opcheck's own OpCheckError). A NotImplementedError of the code's own
    # stays a failure on every row.
    pytester.makepyfile(test_refused=REFUSED_MODULE)
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "--devparity-trace", "test_refused.py")
    assert outcomes["test_refused.py::test_opcheck[cpu]"] == "PASSED", run.stdout[-3000:]
    assert "test_refused.py::test_opcheck[vdev:1]" not in outcomes, run.stdout[-3000:]  # -rA names no skip
    assert re.search(r"^SKIPPED \[1\] test_refused.py:\d+: devparity: torch refuses the simulated device here "
                     r"\(autograd_registration_check: NYI devices other than CPU/CUDA", run.stdout, re.M), run.stdout
    for row in ("cpu", "vdev:1"):
        assert outcomes[f"test_refused.py::test_not_implemented_here[{row}]"] == "FAILED", run.stdout[-3000:]


BRANCH_LIBRARY = '''
from typing import List

import torch


def _encode_on_host(images: torch.Tensor) -> torch.Tensor:
    if images.device.type != "cpu":
        raise RuntimeError("Input tensor should be on CPU")
    return (images * 255).to(torch.uint8).flatten()


def _encode_on_gpu(images: List[torch.Tensor]) -> List[torch.Tensor]:  # (a CUDA-only op: nvJPEG)
    raise AssertionError("no GPU runs here")


def encode(batch: List[torch.Tensor]) -> List[torch.Tensor]:
    """Picks its CUDA-only encoder by the device type's name, as torchvision 0.21's encode_jpeg does."""
    if batch[0].device.type == "cuda":
        return _encode_on_gpu(batch)
    else:
        return [_encode_on_host(image) for image in batch]


def encode_if_big(batch, big):
    if batch[0].device.type == "cuda" and big:  # FAULT: small batches take the host encoder on a GPU too
        return _encode_on_gpu(batch)
    return [_encode_on_host(image) for image in batch]


def encode_anywhere(batch):
    return [_encode_on_host(image) for image in batch]  # FAULT: refuses device data everywhere
'''

BRANCH_TESTS = '''
import pytest
import torch

import branchlib


@pytest.fixture(autouse=True)
def needs_cuda(request):
    if request.node.callspec.params.get("device") == "cuda" and not torch.cuda.is_available():
        pytest.skip("no cuda")


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_encode(device):
    assert len(branchlib.encode([torch.rand(3, 2, 2, device=device)])) == 1


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_encode_scripted(device):
    assert len(torch.jit.script(branchlib.encode)([torch.rand(3, 2, 2, device=device)])) == 1


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_encode_small(device):
    assert len(branchlib.encode_if_big([torch.rand(3, 2, 2, device=device)], big=False)) == 1


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_encode_anywhere(device):
    assert len(branchlib.encode_anywhere([torch.rand(3, 2, 2, device=device)])) == 1
'''


def test_a_failure_on_the_side_of_a_cuda_branch_a_gpu_does_not_run_is_a_named_skip(pytest_run, pytester, monkeypatch):
    # Issue 57: torchvision 0.21's encode_jpeg of a batch picks nvJPEG by `device.type == "cuda"`; on vdev:1
    # the CPU encoder refused device data (Note [Branches on the device type's name]). Its twins: a branch
    # whose else a GPU runs too, and an encoder with no branch, fail on vdev:1 as on a GPU.
    (pytester.path / "lib").mkdir()
    (pytester.path / "lib" / "branchlib.py").write_text(BRANCH_LIBRARY)
    pytester.makepyfile(test_branches=BRANCH_TESTS)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path / "lib"), os.environ.get("PYTHONPATH", "")]))
    run, outcomes = pytest_run("--devparity-devices=cpu,vdev:1", "--devparity-trace", "test_branches.py")
    for name in ("encode", "encode_scripted", "encode_small", "encode_anywhere"):
        assert outcomes[f"test_branches.py::test_{name}[cpu]"] == "PASSED", run.stdout[-3000:]
    for name in ("encode", "encode_scripted"):  # (TorchScript's error names the scripted lines)
        assert f"test_branches.py::test_{name}[vdev:1]" not in outcomes, run.stdout[-3000:]  # -rA names no skip
    skips = re.findall(r"^SKIPPED \[1\] test_branches.py:\d+: devparity: the library picks its CUDA path by the "
                       r"device type's name at \S*branchlib.py:19; the simulated device takes the other branch, "
                       r"which a GPU does not run, and fails there \(RuntimeError: Input tensor should be on CPU\)$",
                       run.stdout, re.M)
    assert len(skips) == 2, run.stdout[-3000:]
    for name in ("encode_small", "encode_anywhere"):
        assert outcomes[f"test_branches.py::test_{name}[vdev:1]"] == "FAILED", run.stdout[-3000:]
