"""torch's own test modules (torch.testing._internal) on a torch installed without its test-only
dependencies, as Debian's is: tools/autocast_table.py and tools/cuda_half_gaps.py read PyTorch's
autocast lists and OpInfo database from there."""

import importlib.util
import sys
import types
import unittest


def stand_in_test_dependencies():
    """Installs stand-ins for what torch's common_utils imports and these tools never use."""
    # expecttest: a TestCase base and an ACCEPT flag (a test-only package Debian does not ship).
    if importlib.util.find_spec("expecttest") is None:
        stand_in = types.ModuleType("expecttest")
        stand_in.TestCase = unittest.TestCase
        stand_in.ACCEPT = False
        sys.modules["expecttest"] = stand_in
    # 2.x imports torch.utils.cpp_extension, which needs setuptools (not a dependency of Debian's
    # torch); nothing here builds an extension.
    try:
        import setuptools.command.build_ext  # noqa: F401
    except ImportError:
        stand_in = types.ModuleType("torch.utils.cpp_extension")
        stand_in.__getattr__ = lambda name: None
        sys.modules["torch.utils.cpp_extension"] = stand_in
