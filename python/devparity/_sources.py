"""Where Python code is: the library's line, an attribute's assignment, a test's scaffolding.

Findings name lines of the code under audit, not torch's or devparity's own, and not the test's
scaffolding (Note [Scaffolding]). These helpers are the Python side of the op library's source
locator (python/csrc/python_frames.h), for what Python sees and LibTorch's callbacks do not.
"""

from __future__ import annotations

import ast
import contextlib
import fnmatch
import functools
import inspect
import os
import sys
import textwrap
from types import FrameType
from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Set, Tuple, Union

# {attr: [(method, line, empty)]} of a class's own `self.attr = ...` assignments.
Assignments = Dict[str, List[Tuple[str, int, bool]]]

_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep

# Note [Scaffolding]
# A test suite's own code moves inputs to the device, builds expected values and reads results
# back: a conftest, a `test_*.py` or `*_test.py` file, a package named `testing` (a library's test
# helpers), any file beside a collected test module (torchvision's test/common_utils.py), the file
# that opened a trace or an audit, and whatever the user lists (--devparity-scaffolding=GLOB).
# Tensors it makes are the test's inputs, device data on every row (the cpu row included); its own
# syncs and copies are not the library's findings. Code under test kept in a folder of its own is
# the library's, even inside a tests/ tree.
_SCAFFOLD_DIRS = ("testing",)
_extra_globs: List[str] = []
_extra_dirs: Set[str] = set()
_extra_files: List[str] = []


def set_scaffolding_globs(globs: Iterable[str]) -> None:
    """Path globs (fnmatch) whose files are scaffolding, replacing the previous ones."""
    _extra_globs[:] = list(globs)
    _is_scaffolding.cache_clear()


def add_scaffolding(globs: Union[str, Iterable[str]]) -> None:
    """Declares files (fnmatch globs, e.g. "*/tests/helpers/*.py") the test suite's own code: the
    tensors they make are the test's inputs, and their syncs and copies are not the library's
    findings (Note [Scaffolding]). The pytest plugin's --devparity-scaffolding does the same."""
    if isinstance(globs, str):
        globs = [globs]
    _extra_globs.extend(g for g in globs if g not in _extra_globs)
    _is_scaffolding.cache_clear()


def add_scaffolding_dirs(dirs: Iterable[str]) -> None:
    """Files directly in these folders are scaffolding (the folders of collected test modules)."""
    _extra_dirs.update(os.path.normpath(d) for d in dirs)
    _is_scaffolding.cache_clear()


@contextlib.contextmanager
def scaffolding_file(path: str) -> Iterator[None]:
    """`path` is scaffolding while the block runs (the file that opened a trace or an audit)."""
    _extra_files.append(path)
    try:
        yield
    finally:
        _extra_files.remove(path)


def scaffolding_key() -> Tuple[Tuple[str, ...], FrozenSet[str], Tuple[str, ...]]:
    """What decides which files are scaffolding now: equal keys, the same answers from is_scaffolding."""
    return (tuple(_extra_globs), frozenset(_extra_dirs), tuple(_extra_files))


def is_scaffolding(path: str) -> bool:
    """True for files of a test suite's scaffolding (Note [Scaffolding])."""
    return bool(path) and (path in _extra_files or _is_scaffolding(path))


@functools.lru_cache(maxsize=4096)
def _is_scaffolding(path: str) -> bool:
    name = os.path.basename(path)
    if name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
        return True
    parts = os.path.normpath(path).split(os.sep)[:-1]
    if any(p in _SCAFFOLD_DIRS for p in parts) or os.path.dirname(os.path.normpath(path)) in _extra_dirs:
        return True
    return any(fnmatch.fnmatch(path, g) for g in _extra_globs)


