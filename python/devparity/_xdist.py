"""--devparity-report under pytest-xdist: each worker writes its part, the controller merges them.

A worker is a pytest session of its own, so each writes the report of the tests it ran to a part
file in a folder the controller names (its `workerinput`), and the controller joins the parts with
`devparity merge`'s own merge. Each worker also relays its rows to the
controller with each test's report, so that a worker that dies before it writes its part loses
nothing it had finished; the merged report is then marked incomplete, naming the worker and the test
it was running.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import TYPE_CHECKING, Any, Dict, List, Optional, cast

import pytest

if TYPE_CHECKING:
    from devparity._rows import Row

PARTS = "devparity_parts"      # workerinput key: the folder of the parts
ROWS = "devparity_rows"         # user_properties key: the rows a test added, relayed to the controller


class Controller:
    """The controller's side: where the parts go, and what it learned of the workers."""

    def __init__(self, report: str) -> None:
        folder = os.path.dirname(os.path.abspath(report))
        os.makedirs(folder, exist_ok=True)
        self.parts = tempfile.mkdtemp(prefix=f".{os.path.basename(report)}.xdist-", dir=folder)
        self.workers: List[str] = []
        self.relayed: Dict[str, List[Row]] = {}
        self.died: Dict[str, str] = {}       # worker -> why
        self.crashed: List[str] = []         # "gwN died running NODE ID", one per test a worker died in

    def node_configured(self, node: Any) -> None:
        node.workerinput[PARTS] = self.parts
        worker = node.gateway.id
        if worker not in self.workers:
            self.workers.append(worker)

    def node_down(self, node: Any, error: Optional[str]) -> None:
        if error:
            self.died[node.gateway.id] = str(error).strip().splitlines()[-1] if str(error).strip() else "no reason"

    def crash(self, nodeid: str, node: Any) -> None:
        self.crashed.append(f"{getattr(getattr(node, 'gateway', None), 'id', '?')} died running {nodeid}")

    def relay(self, report: Any) -> None:
        node = getattr(report, "node", None)
        if node is None:
            return
        for key, value in getattr(report, "user_properties", ()):
            if key == ROWS:
                self.relayed.setdefault(node.gateway.id, []).extend(cast("List[Row]", json.loads(value)))

    def finish(self, report: str, started: float, config: pytest.Config, shard: Optional[str]) -> None:
        from devparity._session_report import merge_parts, write_session_report

        try:
            parts, gaps = [], []
            for worker in self.workers:
                part = part_path(self.parts, worker)
                if not os.path.isfile(part):
                    rows = self.relayed.get(worker, [])
                    why = self.died.get(worker, "it ended")
                    gaps.append(f"worker {worker} wrote no part of the report ({why}); "
                                f"the {len(rows)} result(s) it relayed are kept")
                    write_session_report(part, rows, started, config, shard)
                parts.append(part)
            gaps.extend(self.crashed)
            if parts:
                merge_parts(parts, report, gaps)
        finally:
            shutil.rmtree(self.parts, ignore_errors=True)


def part_path(folder: str, worker: str) -> str:
    return os.path.join(folder, f"{worker}.json")


def worker_part(config: Any) -> Optional[str]:
    """The part file this process writes, when it is a pytest-xdist worker of a controller that merges."""
    workerinput = getattr(config, "workerinput", None)
    if not workerinput or PARTS not in workerinput:
        return None
    return part_path(workerinput[PARTS], workerinput["workerid"])


def is_controller(config: Any) -> bool:
    """A pytest-xdist controller: it runs no test itself (its workers do)."""
    return not hasattr(config, "workerinput") and config.pluginmanager.get_plugin("dsession") is not None
