"""A test under the tracer (--devparity-trace): its trace, what it received, the random sweep of the
seeds it did not draw, and what of its findings fail it."""

from __future__ import annotations

import contextlib
import functools
import os
import time
from typing import TYPE_CHECKING, Callable, ContextManager, Iterator, List, Optional

import pytest
import torch

import devparity
from devparity import _sources
from devparity._coverage import Arcs, sweep
from devparity._findings import Finding
from devparity._hook_types import WrapperPart
from devparity._patching import patched
from devparity._placement_warnings import new_warnings, warn_placement
from devparity._received import Received
from devparity._rows import skip_reason
from devparity._test_devices import absent, simulated_index
from devparity._trace import Trace, _is_device_mismatch

if TYPE_CHECKING:
    from devparity._plugin_session import PluginSession

RECEIVED = "_devparity_received"   # an item's attribute: the watch over its test function's call
_RERUN_PATIENCE = 2  # reruns in a row that take the code nowhere new end the sweep


def untraced_call(session: PluginSession, item: pytest.Item, target: Optional[torch.device],
                  absent_because: str) -> WrapperPart:
    """The test's device is not in this process: the test runs as it would without devparity (it skips
    itself, or fails as it would), and its row of --devparity-report is a skip with the reason."""
    started = time.perf_counter()
    with session.row(item):
        outcome = yield
    reason = skip_reason(outcome.excinfo) or f"not traced: {absent_because}"
    session.rows.untraced(item, target, reason, (time.perf_counter() - started) * 1000.0)
    return outcome


def traced_call(session: PluginSession, item: pytest.Item) -> WrapperPart:
    """The test's call under the tracer: its row, its warnings, and its failure on placement errors."""
    target = session.devices.target(item)
    absent_because = absent(target)
    if absent_because:
        return (yield from untraced_call(session, item, target, absent_because))
    tracer = devparity.trace(target, strict=session.options.strict)
    started = time.perf_counter()
    with session.row(item):
        bound = session.options.random_sweep
        drawn = _draws_state() if bound > 0 and simulated_index(target) is not None else None
        tracer.__enter__()
        if target is not None:  # the test names its device: its fixtures' tensors are its inputs
            tracer.inputs(*(getattr(item, "funcargs", None) or {}).values())
        received = Received()
        # A test function is watched around its call alone (pytest_pyfunc_call); other items
        # (unittest's TestCase methods run without that hook) around the whole call.
        alone = type(item).runtest is pytest.Function.runtest
        if alone:
            item.__dict__[RECEIVED] = received
        try:
            watch: ContextManager[object] = received
            if alone:
                watch = contextlib.nullcontext()
            with watch, _seeding_noted(drawn is not None) as seeded:
                outcome = yield
        finally:
            item.__dict__.pop(RECEIVED, None)  # (the random sweep's reruns are not watched)
        exc = outcome.excinfo
        skipped_because = skip_reason(exc)
        seeds: Optional[List[int]] = None   # the random sweep's
        try:  # the trace ends whatever a rerun raises: the next test opens its own
            # (A test that seeds itself may end in the state the last one left: it drew all the same.)
            if drawn is not None and skipped_because is None and (seeded or not torch.equal(drawn, _draws_state())):
                seeds = _random_sweep(item, tracer, bound)
        finally:
            tracer.__exit__(*(exc if exc else (None, None, None)))
    test_file = os.path.abspath(str(item.path))
    tracer.findings = [f for f in tracer.findings if not (_scaffolding(test_file, f) or received.caller_chose(f))]
    session.rows.traced(item, tracer, (time.perf_counter() - started) * 1000.0, skipped_because, seeds)
    for finding in new_warnings(tracer.findings, session.warned_sites if session.options.warnings_once else set()):
        warn_placement(str(finding), finding.file or item.location[0], finding.line or 0)
    failing = tracer.errors
    if failing and exc is None:
        lines = "\n".join(f"  {f}" for f in failing)
        pytest.fail(f"devparity: {len(failing)} placement problem(s) on {tracer.target_name}:\n{lines}",
                    pytrace=False)
    return outcome


def _draws_state() -> torch.Tensor:
    return torch.default_generator.get_state()


def _manual_seed_as(replacement: Callable[[int], torch.Generator]) -> ContextManager[None]:
    # torch.manual_seed by both of its names, while the block runs.
    return patched([(torch, "manual_seed", replacement), (torch.random, "manual_seed", replacement)])


@contextlib.contextmanager
def _seeding_noted(needed: bool) -> Iterator[List[int]]:
    # Yields a list that is non-empty once the code called torch.manual_seed (when `needed`: only the
    # random sweep asks, and patching costs every test).
    calls: List[int] = []
    if not needed:
        yield calls
        return
    original = torch.manual_seed

    def noted(seed: int) -> torch.Generator:
        calls.append(seed)
        return original(seed)

    with _manual_seed_as(noted):
        yield calls


@contextlib.contextmanager
def _seeds_shifted(rerun: int) -> Iterator[None]:
    # A test that seeds itself (`torch.manual_seed(0)`) would take the same branch every rerun:
    # in rerun k its seeds are shifted by k.
    original = torch.manual_seed

    def shifted(seed: int) -> torch.Generator:
        return original((int(seed) + 7919 * rerun) % (2 ** 63))

    with _manual_seed_as(shifted):
        yield


def _random_sweep(item: pytest.Item, tracer: Trace, bound: int) -> List[int]:
    # Note [Random gates]: the test drew random numbers on the simulated device; other seeds may
    # take its code through branches its own seed did not. Only placement counts in these runs:
    # their values differ from the test's expectations by design.
    arcs = Arcs()
    state = _draws_state()

    def run_seed(seed: int) -> None:
        torch.manual_seed(seed)
        try:
            with arcs, _seeds_shifted(seed):
                item.runtest()
        except (Exception, pytest.skip.Exception, pytest.fail.Exception) as e:  # noqa: BLE001
            # A rerun's other failures (and skips) are its seed's values.
            if _is_device_mismatch(e):
                tracer.mismatch_under_seed(e, seed)

    try:
        _, tried = sweep(run_seed, arcs, range(1, bound + 1), patience=_RERUN_PATIENCE)
    finally:
        torch.default_generator.set_state(state)
    item.user_properties.append(("devparity_random_sweep", tried))
    return tried


def _scaffolding(test_file: str, finding: Finding) -> bool:
    # A test moves its inputs and reads its results back (assert_close syncs): warnings whose
    # line is in the test's own file or its helpers are the test's doing (Note [Scaffolding]), and
    # so is data it makes on another index by name (a second decoder on the other device).
    if (finding.severity != "warning" and finding.kind != "foreign_device_target") or not finding.file:
        return False
    return _absolute(finding.file) == test_file or _sources.is_scaffolding(finding.file)


@functools.lru_cache(maxsize=4096)
def _absolute(path: str) -> str:
    return os.path.abspath(path)
