"""One pytest run's devparity: its state, and the hooks that use it. Made before the first conftest
is imported (pytest_plugin.pytest_load_initial_conftests) and registered as a plugin in
pytest_configure, as pytest-xdist registers its DSession: a run without devparity's options
registers none, and pays for none of its hooks."""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Iterator, List, Optional, Set

import pytest

from devparity import _sources
from devparity._devices import installed_count
from devparity._hook_types import Wrapper, hookimpl
from devparity._placement_warnings import Site
from devparity._plugin_options import PluginOptions
from devparity._rows import Rows, cuda_branch_refusal, refused_by_torch
from devparity._session_report import write_session_report
from devparity._test_conditions import (asynchronous, cuda_arithmetic, fail_on_races, perturbed,
                                        tell_cuda_arithmetic, tell_perturbation)
from devparity._test_devices import DevicesUnderTest, NamedDevice, held_back, is_simulated, row_conditions
from devparity._traced_test import RECEIVED, traced_call
from devparity._xdist import ROWS, Controller, is_controller, worker_part


class PluginSession:
    """The devices under test, the rows of --devparity-report, the warnings given, and a pytest-xdist
    controller's merge of its workers' reports."""

    def __init__(self, options: PluginOptions, devices: List[NamedDevice]) -> None:
        self.options = options
        self.devices = DevicesUnderTest(devices)
        self.started = time.time()
        self.rows = Rows(options.placement)
        self.warned_sites: Set[Site] = set()   # of the warnings given (--devparity-warnings=once)
        self.controller: Optional[Controller] = None   # a pytest-xdist controller's

    @contextlib.contextmanager
    def row(self, item: pytest.Item) -> Iterator[None]:
        """The conditions of the test's row (_test_devices.row_conditions)."""
        with row_conditions(item, self.devices.target(item)):
            yield

    def pytest_report_header(self, config: pytest.Config) -> str:
        trace = (f"trace on (placement {self.options.placement}, warnings {self.options.warnings})"
                 if self.options.trace else "trace off")
        names = ", ".join(name for name, _ in self.devices.devices) or "none"
        return f"devparity: devices {names}; simulated vdev indices {installed_count()}; {trace}"

    @hookimpl(tryfirst=True)
    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        self.devices.parametrize(metafunc)

    def pytest_collection_modifyitems(self, items: List[pytest.Item]) -> None:
        # Note [Scaffolding]: files beside the test modules are the suite's own helpers.
        _sources.add_scaffolding_dirs({os.path.dirname(str(item.path)) for item in items})
        if not self.devices.simulated():
            return
        skip = pytest.mark.skip(reason="devparity: torch.compile and dynamo do not run on the simulated device")
        for item in items:
            on_vdev = "[vdev" in item.nodeid or "-vdev" in item.nodeid
            if on_vdev and any(word in item.nodeid.lower() for word in ("compile", "dynamo")):
                item.add_marker(skip)

    @hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Wrapper:
        target = self.devices.target(item)
        held = held_back(target)
        if held:
            if self.options.trace:
                self.rows.untraced(item, target, held)
            pytest.skip(held)
        with self.row(item):
            yield

    @hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Wrapper:
        simulated = is_simulated(self.devices.target(item))
        with cuda_arithmetic(self.options, simulated) as cuda_moved, perturbed(self.options, simulated) as moved, \
                asynchronous(item, self.options, simulated) as run:
            if self.options.trace:
                outcome = yield from traced_call(self, item)
            else:
                with self.row(item):
                    outcome = yield
        failed = outcome.excinfo is not None
        if moved is not None:
            tell_perturbation(item, moved, failed)
        if cuda_moved is not None:
            tell_cuda_arithmetic(item, cuda_moved, failed)
        if run is not None and run.races:
            self.rows.add_races(item.nodeid, run.races, run.seed)
            fail_on_races(item, run, failed)

    @hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Wrapper:
        with self.row(item):
            yield

    @hookimpl(hookwrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Wrapper:
        # Note [Received values]: the watch slows every Python call it sees (3.11 runs all code on its
        # slow path while a profile function is set), so it covers the test function alone, not pytest's
        # hooks around it.
        received = pyfuncitem.__dict__.get(RECEIVED)
        if received is None:
            yield
            return
        with received:
            yield

    @hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Wrapper:
        # What a GPU runs and the simulated device cannot by torch's design (DLPack, 1.13's autocast) is
        # the simulator's gap: a skip naming the reason, never the suite's failure (Note [Python layer]).
        outcome = yield
        report: pytest.TestReport = outcome.get_result()
        if hasattr(item.config, "workerinput"):
            fresh = self.rows.take_unrelayed()
            if fresh:
                report.user_properties.append((ROWS, json.dumps(fresh)))
        if call.excinfo is None:
            return
        refused = refused_by_torch(call.excinfo.value)
        if refused is None and is_simulated(self.devices.target(item)):
            refused = cuda_branch_refusal(call.excinfo.value)
        if refused is not None:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0, f"devparity: {refused}")

    # pytest-xdist's controller merges its workers' parts of --devparity-report.
    @hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: object) -> None:
        if self.options.report and self.controller is None:
            self.controller = Controller(self.options.report)
        if self.controller is not None:
            self.controller.node_configured(node)

    @hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: Optional[str]) -> None:
        if self.controller is not None:
            self.controller.node_down(node, error)

    @hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: object) -> None:
        if self.controller is not None:
            self.controller.crash(crashitem, getattr(report, "node", None))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.controller is not None:
            self.controller.relay(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        path = self.options.report
        if not path:
            return
        if self.controller is not None:
            self.controller.finish(path, self.started, session.config, self.options.shard)
        elif not is_controller(session.config):  # (a controller whose workers never started has no parts)
            write_session_report(worker_part(session.config) or path, self.rows.rows, self.started, session.config,
                                 self.options.shard)
