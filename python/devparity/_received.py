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

    def _is_library_call(self, code):
        # The standard library's helpers (copy.deepcopy of the test's params) are not the library's.
        return not code.co_filename.startswith(self._stdlib)

    def _is_test_code(self, code):
        known = self._scaffolding.get(code)
        if known is None:
            known = self._scaffolding[code] = _sources.is_scaffolding(code.co_filename)
        return known

    def _given_device_data(self, frame):
        from devparity._devices import ops

        tensors = tensors_in(frame.f_locals.values())
        return bool(tensors) and ops().trace_holds_device_data(tensors)

    def _judge(self, frame, value):
        from devparity._devices import ops

        caller = frame.f_back
        where = _sources.line_of(caller)
        for tensor in tensors_in([value]):
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
        def trace(frame, event, arg):
            if event == "return" and given:
                self._judge(frame, arg)
            return trace

        return trace

    def _global(self, frame, event, arg):
        caller = frame.f_back
        if caller is None or not self._is_test_code(caller.f_code) or self._is_test_code(frame.f_code) or \
                not self._is_library_call(frame.f_code):
            return None
        frame.f_trace_lines = False  # only its return matters
        return self._callee(self._given_device_data(frame))
