"""audit(isolate=True, timeout_s=...): the audit in a worker process of its own.

The worker is a fork of this process, so the callable needs no pickling: a lambda or a closure
audits as it would in place. The worker runs the whole audit (the random-gate sweep too) and
streams its results to REPORT.partial as `devparity run` does; this process waits for it. What the
audited code does to its process (os._exit, a crash, a hang past timeout_s, Ctrl-C) ends the
worker only: the report is then rebuilt from the results it finished, marked interrupted with the
cause, and written to the paths asked for; audit() returns it (Ctrl-C: raises KeyboardInterrupt
after writing it). A fork runs torch's CPU kernels on one thread, so an isolated audit of heavy
code is slower; docs/python.md says when to isolate.
"""

import json
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback

from devparity._devices import (DevparityError, DevparityTypeError, DevparityValueError, argument_error, op_error,
                                ops as _ops)

_EXIT_ERROR = 70  # the worker raised: its exception is in the result file
# A misuse found in the worker is the error it would be in place.
_RAISED_AGAIN = {e.__name__: e for e in (DevparityError, DevparityTypeError, DevparityValueError)}


def check_arguments(isolate, timeout_s):
    if not isinstance(isolate, bool):
        raise DevparityTypeError(f"audit(isolate): expected True or False, got {isolate!r}")
    if timeout_s is not None and (isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or
                                  not 0 < timeout_s < float("inf")):
        raise argument_error(f"audit(timeout_s): expected a number of seconds above 0, got {timeout_s!r}",
                             timeout_s, (int, float))


def autograd_refused():
    """Why backward cannot run in this (forked) process, or None: PyTorch refuses autograd in a fork of a
    process whose autograd device threads had started (a backward on an accelerator, vdev included)."""
    import torch

    try:
        torch.ones(1, requires_grad=True).sum().backward()
    except RuntimeError as e:
        if "fork" not in str(e).lower():
            raise
        return ("not checked: this process had run a backward on a device before the audit's worker was "
                "forked, and PyTorch refuses autograd in such a fork (https://github.com/pytorch/pytorch/wiki/"
                "Autograd-and-Fork); isolate before any backward on an accelerator, or audit in a fresh process, "
                "to check gradients")
    return None


def run_isolated(run, options, timeout_s):
    """Runs `run(report_path)` (the in-process audit, returning its report) in a forked worker; returns
    the report, rebuilt and marked when the worker did not finish. `options`: the audit's options
    (report, junit, html, devices), for the rebuilt report."""
    folder = tempfile.mkdtemp(prefix="devparity-audit-")
    report = options.get("report") or os.path.join(folder, "report.json")
    result = os.path.join(folder, "result.json")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the worker: never returns
        _worker(run, report, result)
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


def _worker(run, report, result):
    code = 0
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


def _wait(pid, timeout_s):
    """The worker's wait status, or None when it ran past timeout_s (then killed)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if deadline is not None and time.monotonic() > deadline:
            _stop(pid)
            return None
        time.sleep(0.02)


def _stop(pid):
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ChildProcessError, ProcessLookupError):
        pass


def _outcome(result, status, report, options):
    out = None
    if os.path.exists(result):
        with open(result, encoding="utf-8") as f:
            out = json.load(f)
    if out is not None and "report" in out:
        return out["report"]
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


def _closed(report, options, cause, message):
    try:
        return json.loads(_ops().close_report(report, json.dumps(options), cause, message))
    except (RuntimeError, ValueError) as e:
        raise op_error(e) from None
