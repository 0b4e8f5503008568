"""Kept state: tensors an nn.Module holds as plain attributes, which `.to()` leaves where they are.

Note [Kept state in Python]
A module's parameters and buffers follow `module.to(device)`; a tensor it keeps as a plain
attribute (or in a list, tuple or dict attribute) does not. Where such a tensor is on another
device than the module's target when forward runs, and forward uses it (directly, or through a
copy such as Kornia 0.7's `self.pl = self.pl.to(input.device)`), that is a real bug: Kornia #2791,
fixed by registering a buffer (#2792). The tracer reports it as unregistered_tensor_state at the
line that assigned the attribute; this module finds those tensors and their lines.

Kept state is what the module was built with: an attribute whose first tensor was assigned outside
the module's forward (its constructor, as a rule). An attribute forward fills (Kornia's `_params`,
the parameters of the last call, `{}` in the constructor) is a result the module hands out, not
state that `.to()` should have moved.

"Left behind" needs a move. A module moved with `.to(device)` (or `.cuda()`; devparity records
where each module was moved once installed, and audit() moves its copies) should hold its state
there: a kept tensor elsewhere is left behind (for audit()'s module, built once on the CPU, every
kept tensor is host data on the cpu row too, as the runner judges a TorchScript module's). A module never moved may keep host tensors and move
them per call by design (Kornia's Normalize keeps its mean on the CPU: a copy's cost, reported as
such); what it keeps on an accelerator other than the data's is left behind all the same. And a
module that moves a kept tensor to the data's device and keeps it there (`self.pl =
self.pl.to(input.device)` on a module never moved: Kornia #2791's reproduction) makes its state
follow the last call's data, so the next call on another device copies it across devices: that
reassignment is the finding too.
"""

from __future__ import annotations

import sys
import weakref
from types import FrameType
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from devparity import _sources

if TYPE_CHECKING:
    import torch

# (name, attr, tensor, made_at) of a tensor a module keeps: name is "Class.attr[0]" and the like.
KeptTensor = Tuple[str, str, "torch.Tensor", str]
# (name, tensor, made_at, moved) of a kept tensor left behind.
LeftBehind = Tuple[str, "torch.Tensor", str, bool]
# {attr: (id, device)} of a module's kept tensor attributes before its forward.
Snapshot = Dict[str, Tuple[int, "torch.device"]]

# Where nn.Module keeps what it registers (and moves).
_MODULE_REGISTRIES = ("_parameters", "_buffers", "_modules")

# (line, in_forward) of the first tensor each attribute held, recorded as modules are built once
# devparity is installed; older modules fall back to reading their class's source.
_assigned: weakref.WeakKeyDictionary[torch.nn.Module, Dict[str, Tuple[str, bool]]] = weakref.WeakKeyDictionary()
_moved: weakref.WeakKeyDictionary[torch.nn.Module, torch.device] = weakref.WeakKeyDictionary()  # module -> the device its last move put it on
_patched = {"done": False}


# Types no tensor is ever in: most attributes a module sets are these, on every call of the hooks.
_PLAIN = frozenset((bool, int, float, str, bytes, type(None)))


def _holds_tensor(value: object) -> bool:
    kind = type(value)
    if kind in _PLAIN:
        return False
    import torch

    if isinstance(value, torch.Tensor):
        return not isinstance(value, torch.nn.Parameter)
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, torch.Tensor) for v in value)
    if isinstance(value, dict):
        return any(isinstance(v, torch.Tensor) for v in value.values())
    return False


def _in_forward(module: torch.nn.Module, frame: Optional[FrameType], depth: int = 64) -> bool:
    # Whether `module`'s forward is running: a module call frame (torch's _call_impl) of it.
    while frame is not None and depth > 0:
        if frame.f_code.co_name in ("_call_impl", "_wrapped_call_impl", "forward") and \
                frame.f_locals.get("self") is module:
            return True
        frame, depth = frame.f_back, depth - 1
    return False


