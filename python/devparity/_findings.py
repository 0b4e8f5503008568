"""Placement findings as Python objects: what devparity.trace() and the pytest plugin report."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

SEVERITIES = ("error", "warning", "note")


def add_to_trace(finding: Dict[str, Any]) -> None:
    """Adds `finding` (a dict in the report's finding shape) to the active trace: what Python sees
    and LibTorch's callbacks do not (a device query, a value the test receives)."""
    from devparity._devices import ops

    ops().trace_add(json.dumps(finding))


@dataclass(frozen=True)
class Finding:
    """One placement finding (the report's finding object): where code left its device.

    kind, severity ("error", "warning" or "note"), op ("aten::mul.Tensor"), message,
    devices (("vdev:1", "cpu")), source ("path/to/file.py:42", the innermost frame of user
    code), file and line (its parts), made_at and met_at (the line that made the offending tensor
    and the line where it met device data, where they are not `source`), scopes, shape, dtype and
    count (occurrences merged). Frozen: a finding is evidence, compared and hashed by value.
    """

    kind: str
    severity: str = "error"
    op: str = ""
    message: str = ""
    devices: Tuple[str, ...] = ()
    source: str = ""
    file: str = ""
    line: Optional[int] = None
    made_at: str = ""
    met_at: str = ""
    scopes: Tuple[str, ...] = ()
    shape: Optional[Tuple[int, ...]] = None
    dtype: Optional[str] = None
    count: int = 1

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Finding":
        """The finding a report (or the tracer) writes as `data`."""
        device = data.get("device", "")
        source = data.get("source", "")
        file, _, line = source.rpartition(":")
        shape = data.get("shape")
        return cls(kind=data.get("kind", ""), severity=data.get("severity", "error"), op=data.get("op", ""),
                   message=data.get("message", ""),
                   devices=tuple(d for d in device.split(" and ") if d) if device else (),
                   source=source, file=file if line.isdigit() else source,
                   line=int(line) if line.isdigit() else None,
                   made_at=data.get("made_at", ""), met_at=data.get("met_at", ""),
                   scopes=tuple(data.get("scopes", ())), shape=tuple(shape) if shape is not None else None,
                   dtype=data.get("dtype"), count=data.get("count", 1))

    def to_json(self) -> Dict[str, Any]:
        """The finding as reports write it."""
        out: Dict[str, Any] = {"kind": self.kind, "severity": self.severity, "op": self.op, "message": self.message,
               "device": " and ".join(self.devices), "source": self.source, "scopes": list(self.scopes),
               "count": self.count}
        if self.made_at:
            out["made_at"] = self.made_at
        if self.met_at:
            out["met_at"] = self.met_at
        if self.shape is not None:
            out["shape"] = list(self.shape)
        if self.dtype is not None:
            out["dtype"] = self.dtype
        return out

    def __str__(self) -> str:
        where = f"{self.source}: " if self.source else ""
        lines = "".join(f" [{label} {at}]" for label, at in (("made at", self.made_at), ("met at", self.met_at)) if at)
        return f"{where}{self.severity}: {self.kind}: {self.message}{lines}"
