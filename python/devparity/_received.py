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

from __future__ import annotations

import importlib
import json
import sys
from types import CodeType, FrameType
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

from devparity import _sources
from devparity._arguments import tensors_in
from devparity._findings import Finding, add_to_trace

# The judge of one call's return: the returning frame and the value it returns.
Judge = Callable[[FrameType, object], None]
ProfileHook = Callable[[FrameType, str, Any], None]


_watcher: Optional[Received] = None  # the Received watching now: the C profile function asks it (Note [Calls watched in C])
_kinds_key: object = None  # the scaffolding the C watch's kinds of code were asked under


# Note [A profiler in C]
# The watch replaces the thread's profile function while the test's call runs, and puts the one it
# found back after. `sys.getprofile()` reads a profile function set in C as its object, which
# `sys.setprofile` cannot reinstall: Python 3.11's cProfile (`python -m cProfile -m pytest`,
# pytest-profiling) is one, and reinstalling its Profiler made the next Python call raise
# "'Profile' object is not callable" in the test. cProfile's profiler puts itself back with
# `enable()` (its options kept); another in C is left in place and the test's received values
# are not judged: a profiler the user set outranks this one check. Python
# 3.12+'s cProfile uses sys.monitoring and meets no profile function here at all.


def _restorable(previous: object) -> bool:
    return previous is None or callable(previous) or _is_lsprof(previous)


def _restore(previous: Any) -> None:
    if previous is None or callable(previous):
        sys.setprofile(previous)
    else:
        previous.enable()  # (_restorable: cProfile's)


def _is_lsprof(previous: object) -> bool:
    try:
        lsprof = importlib.import_module("_lsprof")  # (no stub in every typeshed)
    except ImportError:
        return False
    return isinstance(previous, lsprof.Profiler)


class Received:
    """Judges the values library calls hand back to scaffolding frames while the block runs."""

    def __init__(self) -> None:
        self._scaffolding: Dict[CodeType, int] = {}  # code object -> its kind (_kind)
        # The standard library's helpers and devparity's own code (the cpu row's mode, which
        # torch calls from the test's frame) are neither the test's nor the library's.
        self._neither = (_sources.stdlib_folder(), _sources._HERE)
        self.reported = 0
        self.asked: Set[str] = set()  # devparity names of the devices with an index the test passed to the library

    def _given_device_data(self, tensors: List[Any]) -> bool:
        from devparity._devices import ops

        return bool(tensors) and ops().trace_holds_device_data(tensors)

    def _judge(self, frame: FrameType, value: object, given: List[Any]) -> None:
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

    def __enter__(self) -> Received:
        global _watcher, _kinds_key
        from devparity._devices import ops

        self._previous = sys.getprofile()
        self._watching = _restorable(self._previous)  # Note [A profiler in C]
        if not self._watching:
            return self
        self._global = self._make_global()
        _watcher = self
        # A code object's kind holds while the scaffolding does: the C watch keeps its answers
        # from one test to the next (asked once per code object, not once per test).
        key = _sources.scaffolding_key()
        same, _kinds_key = key == _kinds_key, key
        try:
            ops().watch_calls(True, same)
        except RuntimeError:
            _watcher = None
            sys.setprofile(self._global)  # (the hook in Python: slower, the same verdicts)
        return self

    def __exit__(self, *exc: object) -> None:
        global _watcher
        if not self._watching:
            return
        if _watcher is self:
            from devparity._devices import ops

            ops().watch_calls(False, True)
            _watcher = None
        _restore(self._previous)

    # The C profile function's questions (python/csrc/call_watch.cpp).
    def _kind(self, code: CodeType) -> int:
        """1: the test's code; 2: neither the test's nor the library's (the standard library's
        helpers, copy.deepcopy of the test's params; devparity's own); 0: the library's."""
        if _sources.is_scaffolding(code.co_filename):
            return 1
        return 2 if code.co_filename.startswith(self._neither) else 0

    def _on_call(self, frame: FrameType) -> Optional[Judge]:
        """For a call from the test's code into the library: what judges its return, or None."""
        values = frame.f_locals.values()
        self._note_devices(values)
        given = tensors_in(values)
        if not self._given_device_data(given):
            return None
        return lambda returning, value: self._judge(returning, value, given)

    def _make_global(self) -> ProfileHook:
        # The same watch as a sys.setprofile hook: what sys.getprofile() reads while the C one runs,
        # and the watch where the op library cannot install it. Locals only, the callee's own code
        # looked at before its caller's frame (reading f_back makes a frame object).
        known = self._scaffolding
        kind = self._kind
        on_call = self._on_call
        returning: Dict[FrameType, Judge] = {}  # frame -> its judge, for the calls from the test's code into the library

        def hook(frame: FrameType, event: str, arg: Any) -> None:
            if event == "return":
                judge = returning.pop(frame, None) if returning else None
                if judge is not None:
                    judge(frame, arg)
                return
            if event != "call":
                return
            code = frame.f_code
            callee = known.get(code)
            if callee is None:
                callee = known[code] = kind(code)
            if callee:
                return
            caller = frame.f_back
            if caller is None:
                return
            caller_code = caller.f_code
            test = known.get(caller_code)
            if test is None:
                test = known[caller_code] = kind(caller_code)
            if test != 1:
                return
            judge = on_call(frame)
            if judge is not None:
                returning[frame] = judge

        return hook

    def _note_devices(self, values: Iterable[object]) -> None:
        import torch

        from devparity._devices import device_name

        for value in values:
            inner: Iterable[object] = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else (value,)
            for v in inner:
                if isinstance(v, str) and ":" in v and len(v) < 32:
                    try:
                        v = torch.device(v)
                    except RuntimeError:
                        continue
                if isinstance(v, torch.device) and v.index is not None:
                    self.asked.add(device_name(v))

    def caller_chose(self, finding: Finding) -> bool:
        """Whether `finding` is a foreign_device_target for a device the test itself handed the library."""
        return finding.kind == "foreign_device_target" and bool(finding.devices) and set(finding.devices) <= self.asked
