"""tools/real_suite.py on a library in the shape of a real one (tests/faults/realsuite: one project,
its library a faulty or a clean twin): a test that fails on the simulated device alone fails the
check, naming it; the clean library passes."""

import os
import re
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
TWINS = os.path.join(ROOT, "tests", "faults", "realsuite")


def release(tmp_path, twin, project="project", prefix="twin", compression="xz"):
    """The project with the twin's library, packed as a release is."""
    name = f"{prefix}-{twin}"
    archive = tmp_path / f"{name}.tar.{compression}"
    with tarfile.open(archive, f"w:{compression}") as tar:
        tar.add(os.path.join(TWINS, project), arcname=name)
        tar.add(os.path.join(TWINS, twin, "lib"), arcname=f"{name}/lib")
    return archive


def run_real_suite(tmp_path, twin, *extra, archive=None):
    archive = archive or release(tmp_path, twin)
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "real_suite.py"), str(archive),
                           os.path.join(TWINS, "expected.tsv"), "--work", str(tmp_path / "work"), *extra],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "DEVPARITY_CACHE": str(tmp_path / "cache")})


def test_the_cpu_runs_outcomes_are_reused_while_their_key_holds(tmp_path):
    archive = release(tmp_path, "faulty")
    first = run_real_suite(tmp_path, "faulty", archive=archive)
    assert "from the cache" not in first.stdout
    again = run_real_suite(tmp_path, "faulty", archive=archive)
    assert "the CPU run's outcomes from the cache" in again.stdout, again.stdout + again.stderr
    # The verdict is the same: the CPU row still excuses what fails everywhere and nothing else.
    assert again.returncode == 1 and "test_brighten[DEV]" in again.stdout and "test_fails_everywhere" not in again.stdout
    forced = run_real_suite(tmp_path, "faulty", "--cpu-run", "always", archive=archive)
    assert "from the cache" not in forced.stdout and forced.returncode == 1


def test_a_failure_on_the_simulated_device_alone_fails_the_check(tmp_path):
    run = run_real_suite(tmp_path, "faulty")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAIL: fails on vdev:1 only and is not a listed GPU failure: test.test_lib::test_brighten[DEV]" in run.stdout
    assert "error finding on a test that is not a listed GPU failure: test.test_lib::test_brighten[DEV]" in run.stdout
    assert "test_fails_everywhere" not in run.stdout  # failing on every device is the suite's own
    assert "test_normalize" not in run.stdout


def test_the_clean_library_passes_and_the_costs_are_printed(tmp_path):
    run = run_real_suite(tmp_path, "clean")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 fail there alone" in run.stdout and "CPU seconds: cpu" in run.stdout


def test_a_listed_failure_needs_its_cause(tmp_path):
    listed = tmp_path / "listed.tsv"
    listed.write_text("test.test_lib::test_brighten[DEV]\n")
    run = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "real_suite.py"), str(tmp_path / "none.tar.xz"),
                          str(listed)], capture_output=True, text=True, env={**os.environ, "CI": "1"})
    assert run.returncode != 0 and "MISSING" in run.stderr + run.stdout
    archive = release(tmp_path, "clean")
    run = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "real_suite.py"), str(archive), str(listed)],
                         capture_output=True, text=True)
    assert run.returncode != 0 and f"{listed}:1: a listed failure needs its cause" in run.stderr


def test_a_run_that_does_not_finish_is_an_error(tmp_path):
    # A module that fails to import is an error of that module on both runs, not the end of the run;
    # a run pytest stops (here, no tests at all) never passes the check.
    run = run_real_suite(tmp_path, "clean", "--timeout", "600")
    assert run.returncode == 0
    empty = tmp_path / "empty"
    (empty / "test").mkdir(parents=True)
    (empty / "conftest.py").write_text(open(os.path.join(TWINS, "project", "conftest.py")).read())
    archive = tmp_path / "empty.tar.xz"
    with tarfile.open(archive, "w:xz") as tar:
        tar.add(empty, arcname="empty")
    run = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "real_suite.py"), str(archive),
                          os.path.join(TWINS, "expected.tsv"), "--work", str(tmp_path / "w2")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode != 0 and "pytest exited 5" in run.stderr, run.stdout + run.stderr


def parametrized_release(tmp_path, twin):
    """The project in torchvision's shape (tests parametrized with "cpu" and "cuda"), the twin's library."""
    return release(tmp_path, twin, project="parametrized", prefix="params", compression="gz")


