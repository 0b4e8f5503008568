"""devparity.trace(): the placement tracer around a block of Python code."""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Set, Tuple, Union

from devparity import _device_queries, _host_data, _kept, _sources
from devparity._arguments import tensors_in
from devparity._devices import DevparityTypeError, device as _device, op_error, ops as _ops
from devparity._findings import Finding, add_to_trace

if TYPE_CHECKING:
    import torch

# A module's kept tensors before its forward, and the device it ran on (_kept.snapshot).
KeptBefore = Tuple[Any, "torch.device"]


def _is_device_mismatch(error: BaseException) -> bool:
    # LibTorch's device errors in their wordings, as harness/base/error.cpp classifies them.
    return isinstance(error, RuntimeError) and bool(_ops().classify_error(str(error)) == "device_mismatch")


# What only a device makes true: host data meeting device data, copies to it, waits for it.
_ABOUT_A_DEVICE = frozenset(("foreign_device_input", "implicit_device_factory", "device_without_index",
                             "wrong_device_output", "state_off_device", "unregistered_tensor_state", "host_sync",
                             "host_to_device_copy"))


def _on_the_cpu_alone(target: Optional[torch.device], target_name: str, findings: List[Finding]) -> List[Finding]:
    # A trace with no device named whose code met none (its target stayed the CPU) has no device
    # data: nothing in it is off a device. On a trace of the CPU, a move whose line names the CPU
    # (`.to("cpu")`) sends data home; it copies nothing onto a device (Note [Host data on the cpu row]).
    if target is None and target_name == "cpu":
        return [f for f in findings if f.kind not in _ABOUT_A_DEVICE]
    if target_name != "cpu":
        return findings
    return [f for f in findings if not (f.kind == "host_to_device_copy" and _host_data.line_names_cpu(f.file, f.line))]


