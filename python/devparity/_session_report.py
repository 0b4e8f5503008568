"""The pytest plugin's --devparity-report: the session's findings in devparity's report schema.

One result per traced test (its node id, on the device it was judged against) with one
`placement` check holding its findings, so that `devparity diff`, `merge` and `html` read it: built
by devparity's C++ code (python/csrc/session_report.cpp) from what the plugin saw of each test, and
reported through devparity's own session (harness/session/session.h): totals, the run object, the
streamed and atomically written report are `devparity run`'s.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, Dict, Iterable, Optional, Sequence

import pytest

from devparity._devices import device_name, op_error, ops as _ops

if TYPE_CHECKING:
    from devparity._rows import Row


def write_session_report(path: str, rows: Sequence[Row], started: float, config: pytest.Config,
                         shard: Optional[str] = None) -> None:
    """The report of `rows` (what the plugin saw of each traced test) at `path`, through devparity's own
    session, which builds each test's result. `shard` ("I/N", --devparity-shard) is recorded for
    `devparity merge` to find a missing one."""
    tests = [dict(row, device=device_name(row["target"]) if row["target"] else "cpu") for row in rows]
    options: Dict[str, Any] = {"report": path, "argv": ["pytest"] + [str(a) for a in config.invocation_params.args],
               "placement": config.getoption("devparity_placement"),
               "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
               "duration_s": max(0.0, time.time() - started)}
    if shard is not None:
        options["shard"] = shard
    try:
        _ops().session_report(json.dumps(tests), json.dumps(options))
    except (RuntimeError, ValueError) as e:
        raise op_error(e) from None


def merge_parts(parts: Iterable[str], output: str, gaps: Iterable[str]) -> None:
    """`devparity merge`'s merge of the pytest-xdist workers' parts into `output`; `gaps` (a worker that
    died, the test it was running) mark it incomplete."""
    try:
        _ops().merge_session_parts(list(parts), output, list(gaps))
    except (RuntimeError, ValueError) as e:
        raise op_error(e) from None
