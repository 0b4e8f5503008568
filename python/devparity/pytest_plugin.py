"""devparity's pytest plugin: a library's own tests on simulated devices, under the tracer.

Registered through the `pytest11` entry point (and usable as `-p devparity.pytest_plugin`); it
does nothing unless one of its options is given or DEVPARITY_VDEV=1 is set:

  --devparity-devices=cpu,vdev:1,meta  parametrizes the `devparity_device` fixture, adds the
                                       simulated devices to `parametrize("device", [..., "cuda"])`
                                       lists (or any one parameter's list of device names alone)
                                       and to a conftest's TEST_DEVICES dict (docs/python.md)
  --devparity-trace                    traces every test; placement errors fail it, warnings
                                       become pytest warnings (--devparity-placement=strict: fail)
  --devparity-report=FILE              writes the session's findings in devparity's report schema
  --devparity-vdev-count=N             indices of the simulated device (default 2)
  --devparity-random-sweep=N           with --devparity-trace: a test on the simulated device that
                                       drew random numbers runs again under up to N more seeds, for
                                       placement errors in branches its own seed did not take (off
                                       by default: it costs up to N runs of each such test)
  --devparity-shard=I/N                the I-th of N parts of the tests, for CI jobs whose reports
                                       `devparity merge` joins
  --devparity-scaffolding=GLOB         more files that are the suite's own test helpers
  --devparity-vdev-sync                a test on vdev:K runs each op at its call; by default it runs
                                       on the asynchronous simulated device (docs/vdev-async.md), in
                                       an interleaving drawn from its node id, and a race fails it
  --devparity-pinned-release=eager     on it, pinned memory dropped while a copy is pending is
                                       poisoned and reported (pools that do not track copies)
  --devparity-perturb=all|LIST         vdev computes with other legal arithmetic than the CPU (TF32,
                                       another summation order, ...): a test whose values depend on
                                       the CPU's fails, with the switches that moved them
  --devparity-vdev-arithmetic=cpu      vdev runs the CPU's kernels alone; by default it computes as
                                       CUDA would where devparity has a model (TF32 matmuls while the
                                       test allows them), and a failing test names the models
  DEVPARITY_VDEV=1                     installs it and, without --devparity-devices, means cpu,vdev:1

`vdev` without an index names the current device, as users write `cuda`. A test on vdev:K runs
with another index current (Note [Current device]), so code that relies on the current device
instead of its data's fails as it would on a multi-GPU machine.

The simulated device is installed before the first conftest is imported (so that a device dict
built at import sees it) and before any backward (autograd fixes its device threads then).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, List, Optional

import pytest

from devparity._hook_types import hookimpl
from devparity._placement_warnings import DevparityPlacementWarning, new_warnings
from devparity._plugin_options import PluginOptions
from devparity._shard import Shard

if TYPE_CHECKING:  # (imported when a run enables devparity: they import torch)
    import torch

    from devparity._plugin_session import PluginSession
    from devparity._test_devices import NamedDevice

__all__ = ["DevparityPlacementWarning", "devices_under_test", "new_warnings", "simulated_devices"]

_SESSION = pytest.StashKey["PluginSession"]()
_SHARD = pytest.StashKey[Shard]()
# The session of the run being configured or run, for what pytest calls without its config (a
# conftest's TEST_DEVICES, the public helpers a conftest imports); pytest_unconfigure clears it.
_current: List[PluginSession] = []


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("devparity", "devparity: tests on simulated devices, under the placement tracer")
    group.addoption("--devparity-devices", default=None, metavar="LIST",
                    help="devices to run device-parametrized tests on, e.g. cpu,vdev:1,meta "
                         "(the devparity_device fixture; parametrize('device') lists with 'cuda'; TEST_DEVICES)")
    group.addoption("--devparity-vdev-count", type=int, default=None, metavar="N",
                    help="indices of the simulated device vdev (1..16, default 2)")
    group.addoption("--devparity-trace", action="store_true", default=False,
                    help="trace every test; placement errors fail it, warnings become pytest warnings")
    group.addoption("--devparity-placement", default="warn", choices=("warn", "strict"),
                    help="with --devparity-trace: strict fails on warnings too")
    group.addoption("--devparity-report", default=None, metavar="FILE",
                    help="write the session's placement findings in devparity's report schema")
    group.addoption("--devparity-random-sweep", type=int, default=0, metavar="N",
                    help="with --devparity-trace: rerun a test on the simulated device that drew random numbers "
                         "under up to N more seeds for placement errors its own seed did not reach (default 0: off; "
                         "each rerun costs a run of the test, 8 cost a whole suite ~7x)")
    group.addoption("--devparity-scaffolding", action="append", default=[], metavar="GLOB",
                    help="files (fnmatch globs) that are the suite's own test helpers, not the code under test")
    group.addoption("--devparity-vdev-sync", action="store_true", default=False,
                    help="tests on vdev:K run each op at its call instead of on the asynchronous simulated device "
                         "with its race detector (the default)")
    group.addoption("--devparity-pinned-release", default="pooled", choices=("pooled", "eager"),
                    help="on the asynchronous simulated device: pinned memory is released after its pending copies "
                         "(pooled, PyTorch's pool) or at once, poisoned and reported (eager)")
    group.addoption("--devparity-perturb", default=None, metavar="LIST",
                    help="tests on vdev:K run with other legal arithmetic than the CPU's: all, or a comma list of "
                         "switches (devparity list names them; docs/perturbed-numerics.md)")
    group.addoption("--devparity-vdev-arithmetic", default="cuda", choices=("cuda", "cpu"),
                    help="tests on vdev:K compute as CUDA would where devparity models CUDA's arithmetic (cuda, the "
                         "default: TF32 matmuls while the test allows them, register_cuda_model's models) or with the "
                         "CPU's kernels alone (cpu; docs/cuda-arithmetic.md)")
    group.addoption("--devparity-shard", default=None, metavar="I/N",
                    help="run the I-th of N parts of the tests (0 <= I < N, by a hash of each node id, the same on every "
                         "machine); `devparity merge` joins the N reports and refuses a missing one (docs/python.md)")
    group.addoption("--devparity-warnings", default="once", choices=("once", "each"),
                    help="with --devparity-trace: a placement warning is about a line of code, given once per session "
                         "on the first test that runs it (once, the default), or on every test (each); the report "
                         "lists it on every test either way")


@hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: List[str]) -> None:
    namespace: argparse.Namespace = early_config.known_args_namespace
    options = PluginOptions.of(namespace)
    if options.shard is not None:  # (a bad one is a usage error before any conftest runs)
        early_config.stash[_SHARD] = Shard(options.shard)
    if not options.enabled:
        return
    import devparity
    from devparity import _sources
    from devparity._devices import ops
    from devparity._plugin_session import PluginSession

    try:
        if options.wants_vdev:
            devparity.install(options.installed_count)
            # Note [CUDA's arithmetic on vdev]: on by default, as the GPU computes.
            ops().set_cuda_arithmetic(options.cuda_arithmetic)
        devices = [(name, devparity.device(name)) for name in options.devices]
    except devparity.DevparityError as e:
        raise pytest.UsageError(f"devparity: {e}") from None
    session = PluginSession(options, devices)
    early_config.stash[_SESSION] = session
    _current[:] = [session]
    _sources.set_scaffolding_globs(options.scaffolding)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "devparity_vdev: a test parametrized onto the simulated device by devparity")
    session = config.stash.get(_SESSION, None)
    if session is not None:
        config.pluginmanager.register(session, "devparity-session")
    shard = config.stash.get(_SHARD, None)
    if shard is not None:
        config.pluginmanager.register(shard, "devparity-shard")


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_SESSION, None)
    if session is not None and _current and _current[0] is session:
        _current.clear()


def _session() -> Optional[PluginSession]:
    return _current[0] if _current else None


def simulated_devices() -> List[NamedDevice]:
    """The (name, torch.device) pairs of --devparity-devices that devparity makes: the simulated
    device and the cpu-only row, for a conftest's own dict."""
    session = _session()
    return session.devices.simulated() if session is not None else []


def devices_under_test() -> List[NamedDevice]:
    """Every (name, torch.device) pair of --devparity-devices, in order."""
    session = _session()
    return list(session.devices.devices) if session is not None else []


# The earlier name, kept for conftests that import it; marked so that pytest does not collect it
# as a test once it is imported into a test module.
test_devices = devices_under_test
setattr(test_devices, "__test__", False)


def pytest_plugin_registered(plugin: Any, manager: pytest.PytestPluginManager) -> None:
    # Kornia's idiom: a conftest-level TEST_DEVICES dict of name -> torch.device that its
    # `device` fixture looks names up in (`--device cpu,vdev`).
    table = getattr(plugin, "TEST_DEVICES", None)
    if _session() is None or not isinstance(table, dict):
        return
    for name, dev in simulated_devices():
        table.setdefault(name, dev)


@pytest.fixture
def devparity_device(request: pytest.FixtureRequest) -> torch.device:
    """The device a test runs on: each of --devparity-devices in turn (the CPU without it)."""
    import torch

    device: torch.device = getattr(request, "param", torch.device("cpu"))
    return device
