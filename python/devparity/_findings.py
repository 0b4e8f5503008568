"""Placement findings as Python objects: what devparity.trace() and the pytest plugin report."""

SEVERITIES = ("error", "warning", "note")


class Finding:
    """One placement finding (the report's finding object): where code left its device.

    kind, severity ("error", "warning" or "note"), op ("aten::mul.Tensor"), message,
    devices (["vdev:1", "cpu"]), source ("path/to/file.py:42", the innermost frame of user
    code), file and line (its parts), scopes, shape, dtype and count (occurrences merged).
    """

    __slots__ = ("kind", "severity", "op", "message", "devices", "source", "file", "line", "scopes",
                 "shape", "dtype", "count")

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
        self.scopes = list(data.get("scopes", []))
        self.shape = data.get("shape")
        self.dtype = data.get("dtype")
        self.count = data.get("count", 1)

    def to_json(self):
        """The finding as reports write it."""
        out = {"kind": self.kind, "severity": self.severity, "op": self.op, "message": self.message,
               "device": " and ".join(self.devices), "source": self.source, "scopes": self.scopes,
               "count": self.count}
        if self.shape is not None:
            out["shape"] = self.shape
        if self.dtype is not None:
            out["dtype"] = self.dtype
        return out

    def __str__(self):
        where = f"{self.source}: " if self.source else ""
        return f"{where}{self.severity}: {self.kind}: {self.message}"

    def __repr__(self):
        return f"Finding({self.kind!r}, {self.severity!r}, op={self.op!r}, source={self.source!r})"
