"""audit(isolate=True, timeout_s=...): the audit in a worker process of its own.

The worker is a fork of this process, so the callable needs no pickling: a lambda or a closure
audits as it would in place. Where PyTorch refuses autograd in forks of this process (it started
device threads of its own: a backward ran here while a device guard counted devices, CUDA's or
Debian's LibTorch 2.6's Vulkan), the worker is a fresh interpreter instead, given the audit
pickled, so that gradients are checked whatever the process did before; a callable that does not
pickle (a lambda, a closure, one defined in __main__) is audited in a fork then, and its report
says why its gradients were not checked. The worker runs the whole audit (the random-gate sweep too) and
streams its results to REPORT.partial as `devparity run` does; this process waits for it. What the
audited code does to its process (os._exit, a crash, a hang past timeout_s, Ctrl-C) ends the
worker only: the report is then rebuilt from the results it finished, marked interrupted with the
cause, and written to the paths asked for; audit() returns it (Ctrl-C: raises KeyboardInterrupt
after writing it). A fork runs torch's CPU kernels on one thread, so an isolated audit of heavy
code is slower; docs/python.md says when to isolate.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Any, Callable, Dict, NoReturn, Optional, Tuple, Type

from devparity._devices import (DevparityError, DevparityTypeError, DevparityValueError, argument_error, op_error,
                                ops as _ops)

# A report as JSON reads it; what the audit in a fresh interpreter runs: (function, arguments).
Report = Dict[str, Any]
Spawn = Tuple[Callable[[Any, str], Report], Any]

_EXIT_ERROR = 70  # the worker raised: its exception is in the result file
# A misuse found in the worker is the error it would be in place.
_RAISED_AGAIN: Dict[str, Type[DevparityError]] = {e.__name__: e for e in (DevparityError, DevparityTypeError, DevparityValueError)}


def check_arguments(isolate: object, timeout_s: object) -> None:
    if not isinstance(isolate, bool):
        raise DevparityTypeError(f"audit(isolate): expected True or False, got {isolate!r}")
    if timeout_s is not None and (isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or
                                  not 0 < timeout_s < float("inf")):
        raise argument_error(f"audit(timeout_s): expected a number of seconds above 0, got {timeout_s!r}",
                             timeout_s, (int, float))


def autograd_refused() -> Optional[str]:
    """Why backward cannot run in this (forked) process, or None: PyTorch refuses autograd in a fork of a
    process whose engine had started device threads of its own (forks_refuse_autograd())."""
    import torch

    try:
        total: Any = torch.ones(1, requires_grad=True).sum()  # (backward is untyped in torch 1.13)
        total.backward()
    except RuntimeError as e:
        if "fork" not in str(e).lower():
            raise
        return ("not checked: PyTorch refuses autograd in a fork of this process, whose autograd engine had "
                "started device threads (https://github.com/pytorch/pytorch/wiki/Autograd-and-Fork), and the "
                "audited callable does not pickle for a fresh worker (a lambda, a closure, or defined in "
                "__main__): define it at module level, isolate before any backward, or audit in place to check "
                "gradients")
    return None


def pickles(payload: object) -> bool:
    """True when `payload` can be rebuilt in a fresh interpreter: it pickles, and names nothing of
    __main__ (a fresh interpreter's __main__ is not this one's)."""
    try:
        data = pickle.dumps(payload)
    except Exception:  # noqa: BLE001 -- PicklingError, AttributeError and TypeError all mean "no"
        return False
    return b"__main__" not in data


def run_isolated(run: Callable[[str], Report], options: Dict[str, Any], timeout_s: Optional[float],
                 spawn: Optional[Spawn] = None) -> Report:
    """Runs `run(report_path)` (the in-process audit, returning its report) in a forked worker; returns
    the report, rebuilt and marked when the worker did not finish. `options`: the audit's options
    (report, junit, html, devices), for the rebuilt report. `spawn`: (function, arguments), both
    picklable, that make the same report in a fresh interpreter (`function(arguments, report_path)`),
    used where PyTorch refuses autograd in forks of this process."""
    folder = tempfile.mkdtemp(prefix="devparity-audit-")
    report = options.get("report") or os.path.join(folder, "report.json")
    result = os.path.join(folder, "result.json")
    sys.stdout.flush()
    sys.stderr.flush()
    if spawn is not None and _ops().forks_refuse_autograd():
        pid = _spawn(spawn, folder, report, result)
    else:
        pid = os.fork()
        if pid == 0:  # the worker: never returns
            os.setpgid(0, 0)
            _worker(run, report, result)
        _own_group(pid)
    try:
        status = _wait(pid, timeout_s)
        if status is None:
            return _closed(report, options, "timeout",
                           f"audit(timeout_s={timeout_s}): the audited code ran past {timeout_s} s; its worker "
                           f"process was killed, and the results are those finished before")
        return _outcome(result, status, report, options)
    except KeyboardInterrupt:
        _stop(pid)
        _closed(report, options, "SIGINT", "interrupted (KeyboardInterrupt); its worker process was killed, and "
                                           "the results are those finished before")
        raise
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _spawn(spawn: Spawn, folder: str, report: str, result: str) -> int:
    # A fresh interpreter with this one's module path, given the audit pickled.
    payload = os.path.join(folder, "audit.pickle")
    with open(payload, "wb") as f:
        pickle.dump(spawn, f)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    code = "import sys; from devparity._isolation import spawned_worker; spawned_worker(*sys.argv[1:])"
    pid = subprocess.Popen([sys.executable, "-c", code, payload, report, result], env=env, process_group=0).pid
    _own_group(pid)
    return pid


def _own_group(pid: int) -> None:
    # The worker leads a process group of its own (either side may set it first), so that what the audited
    # code started (`sleep 600`, a pool) ends with it: orphans outlived the audit (issue 56).
    try:
        os.setpgid(pid, pid)
    except (PermissionError, ProcessLookupError):
        pass  # it set it itself, or has already exec'd / ended


def spawned_worker(payload: str, report: str, result: str) -> NoReturn:
    """The fresh interpreter's end of _spawn: runs the pickled audit and never returns."""
    with open(payload, "rb") as f:
        spawn: Spawn = pickle.load(f)
    function, arguments = spawn
    _worker(lambda path: function(arguments, path), report, result)


