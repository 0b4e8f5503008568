"""Placement findings as Python objects: what devparity.trace() and the pytest plugin report."""

import json

SEVERITIES = ("error", "warning", "note")


def add_to_trace(finding):
    """Adds `finding` (a dict in the report's finding shape) to the active trace: what Python sees
    and LibTorch's callbacks do not (a device query, a value the test receives)."""
    from devparity._devices import ops

    ops().trace_add(json.dumps(finding))


class Finding:
    """One placement finding (the report's finding object): where code left its device.

    kind, severity ("error", "warning" or "note"), op ("aten::mul.Tensor"), message,
    devices (["vdev:1", "cpu"]), source ("path/to/file.py:42", the innermost frame of user
    code), file and line (its parts), made_at and met_at (the line that made the offending tensor
    and the line where it met device data, where they are not `source`), scopes, shape, dtype and
    count (occurrences merged).
    """

    __slots__ = ("kind", "severity", "op", "message", "devices", "source", "file", "line", "made_at", "met_at",
                 "scopes", "shape", "dtype", "count")

    def __init__(self, data):
        self.kind = data.get("kind", "")
        self.severity = data.get("severity", "error")
        self.op = data.get("op", "")
        self.message = data.get("message", "")
        device = data.get("device", "")
        self.devices = [d for d in device.split(" and ") if d] if device else []
        self.source = data.get("source", "")
        file, _, line = self.source.rpartition(":")
        self.file, self.line = (file, int(line)) if line.isdigit() else (self.source, None)
        self.made_at = data.get("made_at", "")
        self.met_at = data.get("met_at", "")
        self.scopes = list(data.get("scopes", []))
        self.shape = data.get("shape")
        self.dtype = data.get("dtype")
        self.count = data.get("count", 1)

    def to_json(self):
        """The finding as reports write it."""
        out = {"kind": self.kind, "severity": self.severity, "op": self.op, "message": self.message,
               "device": " and ".join(self.devices), "source": self.source, "scopes": self.scopes,
               "count": self.count}
        if self.made_at:
            out["made_at"] = self.made_at
        if self.met_at:
            out["met_at"] = self.met_at
        if self.shape is not None:
            out["shape"] = self.shape
        if self.dtype is not None:
            out["dtype"] = self.dtype
        return out

    def __str__(self):
        where = f"{self.source}: " if self.source else ""
        lines = "".join(f" [{label} {at}]" for label, at in (("made at", self.made_at), ("met at", self.met_at)) if at)
        return f"{where}{self.severity}: {self.kind}: {self.message}{lines}"

    def __repr__(self):
        return f"Finding({self.kind!r}, {self.severity!r}, op={self.op!r}, source={self.source!r})"
