"""Device queries in traced code: `torch.cuda.is_available()` and its kin.

Note [Device queries]
Code that picks its device by asking whether CUDA is available (`torch.cuda.is_available()`,
Kornia's `get_cuda_device_if_available()`) takes the CPU path beside the simulated device and never
meets device data, so its bugs hide from every CPU-only run. While a trace runs these queries are
wrapped: each call from the code under audit is a `device_dependent_code` warning naming its line.
A test directs such code to the simulated device by patching the helper it calls (docs/python.md).
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator

from devparity import _sources
from devparity._findings import add_to_trace
from devparity._patching import patched

_QUERIES = (("cuda", "is_available"), ("cuda", "device_count"))


def _wrap(original: Callable[..., Any], name: str, report: Callable[[str, str], None]) -> Callable[..., Any]:
    def query(*args: Any, **kwargs: Any) -> Any:
        frame = _sources.user_frame(2)
        if frame is not None and not _sources.is_scaffolding(frame.f_code.co_filename):
            report(name, _sources.line_of(frame))
        return original(*args, **kwargs)

    functools.update_wrapper(query, original)  # (its __wrapped__: inspect finds the query itself)
    query.__name__ = getattr(original, "__name__", name)
    return query


def _report(name: str, where: str) -> None:
    add_to_trace({
        "kind": "device_dependent_code", "severity": "warning", "op": "", "source": where,
        "message": f"{name}() asks which device this machine has: the code takes the CPU's path beside "
                   f"the simulated device, so no CPU-only run can vouch for the path a GPU machine takes "
                   f"(direct it to the device under test; docs/python.md)"})


@contextlib.contextmanager
def watched() -> Iterator[None]:
    """Wraps the device queries while the block runs (Note [Device queries])."""
    import torch

    owners = [(getattr(torch, module_name), module_name, attr) for module_name, attr in _QUERIES]
    with patched((owner, attr, _wrap(getattr(owner, attr), f"torch.{module_name}.{attr}", _report))
                 for owner, module_name, attr in owners):
        yield
