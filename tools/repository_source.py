"""Compiles a tools/ script's own classes under its repository-relative file
name, so that TorchScript archives made from them (and devparity's findings)
say tools/<script>.py:LINE wherever the repository lives.

Shared by make_torchscript_fixtures.py and make_realworld_corpus.py: each
script runs itself again through definitions(), with DEFINITIONS_ONLY set so
that its main() does not run twice.
"""

import os
import sys
import types


def definitions(source):
    """The classes and functions of `source` ("tools/x.py"), compiled under
    that name, from the repository root (the working directory after)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    # Named __main__ as a plain run would be: the scripted code then lives in
    # __torch__ itself, where the interpreter reports each function's frame.
    module = types.ModuleType("__main__")
    module.__file__ = source
    module.DEFINITIONS_ONLY = True
    sys.modules["__main__"].__file__ = source  # inspect finds classes through it
    with open(source) as f:
        exec(compile(f.read(), source, "exec"), module.__dict__)
    return module
