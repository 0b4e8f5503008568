"""What a test receives from the library: results handed back on the wrong device.

Note [Received values]
A library's result that comes back on the CPU (Kornia #3066: AugmentationSequential moved its
output home with `.cpu()`; #2926: empty descriptors made with no device) fails only where a test
checks its device, so the pytest plugin judges every value the test's code (Note [Scaffolding]:
the test function and its helpers) receives from a call into the library: when the call was
given device data and hands back a tensor the tracer knows is host data, or one on another
device, that is a wrong_device_output naming the line that made or moved it and the line that
received it. Values the library hands back from host data it was given (a CPU decoder's image of
CPU bytes) are not reported: the tracer knows them as the CPU's own results.
"""

import json

from devparity import _sources
from devparity._arguments import tensors_in
from devparity._findings import add_to_trace
from devparity._settrace import SysTrace


class Received(SysTrace):
    """Judges the values library calls hand back to scaffolding frames while the block runs."""

    def __init__(self):
        self._scaffolding = {}  # code object -> whether it is the test's
        self._stdlib = _sources.stdlib_folder()
        self.reported = 0
        self.asked = set()  # devparity names of the devices with an index the test passed to the library

    def _is_library_call(self, code):
        # The standard library's helpers (copy.deepcopy of the test's params) are not the library's.
        return not code.co_filename.startswith(self._stdlib)

    def _is_test_code(self, code):
        known = self._scaffolding.get(code)
        if known is None:
            known = self._scaffolding[code] = _sources.is_scaffolding(code.co_filename)
        return known

    def _given_device_data(self, tensors):
        from devparity._devices import ops

        return bool(tensors) and ops().trace_holds_device_data(tensors)

    def _judge(self, frame, value, given):
        from devparity._devices import ops

        caller = frame.f_back
        where = _sources.line_of(caller)
        for tensor in tensors_in([value]):
            # The test's own tensor handed back (`check(out)` returns `out`): on the cpu row a `.cpu()`
            # the library took of it for a look is the same tensor, and it went nowhere.
            if any(tensor is g for g in given):
                continue
            text = ops().trace_received(tensor)
            if not text:
                continue
            finding = json.loads(text)
            finding["met_at"] = where
            finding["source"] = finding.get("made_at") or where
            finding["message"] += f"; the test receives it from {frame.f_code.co_name}() at {where}"
            add_to_trace(finding)
            self.reported += 1

    def _callee(self, given):
        judged = self._given_device_data(given)

        def trace(frame, event, arg):
            if event == "return" and judged:
                self._judge(frame, arg, given)
            return trace

        return trace

    def _global(self, frame, event, arg):
        caller = frame.f_back
        if caller is None or not self._is_test_code(caller.f_code) or self._is_test_code(frame.f_code) or \
                not self._is_library_call(frame.f_code):
            return None
        frame.f_trace_lines = False  # only its return matters
        self._note_devices(frame.f_locals.values())
        return self._callee(tensors_in(frame.f_locals.values()))

    def _note_devices(self, values):
        import torch

        from devparity._devices import device_name

        for value in values:
            inner = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else (value,)
            for v in inner:
                if isinstance(v, str) and ":" in v and len(v) < 32:
                    try:
                        v = torch.device(v)
                    except RuntimeError:
                        continue
                if isinstance(v, torch.device) and v.index is not None:
                    self.asked.add(device_name(v))

    def caller_chose(self, finding):
        """Whether `finding` is a foreign_device_target for a device the test itself handed the library."""
        return finding.kind == "foreign_device_target" and bool(finding.devices) and set(finding.devices) <= self.asked
