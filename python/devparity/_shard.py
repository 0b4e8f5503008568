"""--devparity-shard=I/N: the I-th of N parts of a suite, for CI jobs whose reports `devparity merge`
joins."""

from __future__ import annotations

import zlib
from typing import List, Optional, Tuple

import pytest

from devparity._hook_types import hookimpl


def parse_shard(text: Optional[str]) -> Tuple[int, int]:
    """(I, N) of "I/N" as `devparity run --shard` takes it, or a UsageError naming the option."""
    index, slash, count = (text or "").partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        i, n = -1, 0
    if not slash or n < 1 or not 0 <= i < n:
        raise pytest.UsageError(f"devparity: --devparity-shard={text}: expected I/N with 0 <= I < N, e.g. 0/4")
    return i, n


class Shard:
    """Keeps one part's tests; registered as a plugin while a run gives --devparity-shard."""

    def __init__(self, text: str) -> None:
        self.index, self.count = parse_shard(text)
        self.unsharded = 0   # how many tests the whole suite had before this part's were kept

    # Last, after devparity's session has seen the whole suite: what it learns of the test files
    # (Note [Scaffolding]) must not depend on which part this is.
    @hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: List[pytest.Item]) -> None:
        # A node id's hash picks its part: a test added or removed moves no other test to another part.
        self.unsharded += len(items)
        kept: List[pytest.Item] = []
        dropped: List[pytest.Item] = []
        for item in items:
            (kept if zlib.crc32(item.nodeid.encode("utf-8")) % self.count == self.index else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = kept

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        # A part may hold no test (fewer tests than parts): it has not failed, and its (empty) report
        # is written, so that `devparity merge` finds every part.
        if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.unsharded > 0:
            session.exitstatus = pytest.ExitCode.OK
