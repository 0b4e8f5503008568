"""Which ways the code under audit went: arcs between its lines, and its `if` gates.

Note [Random gates]
A random transform applies to the samples its gate selects (`p=0.5`), and may build what it
applies only for them: Kornia #3704's illumination gradient was made on the CPU only for samples
whose gate fired, so a seed where none fires passes on every device. Sweeping seeds finds the
other side: each seed runs the code on the CPU while the arcs between its lines are collected
(a new arc is a branch taken another way), and every `if` statement met is a gate, covered when
both its sides ran. The sweep ends when `patience` seeds in a row add no arc and every gate met
went both ways; with a gate still one-sided (a rare draw, or a shape test no seed changes) it
runs every seed it may. audit(random=True) and the pytest plugin's reruns use it.
"""

from __future__ import annotations

import functools
import sys
from types import FrameType
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

from devparity import _sources


@functools.lru_cache(maxsize=256)
def _gates_of(path: str) -> Tuple[Tuple[int, int, Optional[int]], ...]:
    # [(if_line, body_first_line, else_first_line or None)] of the `if` statements in `path`.
    return tuple((n.lineno, n.body[0].lineno, n.orelse[0].lineno if n.orelse else None)
                 for n in _sources.if_statements(path) if n.body)


class Arcs:
    """Collects (file, from_line, to_line) arcs of frames outside torch, devparity and the
    standard library while the block runs (a sys.settrace hook, restoring the one that was there)."""

    def __init__(self) -> None:
        self.arcs: Set[Tuple[str, Optional[int], int]] = set()
        self._lines: Dict[str, Set[int]] = {}  # path -> lines that ran

    def _local(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        if event == "line":
            path = frame.f_code.co_filename
            self.arcs.add((path, self._last.get(id(frame)), frame.f_lineno))
            self._lines.setdefault(path, set()).add(frame.f_lineno)
            self._last[id(frame)] = frame.f_lineno
        elif event == "return":
            self._last.pop(id(frame), None)
        return self._local

    def _global(self, frame: FrameType, event: str, arg: Any) -> Optional[Callable[..., Any]]:
        path = frame.f_code.co_filename
        if path.startswith(self._skip) or path.startswith("<"):
            return None
        return self._local

    def one_sided(self) -> List[str]:
        """["file.py:12", ...] of the gates met that went one way only."""
        out = []
        for path, lines in self._lines.items():
            for test, body, orelse in _gates_of(path):
                if test not in lines:
                    continue
                took_body = body in lines
                took_other = orelse in lines if orelse is not None else any(
                    a[0] == path and a[1] == test and a[2] not in (test, body) for a in self.arcs)
                if not (took_body and took_other):
                    out.append(f"{path}:{test}")
        return sorted(out)

    def __enter__(self) -> Arcs:
        # torch's, devparity's and the standard library's own branches are not the code's gates.
        self._skip = _sources.skipped_folders()
        self._last: Dict[int, int] = {}
        self._previous = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(self._previous)


def sweep(run_seed: Callable[[int], None], arcs: Arcs, seeds: Iterable[int],
          patience: int = 3) -> Tuple[List[int], List[int]]:
    """Runs `run_seed(s)` for each s of `seeds` (an iterable) while it matters (Note [Random
    gates]); returns (kept, tried): the seeds that took the code somewhere new, and all run."""
    kept: List[int] = []
    tried: List[int] = []
    quiet = 0
    for s in seeds:
        before = len(arcs.arcs)
        run_seed(s)
        tried.append(s)
        if not kept or len(arcs.arcs) > before:
            kept.append(s)
            quiet = 0
            continue
        quiet += 1
        if quiet >= patience and not arcs.one_sided():
            break
    return kept, tried
