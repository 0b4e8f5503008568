"""What the arguments of a Python call hold: the tensors in them, the device they name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, List, Mapping, Optional, Sequence

if TYPE_CHECKING:
    import torch


def tensors_in(values: Iterable[object]) -> List[torch.Tensor]:
    """The tensors among `values`, looking one level into lists, tuples and dicts (a module's list
    attribute, a function's dict of parameters)."""
    import torch

    out: List[torch.Tensor] = []
    for v in values:
        items: Iterable[object] = v.values() if isinstance(v, dict) else v if isinstance(v, (list, tuple)) else (v,)
        out.extend(t for t in items if isinstance(t, torch.Tensor))
    return out


def device_named(args: Sequence[object], kwargs: Mapping[str, Any], positional: bool = True) -> Optional[torch.device]:
    """The torch.device a call names: its `device=` keyword, or with `positional` the first device-like
    argument after self (`.to("cpu")`, `.to(x.device)`); None when it names none or none valid."""
    import torch

    device = kwargs.get("device")
    if device is None and positional:
        device = next((a for a in args[1:] if isinstance(a, (str, torch.device))), None)
    if device is None:
        return None
    try:
        return torch.device(device)
    except (RuntimeError, TypeError):
        return None
