"""The types of pytest's hook wrappers, as the plugin's modules name them."""

from __future__ import annotations

from types import TracebackType
from typing import Any, Callable, Generator, Optional, Protocol, Tuple, Type, TypeVar, cast

import pytest

ExcInfo = Tuple[Type[BaseException], BaseException, Optional[TracebackType]]


class HookOutcome(Protocol):
    """What a hookwrapper's `yield` gives back (pluggy's Result: `_Result` before pluggy 1.1)."""

    @property
    def excinfo(self) -> Optional[ExcInfo]: ...

    def get_result(self) -> Any: ...


# A hookwrapper: yields once, and is sent the outcome of the hooks it wraps.
Wrapper = Generator[None, HookOutcome, None]
# A part of one, run with `yield from`: what it gives back is the outcome.
WrapperPart = Generator[None, HookOutcome, HookOutcome]


Hook = TypeVar("Hook", bound=Callable[..., Any])


def hookimpl(**options: bool) -> Callable[[Hook], Hook]:
    """pytest.hookimpl, typed alike on every pluggy (1.0's marker is untyped)."""
    marker: Callable[[Hook], Hook] = cast(Any, pytest.hookimpl)(**options)
    return marker
