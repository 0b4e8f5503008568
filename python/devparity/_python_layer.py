"""torch's Python layer on the simulated device.

Note [Python layer]
A GPU tensor can be saved, loaded, pickled and deep-copied; torch 1.13's Python code refuses a
PrivateUse1 one ("don't know how to determine data location", "Storage device not recognized",
"Invalid device for storage"), so a real suite failed on vdev where a GPU passes. install() gives
the simulated device what a GPU has, and where torch has no way for the device at all (DLPack
names no such device; 1.13's autocast accepts only 'cuda' and 'cpu'; nvFuser, CUDA's own TorchScript
fuser, which torchvision's test_jit asks for on its GPU rows, needs a CUDA build; 1.13's TorchScript
loader takes tensors saved on the CPU, CUDA and HPU alone, and torchvision's test_models saves and
loads every scripted model on its GPU rows) it raises
UnsupportedOnSimulatedDevice, which the pytest plugin reports as a skip naming the reason: the
simulator's gap, never the suite's failure. Each piece is probed on a live tensor and installed only
where torch refuses, so a torch that handles the device itself keeps its own behaviour.

On 2.x the device has CUDA's autocast policy (Note [Autocast on the virtual device]); torch's
device-less autocast queries (torch.is_autocast_enabled(), torch.get_autocast_gpu_dtype()) answer
for CUDA, the GPU the simulated device stands for, so inside torch.autocast("vdev") they answer
for the simulated device as they answer for CUDA inside torch.autocast("cuda"): a library that
casts its result back when "autocast is enabled" (Kornia's augmentations) does so on both.
"""

from __future__ import annotations

import copy
import functools
import io
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Set, cast

if TYPE_CHECKING:
    import torch

_installed: Set[str] = set()


class UnsupportedOnSimulatedDevice(NotImplementedError):
    """What a GPU can do and the simulated device cannot, by torch's design (the plugin: a skip)."""


def install(device: torch.device) -> None:
    """Probes torch's Python layer with a tensor on `device` (a simulated device) and fills its gaps."""
    import torch

    probe = torch.arange(4.0).to(device)
    pieces = (("serialization", _round_trips, _install_serialization),
              ("deepcopy", _deep_copies, _install_deepcopy),
              ("dlpack", _packs, _refuse_dlpack),
              ("autocast", _autocasts, _refuse_autocast),
              ("autocast queries", _answers_autocast_queries, _install_autocast_queries),
              ("nvfuser", _fuses_with_nvfuser, _refuse_nvfuser),
              ("scripted load", _loads_scripted, _refuse_scripted_load))
    for name, works, fill in pieces:
        if name in _installed or works(probe):
            continue
        fill(device.type)
        _installed.add(name)


def _fails(action: Callable[[], object]) -> bool:
    try:
        action()
    except (RuntimeError, TypeError, AttributeError, NotImplementedError):
        return True
    return False


def _round_trips(t: torch.Tensor) -> bool:
    import torch

    def save_and_load() -> None:
        buffer = io.BytesIO()
        torch.save(t, buffer)
        buffer.seek(0)
        if torch.load(buffer).device != t.device:
            raise RuntimeError("loaded on another device")

    return not _fails(save_and_load)


def _deep_copies(t: torch.Tensor) -> bool:
    return not _fails(lambda: copy.deepcopy(t))


def _packs(t: torch.Tensor) -> bool:
    import torch.utils.dlpack

    return not _fails(lambda: torch.utils.dlpack.to_dlpack(t))


def _autocasts(t: torch.Tensor) -> bool:
    import torch

    def cast_a_matmul() -> None:
        with torch.autocast(t.device.type):
            (t.view(2, 2) @ t.view(2, 2)).sum()

    return not _fails(cast_a_matmul)


def _answers_autocast_queries(t: torch.Tensor) -> bool:
    import torch

    try:
        with torch.autocast(t.device.type):
            return bool(torch.is_autocast_enabled())
    except (RuntimeError, TypeError, AttributeError, NotImplementedError):
        return True  # no autocast on the device (1.13, refused above): no query to answer


