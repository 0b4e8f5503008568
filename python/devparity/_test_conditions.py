"""What a test on the simulated device runs under, and what it is told when it fails: the
asynchronous device's races, perturbed arithmetic, CUDA's arithmetic."""

from __future__ import annotations

import contextlib
import json
import zlib
from typing import Dict, Iterator, Optional

import pytest

from devparity._devices import ops
from devparity._plugin_options import PluginOptions
from devparity._streams import AsyncRun


def _interleaving_seed(item: pytest.Item) -> int:
    # Stable across runs and machines, so a race replays with the test alone.
    return zlib.crc32(item.nodeid.encode("utf-8"))


# Note [Asynchronous by default]
# A test on vdev:K runs on the asynchronous simulated device, as a test on cuda:K runs on a GPU's
# streams: stream and event ordering bugs fail it with the race, in an interleaving drawn from its
# node id (the same in every run, so a failure replays with the test alone). A vdev_async() block
# inside the test pauses this session and resumes it after; --devparity-vdev-sync runs each op at
# its call instead.


@contextlib.contextmanager
def asynchronous(item: pytest.Item, options: PluginOptions, simulated: bool) -> Iterator[Optional[AsyncRun]]:
    """The test's asynchronous run (Note [Asynchronous by default]), or None."""
    if not simulated or options.vdev_sync:
        yield None
        return
    with AsyncRun(_interleaving_seed(item), ambient=True, pinned_release=options.pinned_release) as run:
        yield run


def fail_on_races(item: pytest.Item, run: AsyncRun, failed: bool) -> None:
    """The races go on the test's report; they fail it, unless it failed already (its values, often,
    where the race bit): it keeps its own error."""
    lines = "\n".join(f"  {race.message}" for race in run.races)
    item.add_report_section("call", f"devparity races (interleaving seed {run.seed})", lines)
    if failed:
        return
    pytest.fail(f"devparity: {len(run.races)} unsynchronized access(es) on the asynchronous simulated device "
                f"(interleaving seed {run.seed}; --devparity-vdev-sync runs ops at their call):\n{lines}",
                pytrace=False)


@contextlib.contextmanager
def perturbed(options: PluginOptions, simulated: bool) -> Iterator[Optional[Dict[str, int]]]:
    """Note [Perturbed numerics]: the test's own assertions judge; what moved (switch -> op calls) is
    told on failure."""
    if not (options.perturb and simulated):
        yield None
        return
    moved: Dict[str, int] = {}
    try:
        ops().perturb_begin(options.perturb)
    except RuntimeError as e:
        raise pytest.UsageError(f"devparity: {e}") from None
    try:
        yield moved
    finally:
        moved.update(json.loads(ops().perturb_end()))


def tell_perturbation(item: pytest.Item, moved: Dict[str, int], failed: bool) -> None:
    if failed and moved:
        words = ", ".join(f"{name} in {calls} op call(s)" for name, calls in sorted(moved.items()))
        item.add_report_section("call", "devparity perturbed numerics", f"  values moved by: {words}")


class CudaArithmetic:
    """What CUDA's models moved in one test (Note [CUDA's arithmetic on vdev])."""

    def __init__(self) -> None:
        self.moved = False
        self.words = ""

    def take(self) -> None:
        taken = json.loads(ops().cuda_arithmetic_take())
        self.moved, self.words = bool(taken["moved"]), str(taken["words"])


@contextlib.contextmanager
def cuda_arithmetic(options: PluginOptions, simulated: bool) -> Iterator[Optional[CudaArithmetic]]:
    """Note [CUDA's arithmetic on vdev]: what CUDA's models moved in this test, told on failure."""
    if not (simulated and options.cuda_arithmetic):
        yield None
        return
    ops().cuda_arithmetic_take()  # what ran before this test is not its own
    seen = CudaArithmetic()
    try:
        yield seen
    finally:
        seen.take()


def tell_cuda_arithmetic(item: pytest.Item, seen: CudaArithmetic, failed: bool) -> None:
    if failed and seen.moved:
        item.add_report_section("call", "devparity CUDA arithmetic",
                                f"  vdev computed as CUDA would, and moved values: {seen.words}")