def test_a_suite_parametrized_by_device_compares_its_vdev_rows_with_its_cpu_rows(tmp_path):
    # Issue 57: torchvision's suite, rows in one run. The faulty library fails its vdev:1 row and is
    # an error finding on its cpu row too (the traced run's cpu rows count); the clean one passes.
    faulty = run_real_suite(tmp_path, "faulty", "--rows", "parametrized",
                            archive=parametrized_release(tmp_path, "faulty"))
    assert faulty.returncode == 1, faulty.stdout + faulty.stderr
    assert "fails on vdev:1 only and is not a listed GPU failure: test.test_lib::test_brighten[DEV]" in faulty.stdout
    assert "error finding on a test that is not a listed GPU failure: test.test_lib::test_brighten[cpu]" in faulty.stdout
    assert "test_normalize" not in faulty.stdout and "test_needs_no_device" not in faulty.stdout
    clean = run_real_suite(tmp_path / "clean", "clean", "--rows", "parametrized",
                           archive=parametrized_release(tmp_path, "clean"))
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "3 tests on vdev:1" in clean.stdout, clean.stdout


def junit(path, cases):
    """A junit file of (classname, name, error text or None) test cases; an error is a collection failure."""
    rows = []
    for classname, name, error in cases:
        inner = "" if error is None else f'<error message="collection failure">{error}</error>'
        rows.append(f'<testcase classname="{classname}" name="{name}" time="0.1">{inner}</testcase>')
    path.write_text(f'<testsuites><testsuite name="pytest">{"".join(rows)}</testsuite></testsuites>')
    return str(path)


def test_tests_the_plugin_lost_at_collection_fail_the_check(tmp_path):
    # Issue 57: a collection error in the plugin ran no test of the files it hit, in both rows (Kornia's
    # runs both under it), and the check passed on what was left.
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import real_suite
    finally:
        sys.path.pop(0)
    plugin_error = "python/devparity/pytest_plugin.py:253: in _device_name\nTypeError: ..."
    cpu = junit(tmp_path / "cpu.xml", [("test.test_a", "test_x[cpu-float32]", None),
                                        ("test.test_a", "test_weights_cpu[disk]", None),
                                        ("", "test.test_b", "ModuleNotFoundError: No module named 'onnx'")])
    traced = junit(tmp_path / "traced.xml", [("test.test_a", "test_x[vdev:1-float32]", None),
                                             ("test.test_a", "test_weights_cpu[disk]", None),
                                             ("", "test.test_b", "ModuleNotFoundError: No module named 'onnx'")])
    assert real_suite.missing_from_traced(cpu, traced, "option") == []  # the suite's own, in both runs
    lost = junit(tmp_path / "lost.xml", [("test.test_a", "test_weights_cpu[disk]", None),
                                         ("", "test.test_b", "ModuleNotFoundError: No module named 'onnx'"),
                                         ("", "TestX", plugin_error)])
    problems = real_suite.missing_from_traced(cpu, lost, "option")
    assert any("could not collect TestX" in p for p in problems), problems
    assert any("1 tests of the CPU run are not in the traced run" in p and "test_x[DEV-float32]" in p
               for p in problems), problems
    both = junit(tmp_path / "both.xml", [("", "TestX", plugin_error)])
    assert any("plugin failed collecting TestX" in p for p in real_suite.missing_from_traced(both, both, "option"))


COST_PROJECT = '''
import pytest
import torch


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("size", [3, 4])
def test_many_small_ops(device, size):
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("no cuda")
    x = torch.ones(size, device=device)
    for _ in range(3000):
        x = x * 1.0001 + 0.0001
    assert x.device.type == torch.device(device).type
'''


def test_plugin_cost_times_each_row_in_each_configuration(tmp_path):
    # tools/plugin_cost.py on a project parametrized as torchvision's is: five configurations, both rows
    # timed, the rows without devparity its baseline; a selection of nothing is refused.
    (tmp_path / "test_cost.py").write_text(COST_PROJECT)
    tool = os.path.join(ROOT, "tools", "plugin_cost.py")
    run = subprocess.run([sys.executable, tool, "--", "test_cost.py"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 6 and lines[1].startswith("without devparity"), run.stdout
    for number, line in enumerate(lines[1:]):
        found = re.search(r"(\d+\.\d\d)s +(\d+\.\d\d)s +(\S+)$", line)
        assert found and float(found[1]) > 0, run.stdout  # every configuration timed its cpu rows
        cpu, vdev, ratio = found.groups()
        if number == 0:  # without devparity the cuda rows skip: no vdev:1 rows, the baseline
            assert float(vdev) == 0 and ratio == "-", run.stdout
        else:
            assert float(vdev) > 0 and re.fullmatch(r"\d+\.\d\dx", ratio), run.stdout
    refused = subprocess.run([sys.executable, tool], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "give the tests to run" in refused.stderr
