"""A test's device: the devices under test, the device parameters the plugin adds the simulated
devices to, the device each test runs on, and the conditions of its row."""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import pytest
import torch

import devparity
from devparity._devices import CPU_ONLY, DevparityError, installed_count, ops
from devparity._no_accelerator import without_accelerator

NamedDevice = Tuple[str, torch.device]

# Note [Device parameters]
# A test takes its device as a parameter. Its name is "device" in most suites, but not all
# (torchvision's test_models: `parametrize("dev", cpu_and_gpu())`): a parameter of one name whose
# values are device names alone, "cuda" among them, is a device parameter too, and gets the
# simulated devices as "device" does. (A list of other strings that happens to hold "cuda", a
# backend's name beside "triton", is not.)

_DEVICE_TYPES = ("cpu", "cuda", "mps", "xpu", "meta")


def _device_name(value: object) -> Optional[str]:
    # A parametrize value's device name (a pytest.param's too); None for anything else (a dict's
    # `values` is a method).
    values = getattr(value, "values", None)
    inner = values[0] if isinstance(values, (tuple, list)) and len(values) == 1 else value
    return inner if isinstance(inner, str) else None


def _names_devices(values: Sequence[object]) -> bool:
    # Note [Device parameters]: a list of device names alone, "cuda" among them.
    names = [(_device_name(v) or "").split(":")[0] for v in values]
    return "cuda" in names and all(n in _DEVICE_TYPES for n in names)


def _as_device(value: object) -> Optional[torch.device]:
    if isinstance(value, torch.device):
        return value
    if isinstance(value, str):
        try:
            return devparity.device(value)
        except DevparityError:
            return None
    return None


class DevicesUnderTest:
    """The devices of one run (--devparity-devices) and the parameters that name a test's device."""

    def __init__(self, devices: Sequence[NamedDevice]) -> None:
        self.devices = list(devices)
        self.argnames = ["devparity_device", "device", "device_name"]  # Note [Device parameters]

    def simulated(self) -> List[NamedDevice]:
        """The devices devparity makes: the simulated device and the cpu-only row."""
        return [(name, dev) for name, dev in self.devices if name.startswith("vdev") or name == CPU_ONLY]

    def parametrize(self, metafunc: pytest.Metafunc) -> None:
        """The devparity_device fixture over the devices under test, and the simulated devices added to
        each device parameter's list that names "cuda" (torchvision's @parametrize("device",
        cpu_and_cuda()); its test_models names the parameter "dev")."""
        if "devparity_device" in metafunc.fixturenames and self.devices:
            metafunc.parametrize("devparity_device", [d for _, d in self.devices],
                                 ids=[n for n, _ in self.devices], indirect=True)
        if not self.simulated():
            return
        markers = metafunc.definition.own_markers
        for i, mark in enumerate(markers):
            if mark.name != "parametrize" or len(mark.args) < 2:
                continue
            argnames = mark.args[0]
            argname = (argnames if isinstance(argnames, str) else ",".join(argnames)).replace(" ", "")
            if argname != "device" and ("," in argname or not _names_devices(list(mark.args[1]))):
                continue
            if argname not in self.argnames:
                self.argnames.append(argname)
            values = self._with_simulated(list(mark.args[1]))
            if values is None:
                continue
            kwargs = dict(mark.kwargs)
            if isinstance(kwargs.get("ids"), (list, tuple)):
                kwargs["ids"] = list(kwargs["ids"]) + [None] * (len(values) - len(kwargs["ids"]))
            # Built the public way (MarkDecorator.mark), so pytest's private constructor is not used.
            markers[i] = pytest.mark.parametrize(argnames, values, *mark.args[2:], **kwargs).mark

    def _with_simulated(self, values: List[object]) -> Optional[List[object]]:
        # A parametrize list naming "cuda" gets the simulated devices after it.
        if not any((_device_name(v) or "").split(":")[0] == "cuda" for v in values):
            return None
        present = [_device_name(v) for v in values]
        extra: List[object] = [pytest.param(str(dev), marks=pytest.mark.devparity_vdev, id=name)
                               for name, dev in self.simulated() if dev.type == "cpu" or str(dev) not in present]
        return values + extra if extra else None

    def target(self, item: pytest.Item) -> Optional[torch.device]:
        """The device the test runs on, when it says: a device argument, or a parameter naming one.
        Asked by every hook of every test: kept on the item until its fixtures fill in (a device
        fixture names it only then)."""
        funcargs: Dict[str, object] = getattr(item, "funcargs", None) or {}
        kept = item.__dict__.get("_devparity_target")
        if kept is None or kept[0] != len(funcargs):
            kept = item.__dict__["_devparity_target"] = (len(funcargs), self._named_device(item, funcargs))
        found: Optional[torch.device] = kept[1]
        return found

    def _named_device(self, item: pytest.Item, funcargs: Dict[str, object]) -> Optional[torch.device]:
        params: Dict[str, object] = getattr(getattr(item, "callspec", None), "params", {})
        for key in self.argnames:
            for source in (funcargs, params):
                if key in source:
                    found = _as_device(source[key])
                    if found is not None:
                        return found
        return None


def is_simulated(device: Optional[torch.device]) -> bool:
    return device is not None and device.type in ("vdev", "privateuseone")


def simulated_index(device: Optional[torch.device]) -> Optional[int]:
    """The index of a simulated device that names one (vdev:1), else None."""
    return device.index if device is not None and is_simulated(device) else None


def _on_cpu_only_row(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    # (`in params.values()` would compare each tensor parameter with a string.)
    return callspec is not None and (CPU_ONLY in callspec.id or
                                     any(type(v) is str and v == CPU_ONLY for v in callspec.params.values()))


@contextlib.contextmanager
def row_conditions(item: pytest.Item, target: Optional[torch.device]) -> Iterator[None]:
    """The conditions of the test's row: on vdev:K another index is current (Note [Current device]); on
    cpu-only there is no accelerator runtime (Note [No accelerator])."""
    index, cpu_only = simulated_index(target), _on_cpu_only_row(item)
    if index is None and not cpu_only:  # (most rows: nothing to set)
        yield
        return
    with contextlib.ExitStack() as stack:
        if index is not None:
            simulator = ops()
            stack.callback(simulator.set_device, simulator.make_other_current(index))
        if cpu_only:
            stack.enter_context(without_accelerator())
        yield


def absent(device: Optional[torch.device]) -> Optional[str]:
    """Why the test's device is not in this process (None when it is), from its device guard alone, so
    that asking starts nothing: a "cuda" row on a machine without CUDA skips as it would without
    devparity, untouched by the trace."""
    if device is None:
        return None
    return _absent_from(str(device), installed_count())


@functools.lru_cache(maxsize=64)
def _absent_from(name: str, simulated_count: int) -> Optional[str]:
    # (A process's devices change only as install() adds simulated indices.)
    why: str = ops().device_absent(name)
    return why or None


def held_back(target: Optional[torch.device]) -> Optional[str]:
    """Why a row on another real accelerator does not run in this process (None when it runs): Note [One
    accelerator per process]: with the simulated device installed here, torch 2.x takes it for the
    process's accelerator and gives CUDA's backward its streams, so the row would fail here where it
    passes in a process of its own."""
    if target is None or target.type in ("cpu", "meta", "vdev", "privateuseone") or absent(target):
        return None
    if not installed_count():
        return None
    return (f"devparity: the {target} row does not run in this process: the simulated device is installed here "
            f"(--devparity-devices), and torch 2.x takes it for the process's accelerator, whose streams it then gives "
            f"{target.type}'s backward; run the {target} rows in a pytest process without devparity's devices")
