"""Attributes of torch replaced while a block runs, and put back as they were after it."""

from __future__ import annotations

import contextlib
from typing import Any, Iterable, Iterator, List, Tuple


@contextlib.contextmanager
def patched(replacements: Iterable[Tuple[Any, str, object]]) -> Iterator[None]:
    """Sets each (owner, name, replacement) while the block runs. Afterwards an attribute the owner
    held itself gets its value back, and one it inherited (torch.Tensor's C methods) loses the
    owner's own entry, so that lookups find the inherited one again."""
    saved: List[Tuple[Any, str, bool, object]] = []
    try:
        for owner, name, replacement in replacements:
            saved.append((owner, name, name in vars(owner), vars(owner).get(name)))
            setattr(owner, name, replacement)
        yield
    finally:
        for owner, name, own, original in reversed(saved):
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)
