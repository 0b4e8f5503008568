"""Library code that picks its CUDA path by the device type's name.

Note [Branches on the device type's name]
Code that chooses a CUDA-only op with `x.device.type == "cuda"` (torchvision 0.21's encode_jpeg of
a batch: nvJPEG's `encode_jpegs_cuda`) takes its other branch on the simulated device, a branch a
GPU never runs for that input: there the CPU op refuses device data, and the test fails on vdev
alone. A failure on a simulated row raised on the non-CUDA side of such a branch, in the library's
code, is that branch's: a named skip naming its line, never the library's failure. Only a test that
is the device type's name alone counts (`== "cuda"`, `!= "cuda"`, `.is_cuda`, `not .is_cuda`): the
else of `x.is_cuda and big` runs on a GPU too, and a failure there stays a failure. The cpu row is
never excused: the CPU runs that branch.
"""

from __future__ import annotations

import ast
import functools
import re
from typing import List, Optional, Tuple

from devparity import _sources

# A TorchScript interpreter's error names the scripted code's own lines in its message.
_SCRIPTED = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.M)


def _names_cuda_by_type(test: ast.expr) -> int:
    # +1: true on a CUDA device; -1: false there; 0: not the device type's name alone.
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return -_names_cuda_by_type(test.operand)
    if isinstance(test, ast.Attribute) and test.attr == "is_cuda":
        return 1
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
        sides = (test.left, test.comparators[0])
        typed = any(isinstance(s, ast.Attribute) and s.attr == "type" for s in sides)
        cuda = any(isinstance(s, ast.Constant) and s.value == "cuda" for s in sides)
        if typed and cuda:
            return 1 if isinstance(test.ops[0], ast.Eq) else -1
    return 0


@functools.lru_cache(maxsize=256)
def _non_cuda_sides(path: str) -> Tuple[Tuple[int, int, int], ...]:
    # ((first_line, last_line, if_line), ...): the lines a GPU does not run of each such `if` in `path`.
    out: List[Tuple[int, int, int]] = []
    for node in _sources.if_statements(path):
        polarity = _names_cuda_by_type(node.test)
        side = node.orelse if polarity > 0 else node.body if polarity < 0 else None
        if side:
            out.append((side[0].lineno, max(getattr(n, "end_lineno", n.lineno) for n in side), node.lineno))
    return tuple(out)


def branch_a_gpu_skips(error: BaseException) -> Optional[str]:
    """"file:line" of the `if` on the device type's name on whose non-CUDA side, in library code,
    `error` was raised; None when it was not (Note [Branches on the device type's name])."""
    skipped = _sources.skipped_folders()
    places: List[Tuple[str, int]] = []
    tb = error.__traceback__
    while tb is not None:
        places.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    message = str(error)
    if "Traceback of TorchScript" in message:  # (a scripted library function: its frames are not Python's)
        places += [(path, int(line)) for path, line in _SCRIPTED.findall(message)]
    for path, line in places:
        if path and not path.startswith("<") and not path.startswith(skipped) and not _sources.is_scaffolding(path):
            for first, last, test_line in _non_cuda_sides(path):
                if first <= line <= last:
                    return f"{path}:{test_line}"
    return None