def _install_autocast_queries(device_type: str) -> None:
    import torch

    enabled: Callable[..., bool] = torch.is_autocast_enabled  # (2.x takes a device type; 1.13 none)
    gpu_dtype: Optional[Callable[[], torch.dtype]] = getattr(torch, "get_autocast_gpu_dtype", None)

    @functools.wraps(enabled)
    def is_autocast_enabled(*args: Any, **kwargs: Any) -> bool:
        if args or kwargs:
            return enabled(*args, **kwargs)
        return enabled() or enabled(device_type)

    setattr(torch, "is_autocast_enabled", is_autocast_enabled)
    if gpu_dtype is not None and hasattr(torch, "get_autocast_dtype"):
        gpu_dtype_of = gpu_dtype

        @functools.wraps(gpu_dtype)
        def get_autocast_gpu_dtype() -> torch.dtype:
            if not enabled() and enabled(device_type):
                dtype: torch.dtype = getattr(torch, "get_autocast_dtype")(device_type)  # (2.x)
                return dtype
            return gpu_dtype_of()

        setattr(torch, "get_autocast_gpu_dtype", get_autocast_gpu_dtype)


# --- torch.save / torch.load / pickle -------------------------------------------------------

def _flat_of(t: torch.Tensor) -> torch.Tensor:
    # The whole storage of `t` as a flat uint8 tensor on its device: torch 1.13 will not make a
    # tensor over a device storage from Python (set_(storage) refuses the device), but set_(tensor)
    # shares one.
    import torch

    whole = torch.empty(0, dtype=t.dtype, device=t.device)
    cast(Any, whole).set_(t)  # (a tensor as the source: the stubs name storages alone)
    storage = getattr(whole, "untyped_storage", None) or whole.storage  # (untyped_storage: 2.x)
    nbytes: int = storage().nbytes()
    return whole.as_strided((nbytes // t.element_size(),), (1,), 0).view(torch.uint8)


def _install_serialization(device_type: str) -> None:
    # torch 1.13 saves a tensor through its storage, and no storage API of its Python layer takes
    # a PrivateUse1 storage (location_tag, storage.cpu(), set_(storage)). torch pickles the tensors
    # of storage-less backends (XLA) as their values and device instead; the simulated device's
    # go the same way, through torch's own rebuild function, so a saved file needs no devparity to
    # read and loads onto the device as a GPU's file loads onto the GPU.
    import torch
    import torch._utils

    original: Callable[..., Any] = torch.Tensor._reduce_ex_internal

    @functools.wraps(original)
    def reduce(self: torch.Tensor, proto: int) -> Any:
        if self.device.type != device_type:
            return original(self, proto)
        host = self.detach().cpu()
        if host.dtype == torch.bfloat16:  # numpy has no bfloat16; the rebuild casts back
            host = host.to(torch.float32)
        return (torch._utils._rebuild_device_tensor_from_numpy,
                (host.resolve_conj().resolve_neg().numpy(), self.dtype, str(self.device), self.requires_grad))

    setattr(torch.Tensor, "_reduce_ex_internal", reduce)


# --- copy.deepcopy ---------------------------------------------------------------------------

def _install_deepcopy(device_type: str) -> None:
    import torch

    original: Callable[..., torch.Tensor] = torch.Tensor.__deepcopy__

    @functools.wraps(original)
    def deepcopy(self: torch.Tensor, memo: Dict[Any, Any]) -> torch.Tensor:
        if self.device.type != device_type or not isinstance(self, torch.Tensor) or self.is_sparse:
            return original(self, memo)
        if id(self) in memo:
            copied: torch.Tensor = memo[id(self)]
            return copied
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment")
        # Views of one storage stay views of one copy, as torch's own deepcopy keeps them.
        storages: Dict[int, torch.Tensor] = memo.setdefault("devparity_storages", {})
        key = int(self.data_ptr() - self.storage_offset() * self.element_size())  # (2.x: SymInt-typed)
        with torch.no_grad():
            if key not in storages:
                storages[key] = _flat_of(self).clone()
            new = storages[key].view(self.dtype).as_strided(self.size(), self.stride(), self.storage_offset())
        if self.is_conj():
            new = new.conj()
        if self.is_neg():
            new = new._neg_view()
        new.requires_grad_(self.requires_grad)
        if type(self) is not torch.Tensor:
            new = new.as_subclass(type(self))
        if self.grad is not None:
            new.grad = copy.deepcopy(self.grad, memo)
        new.__dict__ = copy.deepcopy(self.__dict__, memo)
        memo[id(self)] = new
        return new

    setattr(torch.Tensor, "__deepcopy__", deepcopy)


# --- what the device cannot do ---------------------------------------------------------------

def _refuse_dlpack(device_type: str) -> None:
    import torch
    import torch.utils.dlpack

    reason = ("DLPack has no device type for devparity's simulated device (it names CPU, CUDA, ROCm ... "
              "devices), so a tensor on it cannot be exported; on a GPU this runs")

    def guarded(original: Callable[..., Any]) -> Callable[..., Any]:  # the tensor is the first argument (self, or to_dlpack's)
        @functools.wraps(original)
        def call(*args: Any, **kwargs: Any) -> Any:
            if args and isinstance(args[0], torch.Tensor) and args[0].device.type == device_type:
                raise UnsupportedOnSimulatedDevice(reason)
            return original(*args, **kwargs)

        return call

    to_dlpack = guarded(torch.utils.dlpack.to_dlpack)
    setattr(torch.utils.dlpack, "to_dlpack", to_dlpack)
    if hasattr(torch, "to_dlpack"):
        setattr(torch, "to_dlpack", to_dlpack)
    for method in ("__dlpack__", "__dlpack_device__"):
        setattr(torch.Tensor, method, guarded(getattr(torch.Tensor, method)))


def _refuse_autocast(device_type: str) -> None:
    import torch

    original: Callable[..., None] = torch.autocast.__init__
    reason = (f"this torch's autocast has no way for device type '{device_type}' (torch 1.13 takes 'cuda' and "
              f"'cpu' only; on 2.x devparity registers CUDA's policy for it), so autocast cannot run on devparity's "
              f"simulated device here; on a GPU this runs")

    @functools.wraps(original)
    def init(self: Any, device_type_: Optional[str] = None, *args: Any, **kwargs: Any) -> None:
        requested = kwargs.get("device_type", device_type_)
        if requested == device_type:
            raise UnsupportedOnSimulatedDevice(reason)
        if "device_type" in kwargs:
            original(self, *args, **kwargs)
        else:
            original(self, device_type_, *args, **kwargs)

    setattr(torch.autocast, "__init__", init)


def _fuses_with_nvfuser(t: torch.Tensor) -> bool:
    import torch

    def enter() -> None:
        with torch.jit.fuser("fuser2"):
            pass

    return not hasattr(torch.jit, "fuser") or not _fails(enter)


def _loads_scripted(t: torch.Tensor) -> bool:
    import torch

    class Holder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("held", t)

        # TorchScript compiles forward: an annotation (a string here) would not resolve.
        def forward(self):  # type: ignore[no-untyped-def]
            return self.held

    def round_trip() -> None:
        buffer = io.BytesIO()
        save: Callable[..., None] = torch.jit.save   # (untyped in torch 1.13)
        load: Callable[..., Any] = torch.jit.load
        save(torch.jit.script(Holder()), buffer)
        buffer.seek(0)
        if load(buffer).held.device != t.device:
            raise RuntimeError("loaded on another device")

    return not _fails(round_trip)


def _refuse_scripted_load(device_type: str) -> None:
    import torch

    original: Callable[..., Any] = torch.jit.load
    reason = (f"this torch's TorchScript loader takes tensors saved on the CPU, CUDA and HPU alone (torch 1.13: "
              f"\"supported devices include CPU, CUDA and HPU\"), so a scripted module saved on devparity's simulated "
              f"device ('{device_type}') cannot be loaded back; on a GPU this runs")

    @functools.wraps(original)
    def load(*args: Any, **kwargs: Any) -> Any:
        try:
            return original(*args, **kwargs)
        except RuntimeError as e:
            if "supported devices include" in str(e) and "PRIVATEUSEONE" in str(e):
                raise UnsupportedOnSimulatedDevice(reason) from e
            raise

    setattr(torch.jit, "load", load)


def _refuse_nvfuser(device_type: str) -> None:
    import torch

    original: Callable[..., Any] = getattr(torch.jit, "fuser")  # (re-exported implicitly)
    reason = (f"nvFuser (torch.jit.fuser('fuser2')) is CUDA's own TorchScript fuser, which this torch, built without "
              f"CUDA, refuses: it cannot run for devparity's simulated device ('{device_type}'); on a GPU this runs")

    @functools.wraps(original)
    def fuser(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "fuser2":
            raise UnsupportedOnSimulatedDevice(reason)
        return original(name, *args, **kwargs)

    setattr(torch.jit, "fuser", fuser)