def record_assignments() -> None:
    """Records, from now on, the line that first gives each module attribute a tensor, and where
    each module is moved."""
    import torch

    if _patched["done"]:
        return
    original = torch.nn.Module.__setattr__

    def __setattr__(self: torch.nn.Module, name: str, value: Any) -> None:
        if name not in _MODULE_REGISTRIES and _holds_tensor(value):
            lines: Optional[Dict[str, Tuple[str, bool]]]
            try:
                lines = _assigned.setdefault(self, {})
            except TypeError:
                lines = None
            if lines is not None and name not in lines:
                lines[name] = (_sources.caller_line(2), _in_forward(self, sys._getframe(1)))
        original(self, name, value)

    setattr(__setattr__, "__wrapped__", original)
    setattr(torch.nn.Module, "__setattr__", __setattr__)
    original_to, original_cpu, original_cuda = torch.nn.Module.to, torch.nn.Module.cpu, torch.nn.Module.cuda

    def moved(module: torch.nn.Module, device: torch.device) -> None:
        for sub in module.modules():
            try:
                _moved[sub] = device
            except TypeError:
                pass

    def to(self: torch.nn.Module, *args: Any, **kwargs: Any) -> torch.nn.Module:
        out = original_to(self, *args, **kwargs)
        device: Optional[torch.device] = torch._C._nn._parse_to(*args, **kwargs)[0]
        if device is not None:
            moved(self, device)
        return out

    def cpu(self: torch.nn.Module) -> torch.nn.Module:
        out = original_cpu(self)
        moved(self, torch.device("cpu"))
        return out

    def cuda(self: torch.nn.Module, device: Union[int, torch.device, None] = None) -> torch.nn.Module:
        out = original_cuda(self, device)
        index = device if isinstance(device, int) else None if device is None else torch.device(device).index
        moved(self, torch.device("cuda", torch.cuda.current_device() if index is None else index))
        return out

    for method, wrapped in ((to, original_to), (cpu, original_cpu), (cuda, original_cuda)):
        setattr(method, "__wrapped__", wrapped)
        method.__doc__ = wrapped.__doc__
    for name, method in (("to", to), ("cpu", cpu), ("cuda", cuda)):
        setattr(torch.nn.Module, name, method)
    _patched["done"] = True


def copy_lines(original: torch.nn.Module, copied: torch.nn.Module) -> None:
    """Gives `copied` (a deep copy of `original`) the recorded lines of its original."""
    copies = dict(copied.named_modules())
    for name, sub in original.named_modules():
        lines = _assigned.get(sub)
        if lines and name in copies:
            try:
                _assigned[copies[name]] = dict(lines)
            except TypeError:
                pass


def moved_to(module: torch.nn.Module) -> Optional[torch.device]:
    """The device `module` was last moved to (`.to()`, `.cuda()`), or None."""
    try:
        return _moved.get(module)
    except TypeError:
        return None


def _state_line(module: torch.nn.Module, attr: str) -> Tuple[str, bool]:
    # (line, is_state): where the attribute got its first tensor, and whether that made it state.
    lines = _assigned.get(module)
    if lines and attr in lines:
        where, in_forward = lines[attr]
        return where, not in_forward
    return _sources.assignment_line(module, attr)


def kept_tensors(module: torch.nn.Module) -> List[KeptTensor]:
    """[(name, attr, tensor, made_at)] of the tensors `module` keeps as state in plain attributes
    (its own alone): name is "Class.attr", "Class.attr[0]" or "Class.attr['key']"."""
    import torch

    out: List[KeptTensor] = []
    cls = type(module).__name__
    for attr, value in vars(module).items():
        if attr in _MODULE_REGISTRIES or attr.startswith("__") or not _holds_tensor(value):
            continue
        made_at, is_state = _state_line(module, attr)
        if not is_state:
            continue
        if isinstance(value, torch.Tensor):
            out.append((f"{cls}.{attr}", attr, value, made_at))
        else:
            items: Any = value.items() if isinstance(value, dict) else enumerate(value)  # (_holds_tensor: a container)
            out.extend((f"{cls}.{attr}[{k!r}]" if isinstance(value, dict) else f"{cls}.{attr}[{k}]", attr, v, made_at)
                       for k, v in items if isinstance(v, torch.Tensor))
    return out


