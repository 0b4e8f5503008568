"""devparity.trace(): the placement tracer around a block of Python code."""

import os

from devparity._devices import DevparityError, device as _device, ops as _ops
from devparity._findings import Finding


def _skipped_folders():
    # Frames in these are not user code: findings name the innermost frame outside them.
    import torch

    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.dirname(os.path.abspath(torch.__file__)) + os.sep, here + os.sep]


# Where nn.Module keeps what it registers (and moves).
_MODULE_REGISTRIES = ("_parameters", "_buffers", "_modules")


def _kept_tensors(module):
    # Tensors an nn.Module keeps as plain attributes (not parameters or buffers), by name.
    import torch

    out = []
    for attr, value in vars(module).items():
        if attr in _MODULE_REGISTRIES:
            continue
        if isinstance(value, torch.Tensor) and not isinstance(value, torch.nn.Parameter):
            out.append((f"{type(module).__name__}.{attr}", value))
        elif isinstance(value, (list, tuple)):
            out.extend((f"{type(module).__name__}.{attr}[{i}]", v) for i, v in enumerate(value)
                       if isinstance(v, torch.Tensor))
        elif isinstance(value, dict):
            out.extend((f"{type(module).__name__}.{attr}[{k!r}]", v) for k, v in value.items()
                       if isinstance(v, torch.Tensor))
    return out


def _is_device_mismatch(error):
    # LibTorch's "same device" error in its wordings (harness/base/error.cpp classifies the same).
    text = str(error)
    return isinstance(error, RuntimeError) and ("same device" in text or "device mismatch" in text.lower())


class Trace:
    """Traces the ops of a `with` block (see devparity.trace); `findings` once it ends."""

    def __init__(self, device=None, strict=False):
        self.target = None if device is None else _device(device)
        self.strict = strict
        self.findings = []
        self.ops = 0
        self._hook = None
        self._active = False

    def __enter__(self):
        import torch

        ops = _ops()
        target = "" if self.target is None else str(self.target)
        try:
            ops.trace_begin(target, _skipped_folders())
        except RuntimeError as e:
            raise DevparityError(str(e).splitlines()[0]) from None
        self._active = True
        # Modules met while tracing: their plain tensor attributes are kept state,
        # which moving a module leaves where it was made.
        self._hook = torch.nn.modules.module.register_module_forward_pre_hook(self._on_module)
        return self

    def _on_module(self, module, inputs):
        # Kept state matters where the data is not: on the CPU, host and device data share
        # the CPU and the module works (Note [Device data and host data]).
        import torch

        if not any(isinstance(x, torch.Tensor) and x.device.type != "cpu" for x in inputs):
            return
        kept = [(name, t) for name, t in _kept_tensors(module) if t.device.type == "cpu"]
        if kept:
            _ops().trace_keep([name for name, _ in kept], [t for _, t in kept])

    def returned(self, output):
        """Judges what the block returns: host data returned from device work is reported."""
        import torch

        if self._active and isinstance(output, torch.Tensor):
            _ops().trace_returned(output)
        return output

    def __exit__(self, *exc):
        import json

        self._hook.remove()
        self._active = False
        result = json.loads(_ops().trace_end())
        self.ops = result["ops"]
        self.target_name = result["target"]
        self.findings = [Finding(f) for f in result["findings"]]
        failed = result.get("failed")
        if exc[1] is not None and failed and _is_device_mismatch(exc[1]):
            self.findings.append(Finding({
                "kind": "device_mismatch_error", "severity": "error", "op": failed["op"],
                "scopes": failed.get("scopes", []), "device": failed.get("device", ""),
                "source": failed.get("source", ""),
                "message": f"{failed['op']} raised: {str(exc[1]).strip().splitlines()[0]}"}))
        return False

    @property
    def errors(self):
        """The findings that fail a placement check (warnings too when strict)."""
        failing = ("error", "warning") if self.strict else ("error",)
        return [f for f in self.findings if f.severity in failing]

    @property
    def warnings(self):
        return [f for f in self.findings if f.severity == "warning"]


def trace(device=None, strict=False):
    """Traces the ops of a `with` block for placement findings, as the CLI's placement check does.

    `device` is the target (a torch.device or a devparity name such as "vdev:1"); by default it
    is the device of the data the block works on: the first device off the CPU that an op
    receives, the CPU if none. `t.findings` lists Finding objects once the block ends, each with
    the Python file:line of the innermost frame of user code. Traces do not nest.
    """
    if device is not None and not isinstance(device, str):
        import torch

        if not isinstance(device, torch.device):
            raise DevparityError(f"trace(device): expected a device or a device name, got {device!r}")
    return Trace(device, strict)
