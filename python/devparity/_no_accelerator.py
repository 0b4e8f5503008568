"""A machine with no accelerator: the `cpu-only` row.

Note [No accelerator]
Code meant to run on the CPU alone can still call into the accelerator runtime: DALI #2396's CPU
pipeline pinned its host buffers, which needs CUDA, so it failed only for users without a GPU. On a
GPU machine, and on 2.x beside the simulated device (which serves `pin_memory()` as the process's
accelerator), the call succeeds and the bug hides. Inside `without_accelerator()` (the pytest
plugin's `cpu-only` row) the process behaves as a CPU-only one: pinning memory, `.cuda()`, moving to
an accelerator, creating streams or events, and torch.cuda's runtime calls raise as they would
there, and under a trace each call is an `accelerator_runtime` error naming its line. Queries
(`torch.cuda.is_available()`, `device_count()`) answer as a CPU-only machine does. What it does not
cover: native code that reaches the CUDA runtime by itself, without torch's Python API.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, ContextManager, Dict, Iterator, List, NoReturn, Optional, Sequence, Tuple, cast

from devparity import _sources
from devparity._arguments import device_named
from devparity._findings import add_to_trace
from devparity._patching import patched

# torch.cuda calls that need the runtime (queries answer instead; see _ANSWERS).
_CUDA_CALLS = ("current_device", "set_device", "synchronize", "Stream", "Event", "device", "stream",
               "current_stream", "default_stream", "init", "memory_allocated", "empty_cache", "get_device_name",
               "get_device_properties", "mem_get_info")
_ANSWERS = {"is_available": False, "device_count": 0}
_ACCELERATOR_CALLS = ("current_accelerator", "current_device_index", "set_device_index", "synchronize",
                      "current_stream", "set_stream")


class NoAcceleratorError(RuntimeError):
    """What a CPU-only machine says when code asks for the accelerator runtime."""


def _refuse(name: str) -> NoReturn:
    where = _sources.caller_line(3)
    from devparity._devices import installed_count

    if installed_count():
        add_to_trace({
            "kind": "accelerator_runtime", "severity": "error", "op": name, "source": where,
            "message": f"{name} needs an accelerator runtime, and this row has none (cpu-only): on a machine "
                       f"without a GPU it fails"})
    raise NoAcceleratorError(f"{name}: no accelerator on this machine (devparity's cpu-only row"
                             f"{', at ' + where if where else ''})")


def _refusing(name: str) -> Callable[..., NoReturn]:
    def refused(*args: Any, **kwargs: Any) -> NoReturn:
        _refuse(name)

    return refused


def _answering(value: object) -> Callable[..., object]:
    def answer(*args: Any, **kwargs: Any) -> object:
        return value

    return answer


def _patches() -> List[Tuple[Any, str, object]]:
    import torch

    out: List[Tuple[Any, str, object]] = [(torch.Tensor, "pin_memory", _refusing("Tensor.pin_memory")),
           (torch.Tensor, "cuda", _refusing("Tensor.cuda"))]
    out += [(torch.cuda, name, _refusing(f"torch.cuda.{name}")) for name in _CUDA_CALLS if hasattr(torch.cuda, name)]
    out += [(torch.cuda, name, _answering(value)) for name, value in _ANSWERS.items()]
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None:
        out += [(accelerator, name, _refusing(f"torch.accelerator.{name}"))
                for name in _ACCELERATOR_CALLS if hasattr(accelerator, name)]
        if hasattr(accelerator, "is_available"):
            out.append((accelerator, "is_available", _answering(False)))
        if hasattr(accelerator, "device_count"):
            out.append((accelerator, "device_count", _answering(0)))
    for name in ("Stream", "Event"):
        if hasattr(torch, name):
            out.append((torch, name, _refusing(f"torch.{name}")))
    return out


def _mode() -> Optional[ContextManager[object]]:
    # Factories asked for pinned memory, and moves to an accelerator, seen as written.
    try:
        from torch.overrides import TorchFunctionMode
    except ImportError:
        return None

    class NoAccelerator(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Sequence[Any] = (),
                               kwargs: Optional[Dict[str, Any]] = None) -> Any:
            kwargs = kwargs or {}
            if kwargs.get("pin_memory"):
                _refuse(f"torch.{getattr(func, '__name__', 'factory')}(pin_memory=True)")
            device = device_named(args, kwargs, positional=getattr(func, "__name__", "") == "to")
            if device is not None and device.type not in ("cpu", "meta"):
                _refuse(f"{getattr(func, '__name__', 'op')}(device={str(device)!r})")
            return func(*args, **kwargs)

    mode: ContextManager[object] = cast(Any, NoAccelerator)()  # (its constructor is untyped in torch 1.13)
    return mode


@contextlib.contextmanager
def without_accelerator() -> Iterator[None]:
    """Runs the block as on a machine with no accelerator (Note [No accelerator])."""
    with patched(_patches()), (_mode() or contextlib.nullcontext()):
        yield
