"""Host data on the cpu row: what Python code makes on the host, seen where it is written.

Note [Host data on the cpu row]
On an accelerator a factory called with no device makes a CPU tensor, and `.cpu()` moves data
home; the tracer sees both at the dispatcher. On the cpu row it cannot: Python passes the default
device (the CPU) explicitly, so `torch.arange(n)` and `torch.arange(n, device=x.device)` arrive
alike, and `.cpu()` of a CPU tensor is no op. A TorchFunctionMode sees the call as written and
tells the tracer: a factory written with no device in the library's code makes host data, and a
`.cpu()` / `.to("cpu")` there sends its result home. What the test's own code (Note
[Scaffolding]) makes on its device (`device=device`) or moves there (`.to(device)`) is its input:
device data. What it makes with no device stays neutral: on an accelerator it would be a CPU
tensor the test hands the library as a parameter. Host data whose `.device` the library reads
becomes neutral too: such code manages its placement (`if t.device != x.device: t = t.to(...)`)
and takes another branch on the CPU than on an accelerator. Active only while a trace on the
CPU runs; the calls it does not look at pass in C (Note [A mode's pass-through in C]).

Note [A mode set at the C++ level]
torch 1.13 keeps its stack of TorchFunctionModes in Python: every torch call runs through its
stack mode and two context managers before reaching ours, which made a traced cpu row of
torchvision's suite cost 4.5x its untraced run. Where torch has that Python stack (it has
`_set_torch_function_mode`; 2.x keeps its stack in C++ and its modes cost little) and no mode is
pushed when the block starts, the mode is set at the C++ level itself and steps aside while the
call it sees runs, as the stack mode does. torch's Python-defined ops (`Tensor.__rsub__`) call the
stack mode by name, and a mode the code pushes takes the slot: while the block runs, the stack
mode's name is a stand-in that calls ours when the stack is empty, and a pop that empties the
stack hands the slot back to ours, so ours stays below the code's own modes as on the stack.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Dict, Iterator, Mapping, Optional, Sequence, Set, cast

from devparity import _sources
from devparity._arguments import device_named
from devparity._patching import patched

if TYPE_CHECKING:
    import torch

# Factories with a device parameter the code may leave out. `frombuffer` and `from_numpy` have
# none: bytes and arrays are host data by nature, and code that means the device moves them.
_FACTORY_NAMES = ("arange", "empty", "empty_strided", "eye", "full", "linspace", "logspace", "ones", "rand",
                  "randint", "randn", "randperm", "scalar_tensor", "tensor", "zeros", "tril_indices",
                  "triu_indices", "as_tensor", "asarray")


def _factories() -> Dict[Callable[..., Any], str]:
    import torch

    return {getattr(torch, n): n for n in _FACTORY_NAMES if hasattr(torch, n)}


def _names_cpu(args: Sequence[object], kwargs: Mapping[str, Any]) -> bool:
    device = device_named(args, kwargs)
    return device is not None and device.type == "cpu"


def _names_device(args: Sequence[object], kwargs: Mapping[str, Any]) -> bool:
    return device_named(args, kwargs) is not None


def line_names_cpu(path: str, line_number: Optional[int]) -> bool:
    """Whether the source line at `path`:`line_number` names the CPU ("cpu", `.cpu()`)."""
    import linecache

    if not path or not line_number:
        return False
    line = linecache.getline(path, line_number)
    return "'cpu'" in line or '"cpu"' in line or ".cpu(" in line


def _line_names_cpu(frame: FrameType) -> bool:
    return line_names_cpu(frame.f_code.co_filename, frame.f_lineno)


def _has_tensor(args: Sequence[object]) -> bool:
    import torch

    return any(isinstance(a, torch.Tensor) for a in args)


# Tensors made from bytes or arrays (frombuffer, from_numpy, which no TorchFunctionMode sees): host
# data by nature. On the cpu row a test's `.to(device)` of one returns it unchanged, and it stays
# what it was: a CPU decoder of bytes gets CPU input there, as on the GPU row it gets device bytes
# it refuses.
_FROM_HOST = ("frombuffer", "from_numpy")
_by_nature: Dict[int, weakref.ref[torch.Tensor]] = {}  # id -> weakref (a WeakSet would compare tensors with ==)


def _note(tensor: torch.Tensor) -> None:
    _by_nature[id(tensor)] = weakref.ref(tensor, functools.partial(_forget, _by_nature, id(tensor)))


def _host_by_nature(tensor: torch.Tensor) -> bool:
    ref = _by_nature.get(id(tensor))
    return ref is not None and ref() is tensor


def _forget(table: Dict[int, Any], key: int, _: object) -> None:
    table.pop(key, None)


@contextlib.contextmanager
def _noting_host_tensors() -> Iterator[None]:
    import torch

    def noted(original: Callable[..., Any]) -> Callable[..., Any]:
        def make(*args: Any, **kwargs: Any) -> Any:
            out = original(*args, **kwargs)
            _note(out)
            return out

        setattr(make, "__wrapped__", original)
        return make

    with patched((torch, name, noted(getattr(torch, name))) for name in _FROM_HOST if hasattr(torch, name)):
        yield


def make_mode(mark_inputs: bool = True) -> Any:
    """A TorchFunctionMode that reports host data written in the library's code to the active
    tracer (Note [Host data on the cpu row]), and, with `mark_inputs`, what the test's own code
    makes or moves onto its device as device data; None where torch has no modes."""
    import torch

    try:
        from torch.overrides import TorchFunctionMode
    except ImportError:
        return None
    from devparity._devices import ops

    factories = _factories()
    moves = {torch.Tensor.cpu: "aten::_to_copy", torch.Tensor.to: "aten::to"}
    device_of = torch.Tensor.device.__get__
    looked_at = {*factories, *moves, device_of}  # what __torch_function__ does more than call
    read: Dict[int, weakref.ref[torch.Tensor]] = {}  # id -> weakref of the tensors whose device the code read
    op_library = ops()

    class HostData(TorchFunctionMode):
        looked_at: Set[Any]

        def __torch_function__(self, func: Any, types: Any, args: Sequence[Any] = (),
                               kwargs: Optional[Dict[str, Any]] = None) -> Any:
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            if func == device_of and args:
                # Code that reads where its host data is manages that placement itself, through a
                # view too (torchvision's pil_to_tensor: `as_tensor(array).view(...).permute(...)`,
                # then a kernel made on `img.device`), and what it computed from it (ElasticTransform's
                # `torch.rand(size) * 2 - 1`, blurred with a kernel made on its `.device`). The storage
                # goes neutral; the tracer keeps device data as it is. Asked once per tensor.
                tensor = args[0]
                if id(tensor) not in read:
                    read[id(tensor)] = weakref.ref(tensor, functools.partial(_forget, read, id(tensor)))
                    op_library.trace_mark_neutral(tensor)
                return out
            if not isinstance(out, torch.Tensor):
                return out
            name = factories.get(func)
            if name is not None and not _has_tensor(args):
                frame = _sources.user_frame(2)
                test = frame is not None and _sources.is_scaffolding(frame.f_code.co_filename)
                if test and mark_inputs and kwargs.get("device") is not None:
                    op_library.trace_mark_device([out])  # the test's input, on its device (Note [Scaffolding])
                elif frame is not None and not test and kwargs.get("device") is None:
                    op_library.trace_mark_host(out, "default_factory", f"torch.{name}",
                                               _sources.line_of(frame))
            elif func in moves and out.device.type == "cpu":
                frame = _sources.user_frame(2)
                if frame is not None and _sources.is_scaffolding(frame.f_code.co_filename):
                    # (`.to("cpu")` written so moves nothing onto a device: a CPU-only test's data stays neutral.)
                    if mark_inputs and func is torch.Tensor.to and _names_device(args, kwargs) and \
                            not _host_by_nature(out) and not (_names_cpu(args, kwargs) and _line_names_cpu(frame)):
                        op_library.trace_mark_device([out])  # the test moves its input to the device
                # `.to(device)` reads like `.to("cpu")` here: only code that names the CPU goes home.
                elif frame is not None and (func is torch.Tensor.cpu or (_names_cpu(args, kwargs) and
                                                                         _line_names_cpu(frame))):
                    op_library.trace_mark_host(out, "copied_home", moves[func],
                                               _sources.line_of(frame))
            return out

    mode = cast(Any, HostData)()  # (TorchFunctionMode's constructor is untyped in torch 1.13)
    mode.looked_at = looked_at
    _pass_through_in_c(mode, type(mode).__torch_function__.__get__(mode), looked_at)
    return mode


_passing_through: Optional[Callable[[object], Any]] = None  # set by the op library: mode -> its __torch_function__ in C


def _pass_through_in_c(target: Any, handler: Callable[..., Any], looked_at: Set[Any],
                      set_mode: Optional[Callable[[Any], None]] = None,
                      depth: Optional[Callable[[], int]] = None) -> None:
    """Gives `target` a `__torch_function__` that calls what is not in `looked_at` in C and the
    rest through `handler` (Note [A mode's pass-through in C] in python/csrc/mode_pass_through.cpp);
    `set_mode` and `depth` where `target` sits in torch 1.13's C++ slot. Stays Python where the
    op library cannot install it."""
    from devparity._devices import ops

    if _passing_through is None and not ops().install_mode_pass_through():
        return
    passing = _passing_through  # (the op library's install set it)
    if passing is None:
        return
    target._devparity_pass_through = (looked_at, handler, set_mode, depth)
    target.__torch_function__ = passing(target)


def _set_at_cpp_level(mode: Any) -> Optional[ContextManager[None]]:
    """A context manager that sets torch's C++ slot to a stand-in that calls `mode` straight
    (Note [A mode set at the C++ level]); None where torch keeps its mode stack in C++ or a mode
    is pushed already."""
    import torch

    # (torch 1.13's alone: getattr, as other releases lack them)
    set_mode: Optional[Callable[[Any], None]] = getattr(torch._C, "_set_torch_function_mode", None)
    depth: Optional[Callable[[], int]] = getattr(torch._C, "_len_torch_function_stack", None)
    stack_mode: Any = getattr(torch.overrides, "_TorchFunctionStackMode", None)
    if set_mode is None or depth is None or stack_mode is None or depth() > 0:
        return None
    return _cpp_level_scope(mode, set_mode, depth, stack_mode)


def _cpp_level_scope(mode: Any, set_mode: Callable[[Any], None], depth: Callable[[], int],
                     stack_mode: Any) -> ContextManager[None]:
    import torch

    handle = type(mode).__torch_function__

    def straight(func: Any, types: Any, args: Sequence[Any], kwargs: Optional[Dict[str, Any]], slot: Any) -> Any:
        set_mode(None)
        try:
            return handle(mode, func, types, args, kwargs)
        finally:
            set_mode(slot)

    class AtCppLevel:
        def __torch_function__(self, func: Any, types: Any, args: Sequence[Any] = (),
                               kwargs: Optional[Dict[str, Any]] = None) -> Any:
            if depth() > 0:  # a mode the code pushed: torch's own stack order
                return stack_mode().__torch_function__(func, types, args, kwargs)
            return straight(func, types, args, kwargs, self)

    slot = AtCppLevel()
    _pass_through_in_c(slot, AtCppLevel.__torch_function__.__get__(slot), mode.looked_at, set_mode, depth)

    # torch's Python functions (`Tensor.__rsub__`) call the stack mode by name, which pops from the
    # stack: with ours empty, they come here. (Made with type(): its base is torch 1.13's alone.)
    def stand_in(self: Any, func: Any, types: Any, args: Sequence[Any] = (),
                 kwargs: Optional[Dict[str, Any]] = None) -> Any:
        if depth() > 0:
            return stack_mode.__torch_function__(self, func, types, args, kwargs)
        return straight(func, types, args, kwargs, slot)

    stack_stand_in = type("StackStandIn", (stack_mode,), {"__torch_function__": stand_in})
    pop: Callable[[], Any] = getattr(torch.overrides, "_pop_mode")

    def popped() -> Any:
        # The code's last mode popped: below it, ours takes the slot back, as at the stack's bottom.
        old = pop()
        if depth() == 0:
            set_mode(slot)
        return old

    @contextlib.contextmanager
    def scope() -> Iterator[None]:
        set_mode(slot)
        try:
            with patched([(torch.overrides, "_TorchFunctionStackMode", stack_stand_in),
                          (torch.overrides, "_pop_mode", popped)]):
                yield
        finally:
            if depth() == 0:
                set_mode(None)

    return scope()


@contextlib.contextmanager
def watching(active: bool = True, mark_inputs: bool = True) -> Iterator[None]:
    """Reports host data written in Python while the block runs (when `active`)."""
    mode = make_mode(mark_inputs) if active else None
    if mode is None:
        yield
        return
    with _noting_host_tensors(), (_set_at_cpp_level(mode) or mode):
        yield
