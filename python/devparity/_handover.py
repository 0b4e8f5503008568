"""devparity.host_handover(): code that hands data to the host on purpose, declared.

The Python form of DEVPARITY_HOST_HANDOVER() (docs/placement.md): a decoder turning bytes into
a CPU image, an encoder's entropy coding on the host. Inside it, host syncs and host-to-device
copies are notes, and what it makes on the host is host data by declaration: returned, it is no
wrong_device_output. Everything else is judged as usual (a device-less factory meeting device
data is still an error).
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


class host_handover(contextlib.ContextDecorator):
    """Declares the block (`with devparity.host_handover():`) or the function
    (`@devparity.host_handover()`) a host hand-over. Free when nothing traces."""

    def __enter__(self) -> host_handover:
        from devparity._devices import installed_count, ops

        self._ops = ops() if installed_count() else None
        if self._ops is not None:
            self._ops.host_handover_enter()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._ops is not None:
            self._ops.host_handover_leave()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def handed_over(*args: Any, **kwargs: Any) -> Any:
            with host_handover():
                return fn(*args, **kwargs)

        return cast(F, handed_over)
