"""The rows of --devparity-report: what the plugin saw of each test, for devparity's C++ code to make
its result of (python/csrc/session_report.cpp), and why a test is a skip."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, TypedDict

import pytest

from devparity._cuda_branches import branch_a_gpu_skips
from devparity._hook_types import ExcInfo
from devparity._python_layer import UnsupportedOnSimulatedDevice
from devparity._streams import Race
from devparity._trace import Trace


class Row(TypedDict):
    """One test as session_report.cpp reads it."""

    id: str
    target: str
    status: str                          # "pass", "fail" or "skip"
    ops: int
    findings: List[Dict[str, Any]]
    duration_ms: float
    mode: str                            # --devparity-placement
    random_sweep: Optional[List[int]]    # the seeds the random sweep tried
    skipped_because: Optional[str]


class Rows:
    """A run's rows, in the order its tests ended; those not yet relayed to a pytest-xdist controller."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.rows: List[Row] = []
        self._relayed = 0

    def traced(self, item: pytest.Item, tracer: Trace, duration_ms: float, skipped_because: Optional[str],
               seeds: Optional[List[int]]) -> None:
        """A traced test's row; its findings go on its report too. A test that skipped itself ("no cuda")
        is a skip in the report, not a pass."""
        findings = [f.to_json() for f in tracer.findings]
        item.user_properties.append(("devparity_findings", json.dumps(findings)))
        if findings:
            item.add_report_section("call", "devparity", "\n".join(str(f) for f in tracer.findings))
        status = "skip" if skipped_because is not None else "fail" if tracer.errors else "pass"
        self._add(item, tracer.target_name, status, tracer.ops, findings, duration_ms, seeds, skipped_because)

    def untraced(self, item: pytest.Item, target: object, reason: str, duration_ms: float = 0.0) -> None:
        """A row the trace did not run: a skip with its reason."""
        self._add(item, str(target), "skip", 0, [], duration_ms, None, reason)

    def _add(self, item: pytest.Item, target: str, status: str, ops: int, findings: List[Dict[str, Any]],
             duration_ms: float, seeds: Optional[List[int]], skipped_because: Optional[str]) -> None:
        self.rows.append(Row(id=item.nodeid, target=target, status=status, ops=ops, findings=findings,
                             duration_ms=duration_ms, mode=self.mode, random_sweep=seeds,
                             skipped_because=skipped_because))

    def add_races(self, nodeid: str, races: List[Race], seed: int) -> None:
        """The races of a traced test, as error findings of its row."""
        rows = [r for r in self.rows if r["id"] == nodeid]
        if not rows:
            return
        row = rows[-1]
        for race in races:
            op = race.later.get("op", "")
            row["findings"].append({"kind": "unsynchronized_access", "severity": "error",
                                    "op": op if op.startswith("aten::") else "",
                                    "message": f"{race.message} (interleaving seed {seed})", "device": row["target"],
                                    "source": race.later.get("site", ""), "scopes": [], "count": 1})
        if row["status"] == "pass":
            row["status"] = "fail"

    def take_unrelayed(self) -> List[Row]:
        """The rows added since the last call (a pytest-xdist worker relays them with each test's report)."""
        fresh = self.rows[self._relayed:]
        self._relayed = len(self.rows)
        return fresh


def refused_by_torch(error: Optional[BaseException]) -> Optional[str]:
    """The reason, when `error` (or one it was raised from: opcheck wraps its checks' errors) is what
    the simulated device cannot do by torch's design: devparity's UnsupportedOnSimulatedDevice, or
    torch's own NotImplementedError naming the device (opcheck's "NYI devices other than CPU/CUDA,
    got {'vdev'}"). None for anything else."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, UnsupportedOnSimulatedDevice):
            return str(error)
        if type(error) is NotImplementedError and any(name in str(error) for name in ("'vdev'", "privateuseone")):
            return f"torch refuses the simulated device here ({str(error).splitlines()[0]}); on a GPU this runs"
        error = error.__cause__ or error.__context__
    return None


def cuda_branch_refusal(error: BaseException) -> Optional[str]:
    """Note [Branches on the device type's name]: the reason, when the simulated row failed on the side
    of a library's `if x.device.type == "cuda"` that a GPU does not run."""
    branch = branch_a_gpu_skips(error)
    if branch is None:
        return None
    lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [""]
    # (A TorchScript interpreter's error ends with the error the scripted code raised, named.)
    said = lines[-1] if "Traceback of TorchScript" in str(error) else f"{type(error).__name__}: {lines[0]}"
    said = said[len("builtins."):] if said.startswith("builtins.") else said  # (torch 1.13's TorchScript)
    return (f"the library picks its CUDA path by the device type's name at {branch}; the simulated device "
            f"takes the other branch, which a GPU does not run, and fails there ({said[:200]})")


def skip_reason(exc: Optional[ExcInfo]) -> Optional[str]:
    """The reason a test skipped, or None when it did not: its own pytest.skip(), or what the simulated
    device cannot do by torch's design, which the plugin reports as a skip (issue 56: the session
    report said pass)."""
    if exc is None:
        return None
    refused = refused_by_torch(exc[1])
    if refused is not None:
        return f"devparity: {refused}"
    if not issubclass(exc[0], pytest.skip.Exception):
        return None
    return str(getattr(exc[1], "msg", exc[1]))
