"""Models of a library's own CUDA kernels for the simulated device (Note [CUDA's arithmetic on vdev]).

vdev runs an op's CPU kernel, so a custom op whose CUDA kernel computes differently (a float
resize where the CPU's is fixed point, a sort whose ties fall otherwise) shows nothing on vdev.
`register_cuda_model` gives vdev the CUDA computation: on vdev rows it runs in place of the op's
CPU kernel, on CPU tensors, and what it returns is the op's result there; CPU rows keep the CPU's
kernel. devparity's own models (TF32 matmuls) are on by default; `devparity list` names them.
"""

from __future__ import annotations

import re
import threading
from typing import Any, Callable, Dict, Optional, cast

from devparity._devices import DevparityValueError, _ops, argument_error, torch_module

_NAMESPACE = "devparity_cuda_models"
_OP = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)::([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?$")
_lock = threading.Lock()
_state: Dict[str, Any] = {"library": None, "defined": 0}


def _schema_of(namespace: str, name: str, overload: str) -> Any:
    torch = torch_module()
    try:
        packet = getattr(getattr(torch.ops, namespace), name)
        return getattr(packet, overload or "default")._schema
    except (AttributeError, RuntimeError):
        return None


def _model_library() -> Any:
    if _state["library"] is None:
        from torch.library import Library

        # (untyped in torch 1.13: called as Any)
        _state["library"] = cast(Any, Library)(_NAMESPACE, "DEF")
    return _state["library"]


def _checked(op: str, name: str, model: Callable[..., Any]) -> Callable[..., Any]:
    # The model's results as the op's CPU kernel would hand them: CPU tensors.
    torch = torch_module()

    def run(*args: Any) -> Any:
        out = model(*args)
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor) and t.device.type != "cpu":
                raise DevparityValueError(f"CUDA model {name!r} of {op} returned a tensor on {t.device}; a model "
                                          f"computes on the CPU tensors it is given and returns CPU tensors")
        return tuple(out) if isinstance(out, list) else out

    return run


def register_cuda_model(op: str, model: Callable[..., Any], *, name: Optional[str] = None, doc: str = "",
                        replace: bool = False) -> None:
    """Gives the simulated device a model of `op`'s CUDA kernel.

    op: the custom op, "mylib::resize" or "mylib::resize.overload", already registered with torch
        (torch.library or TORCH_LIBRARY) and functional (it writes none of its arguments).
    model: called on vdev rows in place of the op's CPU kernel, with the op's arguments (tensors
        on the CPU), returning what the CUDA kernel returns, as CPU tensors of the op's dtypes.
    name: how a failing test names the model (default: the op); doc: what it computes and from
        which source. replace: the op already has a model; this one replaces it (else an error).
    """
    matched = _OP.match(op) if isinstance(op, str) else None
    if matched is None:
        raise argument_error(f"register_cuda_model(op): expected 'namespace::name' or 'namespace::name.overload', "
                             f"got {op!r}", op, str)
    if not callable(model):
        raise argument_error(f"register_cuda_model(model): expected a callable, got {model!r}", model, Callable)
    namespace, op_name, overload = matched.groups()
    overload = "" if overload in (None, "default") else overload
    qualified = f"{namespace}::{op_name}" + (f".{overload}" if overload else "")
    schema = _schema_of(namespace, op_name, overload)
    if schema is None:
        raise DevparityValueError(f"register_cuda_model: no op {qualified} is registered with torch; define it "
                                  f"(torch.library or TORCH_LIBRARY) before giving it a model")
    written = [a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write]
    if written:
        raise DevparityValueError(f"register_cuda_model: {qualified} writes its argument(s) {', '.join(written)}; "
                                  f"give a model of its functional form")
    label = name if name is not None else qualified
    ops = _ops()
    with _lock:
        library = _model_library()
        _state["defined"] += 1
        model_op = f"{namespace}__{op_name}__{overload or 'default'}__{_state['defined']}"
        signature = str(schema)
        library.define(model_op + signature[signature.index("("):])
        library.impl(model_op, _checked(qualified, label, model), "CPU")
    try:
        ops.register_cuda_model(qualified, f"{_NAMESPACE}::{model_op}", label, doc, replace)
    except (RuntimeError, ValueError) as e:  # another model has the op
        raise DevparityValueError(f"register_cuda_model: {e}") from None
