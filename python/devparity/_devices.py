"""The simulated device from Python: install it, name its indices."""

from __future__ import annotations

import json
import os
import pathlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any, Dict, Tuple, Type, Union

if TYPE_CHECKING:
    import torch

_state: Dict[str, Any] = {"ops": None, "count": 0}
CPU_ONLY = "cpu-only"  # the pytest plugin's row with no accelerator runtime (Note [No accelerator])


class DevparityError(RuntimeError):
    """A devparity misuse with its cause: an unknown device, a torch it was not built for."""


class DevparityTypeError(DevparityError, TypeError):
    """An argument of a type devparity does not take; also a TypeError, as Python's own."""


class DevparityValueError(DevparityError, ValueError):
    """An argument of the right type with a value devparity does not take; also a ValueError."""


def op_error(e: BaseException) -> DevparityError:
    """The error for a devparity op's failure `e`: its first line; a ValueError from the op (a bad
    setting, device or file) stays one (DevparityValueError)."""
    return (DevparityValueError if isinstance(e, ValueError) else DevparityError)(str(e).splitlines()[0])


def argument_error(message: str, value: object, types: Union[type, Tuple[type, ...]]) -> DevparityError:
    """The error for a bad argument `value`: DevparityTypeError when it is not one of `types` (a bool
    is not an int here), else DevparityValueError."""
    allowed = types if isinstance(types, tuple) else (types,)
    wrong_type = not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed)
    return (DevparityTypeError if wrong_type else DevparityValueError)(message)


def _build_info() -> Tuple[Dict[str, Any], pathlib.Path]:
    path = pathlib.Path(__file__).with_name("_build.json")
    with open(path, encoding="utf-8") as f:
        info: Dict[str, Any] = json.load(f)
    return info, path


def torch_module() -> ModuleType:
    """torch, or a DevparityError naming this interpreter and the one devparity was built with: a
    Python without torch (a venv, another installation) is the usual wrong turn."""
    try:
        import torch
    except ImportError as e:
        try:
            info, path = _build_info()
            built = f"it was built against torch {info['torch']} for {info.get('python', 'an unrecorded interpreter')}"
        except OSError:
            built = "its build record (_build.json) is missing"
        raise DevparityError(
            f"devparity needs torch, and this Python ({sys.executable}) cannot import it ({e}); {built}: run it "
            f"with that interpreter (on Debian /usr/bin/python3 with python3-torch), or rebuild devparity with "
            f"-DPython3_EXECUTABLE=<this interpreter> against its torch") from e
    return torch


def _release(version: str) -> Tuple[str, ...]:
    # "1.13.0a0+git..." and "1.13.1" are the same release series for the ABI.
    return tuple(version.split("+")[0].split(".")[:2])


def _ops() -> Any:
    """Loads the op library once, after checking that this torch is the one it was built for."""
    if _state["ops"] is not None:
        return _state["ops"]
    torch = torch_module()

    info, path = _build_info()
    if _release(torch.__version__) != _release(info["torch"]):
        raise DevparityError(
            f"devparity was built against torch {info['torch']} ({path}), but this process runs "
            f"torch {torch.__version__} from {os.path.dirname(str(torch.__file__))}: rebuild devparity "
            f"against this torch (loading it would crash on a mismatched ABI)")
    library = pathlib.Path(__file__).parent / "_lib" / info["library"]
    # Loading it registers nothing a process meets; install() does (Note [One accelerator per process]).
    try:
        torch.ops.load_library(str(library))
    except OSError as e:
        raise DevparityError(f"cannot load devparity's op library {library}: {e}") from e
    _state["ops"] = torch.ops.devparity
    return _state["ops"]


