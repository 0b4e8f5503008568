"""A `sys.settrace` hook as a context manager: the arcs of the random-gate sweep and the plugin's
received values both watch Python calls this way, restoring whatever tracer was there."""

import sys


class SysTrace:
    """Installs `self._global` (a sys.settrace function) while the block runs."""

    def _global(self, frame, event, arg):
        raise NotImplementedError

    def __enter__(self):
        self._previous = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(self._previous)
        return False