def left_behind(module: torch.nn.Module, device: torch.device, built_elsewhere: bool = False,
                kept: Optional[List[KeptTensor]] = None) -> List[LeftBehind]:
    """[(name, tensor, made_at, moved)] of `module`'s kept tensors left behind while its data is on
    `device` (Note [Kept state in Python]); `moved` says whether a move left it (copying it onto the
    device in forward is then the bug) or the module was never moved (only meeting device data as
    it is counts: a per-call copy is the module's way). `built_elsewhere`: the module was built
    once, on the CPU, and moved to each device (audit()): on the cpu row its kept tensors are host
    data, as the runner judges a TorchScript module's, since they stay there on every row; a test
    builds its module per device, and what it builds on the data's device is not left behind.
    `kept`: kept_tensors(module), when the caller has it."""
    moved = moved_to(module)
    out: List[LeftBehind] = []
    for name, _, t, line in kept_tensors(module) if kept is None else kept:
        if moved is not None:
            if (built_elsewhere and device.type == "cpu") or t.device != moved:
                out.append((name, t, line, True))
        elif t.device != device and t.device.type != "meta":
            # Never moved: on another accelerator it is left there; on the CPU, host data.
            out.append((name, t, line, t.device.type != "cpu"))
    return out


def snapshot(module: torch.nn.Module, kept: List[KeptTensor]) -> Snapshot:
    """{attr: (id, device)} of the kept tensor attributes (`kept`: kept_tensors(module)), to see
    forward move them."""
    attributes = vars(module)
    return {attr: (id(attributes[attr]), t.device) for _, attr, t, _ in kept
            if isinstance(attributes.get(attr), type(t))}


def moved_in_forward(module: torch.nn.Module, before: Snapshot, device: torch.device) -> List[Dict[str, Any]]:
    """The unregistered_tensor_state findings (dicts) of kept tensors forward replaced with a copy on
    `device`, the data's: the state now follows the last call's data."""
    found: List[Dict[str, Any]] = []
    now = vars(module)
    for attr, (old_id, old_device) in before.items():
        value = now.get(attr)
        if value is None or id(value) == old_id or getattr(value, "device", None) != device or old_device == device:
            continue
        made_at, _ = _state_line(module, attr)
        # Note [Kept state]: a copy from or to the host is a cost; from one accelerator to another, the bug.
        across = getattr(old_device, "type", "cpu") != "cpu" and getattr(device, "type", "cpu") != "cpu"
        severity = "error" if across else "warning"
        found.append({
            "kind": "unregistered_tensor_state", "severity": severity, "device": str(old_device), "source": made_at,
            "message": f"tensor attribute '{type(module).__name__}.{attr}' is neither a parameter nor a buffer: "
                       f"forward moved it from {old_device} to the data's device {device} and kept it there, so "
                       f"it follows the last call's data and the next call on another device copies it across "
                       f"devices (register it with register_buffer)"})
    return found


def qualified_left_behind(module: torch.nn.Module, device: torch.device) -> List[Tuple[str, torch.Tensor, str]]:
    """left_behind() of a module built elsewhere (audit()'s copy) and every submodule, named from
    the root ("attr", "sub.attr")."""
    out: List[Tuple[str, torch.Tensor, str]] = []
    for prefix, sub in module.named_modules():
        for name, tensor, line, _ in left_behind(sub, device, built_elsewhere=True):
            attr = name.split(".", 1)[1]
            out.append((f"{prefix}.{attr}" if prefix else attr, tensor, line))
    return out