def install(count: int = 2) -> str:
    """Installs the simulated device with `count` indices (1..16) and returns its type name.

    On torch 2.x this names the PrivateUse1 backend "vdev", which makes it the process's
    accelerator (torch.accelerator, default streams, pin_memory(), and the streams autograd gives
    CUDA's backward): install it in processes that run no CUDA work (Note [One accelerator per
    process]). Whatever the process ran before, backward passes on vdev work after it (Note
    [Autograd device threads]).
    """
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 16:
        raise argument_error(f"install(count): expected an integer in [1, 16], got {count!r}", count, int)
    ops = _ops()
    ops.install(count)
    _state["count"] = count
    _register_device_module(ops)
    import torch

    from devparity import _kept, _python_layer

    _python_layer.install(torch.device(device_type(), 0))  # Note [Python layer]

    _kept.record_assignments()  # Note [Kept state in Python]: the lines findings name
    # Index 1 by default, so that code assuming index 0 shows (docs/python.md).
    ops.set_device(1 if count > 1 else 0)
    return device_type()


def _register_device_module(ops: Any) -> None:
    # torch.vdev (2.x; and Tensor.vdev(), is_vdev and their kin) or torch.privateuseone
    # (1.13), once per process: what torch.manual_seed, fork_rng and autocast look up.
    import torch

    from devparity import _device_module

    _device_module._bind(ops)
    name = device_type()
    if getattr(torch, name, None) is not _device_module:
        register: Any = torch._register_device_module  # (untyped in torch 1.13)
        register(name, _device_module)
        if ops.named_in_libtorch():
            # (torch 2.x's, where the backend has a name: not in 1.13's torch.utils)
            generate = getattr(torch.utils, "generate_methods_for_privateuse1_backend")
            generate(for_storage=True)


def installed_count() -> int:
    """The simulated device's index count; 0 before install()."""
    count: int = _state["count"]
    return count


def device_type() -> str:
    """The torch device type of the simulated device: "vdev" on torch 2.x, "privateuseone" on 1.13."""
    if _state["ops"] is None:
        raise DevparityError("the simulated device is not installed: call devparity.install() first")
    return "vdev" if _state["ops"].named_in_libtorch() else "privateuseone"


def device(spec: Union[str, "torch.device"]) -> "torch.device":
    """The torch.device for a devparity device name: "cpu", "meta", "cuda[:N]", "vdev:K", or "vdev"
    without an index (the current device, as users write `cuda`)."""
    import torch

    if isinstance(spec, torch.device):
        return spec
    if not isinstance(spec, str):
        raise DevparityTypeError(f"device(spec): expected a device name such as 'vdev:1', got {spec!r}")
    name, _, index = spec.partition(":")
    if name in ("cpu", "meta", "cuda") and (not index or index.isdigit()):
        return torch.device(spec)
    if spec == CPU_ONLY:  # the CPU of a machine without an accelerator (Note [No accelerator])
        return torch.device("cpu")
    if name in ("vdev", "privateuseone"):
        if index and not index.isdigit():
            raise DevparityValueError(f"device '{spec}': expected 'vdev' (the current index) or 'vdev:K'")
        if _state["count"] == 0:
            raise DevparityError(f"device '{spec}': the simulated device is not installed: "
                                 f"call devparity.install() first")
        if not index:  # the spelling users write: the current device, as `cuda` is
            return torch.device(device_type())
        if int(index) >= _state["count"]:
            raise DevparityValueError(f"device '{spec}': only {_state['count']} simulated device(s) installed "
                                 f"(vdev:0..vdev:{_state['count'] - 1})")
        return torch.device(device_type(), int(index))
    raise DevparityValueError(f"unknown device '{spec}': expected cpu, cpu-only, meta, cuda[:N], vdev or vdev:K")


def device_name(dev: Union[str, "torch.device"]) -> str:
    """devparity's name for a torch device: "vdev:1" for privateuseone:1 on torch 1.13."""
    import torch

    dev = torch.device(dev)
    if dev.type in ("privateuseone", "vdev"):
        return "vdev" if dev.index is None else f"vdev:{dev.index}"
    return str(dev)


def ops() -> Any:
    """devparity's op library (torch.ops.devparity), loaded on first use."""
    return _ops()
