"""Shared setup of devparity's Python tests: the simulated device, installed once per process."""

import contextlib
import os
import re
import sys
import types

import pytest

import devparity

# pytester runs the plugin's sample project (test_plugin.py).
pytest_plugins = ["pytester"]

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "faults", "python"))


def run_pytest(pytester, *args):
    """Runs pytest with `args` in pytester's folder, in a subprocess (the plugin installs a device
    backend, a process-wide act); returns the run (returncode, stdout, stderr as text, `result`
    pytester's RunResult) and each test's outcome by node id."""
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", "-q", *args, timeout=600)
    stdout, stderr = result.stdout.str(), result.stderr.str()
    outcomes = dict((test, status) for status, test in
                    re.findall(r"^(PASSED|FAILED|SKIPPED|ERROR) (test_\S+)", stdout, re.M))
    return types.SimpleNamespace(returncode=int(result.ret), stdout=stdout, stderr=stderr, result=result), outcomes


@pytest.fixture(scope="session")
def vdev():
    import devparity

    devparity.install(2)
    return devparity.device("vdev:1")


def fault_line(cls):
    """The line of `cls`'s source marked `# FAULT: kind`, as (file, line, kind)."""
    import inspect

    lines, start = inspect.getsourcelines(cls)
    for offset, text in enumerate(lines):
        if "# FAULT:" in text:
            return inspect.getsourcefile(cls), start + offset, text.split("# FAULT:")[1].strip()
    raise AssertionError(f"{cls.__name__} marks no fault line")


@contextlib.contextmanager
def current_device(index):
    """The simulated device's current index is `index` while the block runs."""
    ops = devparity._devices.ops()
    previous = ops.current_device()
    ops.set_device(index)
    try:
        yield
    finally:
        ops.set_device(previous)