class Trace:
    """Traces the ops of a `with` block (see devparity.trace); `findings` once it ends."""

    def __init__(self, device: Union[str, torch.device, None] = None, strict: bool = False) -> None:
        self.target = None if device is None else _device(device)
        self.strict = strict
        self.findings: List[Finding] = []
        self.ops = 0
        self.target_name = ""   # the device judged against, once the block ends
        self._active = False

    def __enter__(self) -> Trace:
        ops = _ops()
        import torch
        from torch.jit._fuser import optimized_execution  # (torch.jit re-exports it implicitly)

        target = "" if self.target is None else str(self.target)
        try:
            ops.trace_begin(target, list(_sources.skipped_folders()))
        except RuntimeError as e:
            raise op_error(e) from None
        self._active = True
        # Modules met while tracing: their plain tensor attributes are kept state, which moving
        # a module leaves where it was made (Note [Kept state in Python]).
        self._hooks = [torch.nn.modules.module.register_module_forward_pre_hook(self._on_module),
                       torch.nn.modules.module.register_module_forward_hook(self._after_module)]
        self._kept_before: Dict[int, KeptBefore] = {}
        self._context = contextlib.ExitStack()
        # The file that opens the trace is the caller's scaffolding (Note [Scaffolding]).
        self._context.enter_context(_sources.scaffolding_file(_sources.caller_file(2)))
        self._marked_modules: Set[int] = set()
        self._context.enter_context(_device_queries.watched())
        # Note [Unoptimised subject calls]: constant folding would turn the traced code's scripted
        # factories into constants after their first call, out of the trace's sight (and inline the
        # frames that name a branch on the device type); the setting is put back when the trace ends.
        self._context.enter_context(optimized_execution(False))
        if self.target is None or self.target.type == "cpu":
            # With no device named there is no cpu row: nothing is the test's device data.
            self._context.enter_context(_host_data.watching(mark_inputs=self.target is not None))
        return self

    def _module_target(self, inputs: Sequence[object]) -> torch.device:
        import torch

        if self.target is not None:
            return self.target
        return next((x.device for x in inputs if isinstance(x, torch.Tensor) and x.device.type != "cpu"),
                    torch.device("cpu"))

    def inputs(self, *values: object, registered: bool = False) -> Trace:
        """Marks the tensors among `values` (one level into lists, tuples and dicts) as the code's
        inputs: device data on the cpu row too (Note [Neutral data]). `registered`: a module's
        parameters and buffers, device data whoever made them."""
        tensors = tensors_in(values)
        if tensors and self._active:
            _ops().trace_mark_device(tensors, registered)
        return self

    def _on_module(self, module: torch.nn.Module, inputs: Sequence[object]) -> None:
        # Note [Kept state in Python]: the tensors a move to the data's device left behind.
        target = self._module_target(inputs)
        if target.type == "cpu" and self.target is not None and id(module) not in self._marked_modules:
            self._marked_modules.add(id(module))  # its registered state is device data
            self.inputs(list(module.parameters(recurse=False)), list(module.buffers(recurse=False)),
                        registered=True)
        state = _kept.kept_tensors(module)
        if not state:
            return
        kept = _kept.left_behind(module, target, kept=state)
        if kept:
            names, tensors, lines, moved = (list(column) for column in zip(*kept))
            _ops().trace_keep(names, tensors, lines, moved)
        before = _kept.snapshot(module, state) if target.type != "cpu" else None
        if before:
            self._kept_before[id(module)] = (before, target)

    def _after_module(self, module: torch.nn.Module, inputs: Sequence[object], output: object) -> None:
        before = self._kept_before.pop(id(module), None)
        if before is not None:
            for finding in _kept.moved_in_forward(module, *before):
                add_to_trace(finding)

    def returned(self, output: Any) -> Any:
        """Judges what the block returns: host data returned from device work is reported."""
        import torch

        if self._active and isinstance(output, torch.Tensor):
            _ops().trace_returned(output)
        return output

    def __exit__(self, *exc: Any) -> None:
        for hook in self._hooks:
            hook.remove()
        self._context.close()
        self._active = False
        result = json.loads(_ops().trace_end())
        self.ops = result["ops"]
        self.target_name = result["target"]
        self.findings = _on_the_cpu_alone(self.target, self.target_name,
                                          [Finding.from_json(f) for f in result["findings"]])
        failed = result.get("failed")
        if exc[1] is not None and failed and _is_device_mismatch(exc[1]):
            source = failed.get("source", "")
            made_at = next((f.made_at for f in self.findings
                            if f.kind == "foreign_device_input" and f.source == source and f.made_at), "")
            self.findings.append(Finding.from_json({
                "kind": "device_mismatch_error", "severity": "error", "op": failed["op"],
                "scopes": failed.get("scopes", []), "device": failed.get("device", ""),
                "source": source, "made_at": made_at,
                "message": f"{failed['op']} raised: {str(exc[1]).strip().splitlines()[0]}"}))

    def mismatch_under_seed(self, error: BaseException, seed: int) -> None:
        """Adds the device_mismatch_error `error` raised when the traced code ran again under
        `seed` (the pytest plugin's random sweep, Note [Random gates])."""
        where = ""
        tb = error.__traceback__
        while tb is not None:
            path = tb.tb_frame.f_code.co_filename
            if not path.startswith(_sources.skipped_folders()) and not _sources.is_scaffolding(path):
                where = f"{path}:{tb.tb_lineno}"
            tb = tb.tb_next
        add_to_trace({
            "kind": "device_mismatch_error", "severity": "error", "source": where,
            "message": f"under seed {seed} (torch.manual_seed) the code raised: "
                       f"{str(error).strip().splitlines()[0]}"})

    @property
    def errors(self) -> List[Finding]:
        """The findings that fail a placement check (warnings too when strict)."""
        failing = ("error", "warning") if self.strict else ("error",)
        return [f for f in self.findings if f.severity in failing]

    @property
    def warnings(self) -> List[Finding]:
        return [f for f in self.findings if f.severity == "warning"]


def trace(device: Union[str, "torch.device", None] = None, strict: bool = False) -> Trace:
    """Traces the ops of a `with` block for placement findings, as the CLI's placement check does.

    `device` is the target (a torch.device or a devparity name such as "vdev:1"); by default it
    is the device of the data the block works on: the first device off the CPU that an op
    receives, the CPU if none. `t.findings` lists Finding objects once the block ends, each with
    the Python file:line of the innermost frame of user code. Traces do not nest.
    """
    if device is not None and not isinstance(device, str):
        import torch

        if not isinstance(device, torch.device):
            raise DevparityTypeError(f"trace(device): expected a device or a device name, got {device!r}")
    return Trace(device, strict)
