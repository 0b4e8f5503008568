"""torch.vdev (2.x) or torch.privateuseone (1.13): the device module torch asks a PrivateUse1 backend for.

torch.manual_seed, fork_rng(device_type="vdev"), autocast and lazy initialisation look
these functions up by name. The simulated device computes with the CPU's kernels and
draws from the CPU's generator, so its random state is the CPU's.
"""

from __future__ import annotations

from typing import Any, List, Optional, Union

import torch

_ops: Any = None


def _bind(ops: Any) -> None:
    global _ops
    _ops = ops


def is_available() -> bool:
    return _ops is not None and _ops.device_count() > 0


def device_count() -> int:
    return int(_ops.device_count()) if _ops is not None else 0


def current_device() -> int:
    return int(_ops.current_device())


def set_device(device: Union[int, str, torch.device]) -> None:
    _ops.set_device(torch.device(device).index if not isinstance(device, int) else device)


def synchronize(device: Union[int, str, torch.device, None] = None) -> None:
    """Waits for every stream of the device (the current one by default); in the synchronous
    mode every op has already completed."""
    index = current_device() if device is None else (device if isinstance(device, int) else torch.device(device).index)
    _ops.synchronize(current_device() if index is None else index)


def _lazy_init() -> None:
    pass


def is_initialized() -> bool:
    return _ops is not None


def _is_in_bad_fork() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Draws use the CPU generator, which torch.manual_seed already seeds."""


def manual_seed_all(seed: int) -> None:
    """Draws use the CPU generator, which torch.manual_seed already seeds."""


def get_rng_state(device: Union[int, str, torch.device, None] = None) -> torch.Tensor:
    return torch.get_rng_state()


def set_rng_state(new_state: torch.Tensor, device: Union[int, str, torch.device, None] = None) -> None:
    torch.set_rng_state(new_state)


def get_amp_supported_dtype() -> List[torch.dtype]:
    return [torch.float16, torch.bfloat16]


class device:
    """Context manager that makes `index` the current simulated device, as torch.cuda.device does."""

    def __init__(self, index: Union[int, str, torch.device]) -> None:
        self.index: Optional[int] = torch.device(index).index if not isinstance(index, int) else index
        self.previous: Optional[int] = None

    def __enter__(self) -> device:
        if self.index is not None:
            self.previous = current_device()
            set_device(self.index)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            set_device(self.previous)
