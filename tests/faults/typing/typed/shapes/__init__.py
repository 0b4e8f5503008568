"""The clean twin of ../untyped: every function annotated."""

from typing import Tuple


def area(size: Tuple[int, int]) -> int:
    return size[0] * size[1]


def scaled(size: Tuple[int, int], factor: int) -> Tuple[int, int]:
    return (size[0] * factor, size[1] * factor)