@functools.lru_cache(maxsize=256)
def if_statements(path: str) -> Tuple[ast.If, ...]:
    """The `if` statements (ast nodes) of the Python file at `path`; () where it does not parse.
    The random-gate sweep's gates and the branches on the device type's name read them."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return ()
    return tuple(n for n in ast.walk(tree) if isinstance(n, ast.If))


@functools.lru_cache(maxsize=1)
def skipped_folders() -> Tuple[str, ...]:
    """Folders whose frames are not user code: torch's, devparity's, the standard library's and the
    test runner's (pytest printing a failed assertion's tensors through reprlib is no part of the
    library): an op they run is charged to the code that called them."""
    import torch

    runners = tuple(os.path.dirname(os.path.abspath(str(sys.modules[name].__file__))) + os.sep
                    for name in ("_pytest", "pluggy") if getattr(sys.modules.get(name), "__file__", None))
    return (os.path.dirname(os.path.abspath(str(torch.__file__))) + os.sep, _HERE, stdlib_folder()) + runners


@functools.lru_cache(maxsize=1)
def stdlib_folder() -> str:
    """The standard library's folder: its helpers (copy.deepcopy) are neither the code's nor the test's."""
    import sysconfig

    return sysconfig.get_paths()["stdlib"] + os.sep


def _skipped(path: str) -> bool:
    return path.startswith(skipped_folders()) or path.startswith("<")


def user_frame(depth: int = 1) -> Optional[FrameType]:
    """The innermost frame outside torch and devparity (None when there is none)."""
    frame: Optional[FrameType] = sys._getframe(depth)
    while frame is not None and _skipped(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def caller_file(depth: int = 1) -> str:
    """The file of the innermost frame outside torch and devparity ("" when none)."""
    frame = user_frame(depth + 1)
    return frame.f_code.co_filename if frame is not None else ""


def line_of(frame: Optional[FrameType]) -> str:
    """"file.py:42" of `frame` ("" for None)."""
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else ""


def caller_line(depth: int = 1) -> str:
    """"file.py:42" of the innermost frame outside torch and devparity ("" when none)."""
    return line_of(user_frame(depth + 1))


def _empty(node: ast.AST) -> bool:
    # `{}`, `[]`, `()`, `None`, `dict()`: a placeholder, not state.
    if isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return not (getattr(node, "keys", None) or getattr(node, "elts", None))
    if isinstance(node, ast.Constant):
        return node.value is None
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("dict", "list") \
        and not node.args and not node.keywords


def _assignments(cls: type) -> Assignments:
    # {attr: [(method, line, empty)]} of `self.attr = ...` (and `self.attr: T = ...`) in cls's own
    # body; `empty` when the value is a placeholder literal.
    try:
        lines, start = inspect.getsourcelines(cls)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return {}
    found: Assignments = {}
    for method in ast.walk(tree):
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
            continue
        me = method.args.args[0].arg
        for node in ast.walk(method):
            if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                continue
            targets: List[ast.expr] = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
                        found.setdefault(t.attr, []).append(
                            (method.name, start + node.lineno - 1, value is not None and _empty(value)))
    return found


@functools.lru_cache(maxsize=1024)
def _class_assignments(cls: type) -> Tuple[Optional[str], Assignments]:
    try:
        path = inspect.getsourcefile(cls)
    except TypeError:
        return None, {}
    return path, _assignments(cls)


def assignment_line(obj: object, attr: str) -> Tuple[str, bool]:
    """("file.py:12", in_constructor) of the line that gives `self.<attr>` its value in obj's class
    or a base: the constructor's first assignment of something other than a placeholder (`{}`,
    `None`) when there is one, else the first assignment; ("", False) when there is none."""
    for cls in type(obj).__mro__:
        if cls.__module__ in ("builtins",) or cls.__module__.startswith("torch."):
            continue
        path, found = _class_assignments(cls)
        sites = found.get(attr)
        if not sites or path is None:
            continue
        init = [line for method, line, empty in sites if method == "__init__" and not empty]
        return (f"{path}:{init[0]}", True) if init else (f"{path}:{sites[0][1]}", False)
    return "", False
