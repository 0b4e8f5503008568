"""The types of pytest's hook wrappers, as the plugin's modules name them."""

from __future__ import annotations

from types import TracebackType
from typing import Any, Generator, Optional, Protocol, Tuple, Type

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
