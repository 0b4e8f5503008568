"""The asynchronous simulated device from Python (docs/python.md, docs/vdev-async.md)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

_active = threading.local()

from devparity import _sources
from devparity._devices import DevparityError, _ops, argument_error, installed_count


@dataclass(frozen=True)
class Race:
    """One unsynchronized access: two accesses of the same bytes, one a write, with nothing
    ordering them. `earlier`/`later`: {"op", "stream", "site", "write"}; `site` names the
    user's source line where the access was enqueued."""

    message: str
    earlier: Dict[str, Any]
    later: Dict[str, Any]
    memory: Any
    freed: bool

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Race":
        return cls(message=data["message"], earlier=data["earlier"], later=data["later"], memory=data["memory"],
                   freed=data["freed"])

    def __repr__(self) -> str:
        return f"Race({self.message!r})"


class AsyncRun:
    """What `vdev_async()` saw: `races` (filled when the block ends), `seed`, `poison` (the byte
    unwritten pinned memory holds in this interleaving)."""

    def __init__(self, seed: int, ambient: bool = False, pinned_release: str = "pooled") -> None:
        self.seed = seed
        self.pinned_release = pinned_release
        self.poison: Optional[int] = None
        self.races: List[Race] = []
        self._id: Any = None
        self._ambient = ambient   # the pytest plugin's, around a whole test: a block inside pauses it
        self._paused: Optional[AsyncRun] = None       # the ambient run this block paused

    def __enter__(self) -> AsyncRun:
        if installed_count() == 0:
            raise DevparityError("vdev_async(): the simulated device is not installed: call devparity.install() first")
        active = getattr(_active, "run", None)
        if active is not None and not active._ambient:
            raise DevparityError(f"vdev_async(seed={self.seed}): a vdev_async(seed={active.seed}) block is "
                                 f"already open on this thread (blocks do not nest: one interleaving at a time)")
        if active is not None:
            active._end()
            self._paused = active
        self._begin()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._end()
        finally:
            _active.run = None
            if self._paused is not None:
                self._paused._begin()

    def _begin(self) -> None:
        self._id = _ops().async_begin(self.seed, list(_sources.skipped_folders()), self.pinned_release)
        _active.run = self

    def _end(self) -> None:
        text = _ops().async_end(self._id)
        self._id = None
        data = json.loads(text)
        self.poison = data["poison"]
        self.races += [Race.from_json(r) for r in data["races"]]


def vdev_async(seed: int = 0, pinned_release: str = "pooled") -> AsyncRun:
    """A block in which vdev streams run later, in an interleaving drawn from `seed`, with a race
    detector; at its end every stream is drained and `.races` holds what was found:

        with devparity.vdev_async(seed=3) as run:
            y = model(x.to("vdev:1"))
        assert not run.races, run.races

    Only events, stream and device synchronisation, blocking copies and host-needed values
    (item(), nonzero) order work, as on a GPU; a non-blocking copy into pinned memory holds
    `run.poison` until its stream reaches it. `pinned_release="eager"`: a pinned tensor dropped while
    a copy from or into it is pending is poisoned at once and reported, as pools that do not track
    copies behave (PyTorch's own pool waits for the copy: "pooled", the default)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise argument_error(f"vdev_async(seed): expected a non-negative integer, got {seed!r}", seed, int)
    if pinned_release not in ("pooled", "eager"):
        raise argument_error(f"vdev_async(pinned_release): expected 'pooled' or 'eager', got {pinned_release!r}",
                             pinned_release, str)
    return AsyncRun(seed, pinned_release=pinned_release)
