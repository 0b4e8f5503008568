"""A package whose py.typed would promise types it lacks: one function without annotations."""

from typing import Tuple


def area(size: Tuple[int, int]) -> int:
    return size[0] * size[1]


def scaled(size, factor):  # FAULT: untyped
    return (size[0] * factor, size[1] * factor)