def _worker(run: Callable[[str], Report], report: str, result: str) -> NoReturn:
    code = 0
    out: Dict[str, Any]
    try:
        out = {"report": run(report)}
    except BaseException as e:  # noqa: B902 -- everything goes back to the waiting process
        if not isinstance(e, (DevparityError, KeyboardInterrupt)):  # those are raised again as they are
            traceback.print_exc()
        out = {"error": str(e), "type": type(e).__name__}
        code = _EXIT_ERROR
    try:
        with open(result + ".tmp", "w", encoding="utf-8") as f:
            json.dump(out, f)
        os.replace(result + ".tmp", result)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _wait(pid: int, timeout_s: Optional[float]) -> Optional[int]:
    """The worker's wait status, or None when it ran past timeout_s (then killed)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        # Seen ended but not yet reaped, its group is ended first: its id cannot have been taken.
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            _end_group(pid)
            return os.waitpid(pid, 0)[1]
        if deadline is not None and time.monotonic() > deadline:
            _stop(pid)
            return None
        time.sleep(0.02)


def _stop(pid: int) -> None:
    _end_group(pid)
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ChildProcessError, ProcessLookupError):
        pass


def _end_group(pid: int) -> None:
    # Whatever is left of the worker's process group: the audited code's children.
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _outcome(result: str, status: int, report: str, options: Dict[str, Any]) -> Report:
    out: Optional[Dict[str, Any]] = None
    if os.path.exists(result):
        with open(result, encoding="utf-8") as f:
            out = json.load(f)
    if out is not None and "report" in out:
        finished: Report = out["report"]
        return finished
    if out is not None and out.get("type") == "KeyboardInterrupt":
        raise KeyboardInterrupt
    if out is not None and out.get("type") in _RAISED_AGAIN:
        raise _RAISED_AGAIN[out["type"]](out["error"])
    if out is not None:
        how = f"raised {out['type']}: {out['error']}"
    elif os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        how = f"was killed by {signal.Signals(number).name}" if number in signal.valid_signals() else \
              f"was killed by signal {number}"
    else:
        how = f"exited with status {os.WEXITSTATUS(status)} (os._exit or exit in the audited code?)"
    return _closed(report, options, "worker", f"the audit's worker process {how} before the audit ended; the "
                                              f"results are those finished before")


def _closed(report: str, options: Dict[str, Any], cause: str, message: str) -> Report:
    try:
        closed: Report = json.loads(_ops().close_report(report, json.dumps(options), cause, message))
    except (RuntimeError, ValueError) as e:
        raise op_error(e) from None
    return closed
