"""devparity.audit() and devparity.compare(): a Python callable audited by devparity's runner.

The callable becomes an operator (torch.library, namespace devparity_py) and the runner audits it
as an "op" subject (harness/subject/op_subject.h), in this process, with the checks, tolerances,
replayed draws and report of `devparity run`. An nn.Module is copied and moved per trial by a
second operator that also tells the runner what the copy holds: its parameters and buffers
(registered state) and its plain tensor attributes (kept state, which moving leaves behind).
"""

from __future__ import annotations

import collections.abc
import contextlib
import copy
import itertools
import json
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from devparity import _coverage, _device_queries, _host_data, _isolation, _kept, _sources
from devparity._arguments import tensors_in
from devparity._devices import (DevparityTypeError, DevparityValueError, argument_error, installed_count,
                                install, op_error, ops as _ops, torch_module)

if TYPE_CHECKING:
    import torch

Json = Dict[str, Any]
# (vdev_async, interleavings, pinned_release, perturb, vdev_arithmetic)
Streams = Tuple[bool, int, str, Optional[str], str]

_library: Dict[str, Any] = {"lib": None}
_counter = itertools.count()
_DTYPES = {"uint8": "uint8", "float32": "float32", "float": "float32", "float64": "float64",
           "double": "float64", "float16": "float16", "half": "float16", "bfloat16": "bfloat16"}


def _lib() -> Any:
    import torch

    if _library["lib"] is None:
        library: Any = torch.library.Library  # (untyped in torch 1.13)
        _library["lib"] = library("devparity_py", "DEF")
    return _library["lib"]


def _dtype_name(dtype: object) -> str:
    import torch

    if isinstance(dtype, torch.dtype):
        dtype = str(dtype).replace("torch.", "")
    if not isinstance(dtype, str) or dtype not in _DTYPES:
        raise argument_error(f"unknown dtype {dtype!r} (expected one of: {', '.join(sorted(set(_DTYPES.values())))})",
                             dtype, str)
    return _DTYPES[dtype]


def _identifier(name: Optional[str]) -> str:
    text = re.sub(r"[^A-Za-z0-9_]", "_", name or "subject").strip("_")
    return text or "subject"


def _simulated_tensors(module: torch.nn.Module) -> List[torch.Tensor]:
    # Tensors of `module` (parameters, buffers, plain attributes) on a device deepcopy cannot copy
    # on torch 1.13 (its storages have no location there: "Storage device not recognized").
    found: List[torch.Tensor] = []
    for sub in module.modules():
        values = list(vars(sub).values()) + list(sub._parameters.values()) + list(sub._buffers.values())
        found.extend(t for t in tensors_in(values) if t.device.type not in ("cpu", "cuda", "meta"))
    return found


def _copy_module(module: torch.nn.Module) -> torch.nn.Module:
    """A deep copy of `module` that keeps every tensor where it is, simulated devices included."""
    import torch

    memo: Dict[int, Any] = {}
    for t in _simulated_tensors(module):
        if id(t) in memo:
            continue
        clone = t.detach().clone()
        if isinstance(t, torch.nn.Parameter):
            clone = torch.nn.Parameter(clone, requires_grad=t.requires_grad)
        elif t.requires_grad and t.is_leaf:
            clone.requires_grad_(True)
        memo[id(t)] = clone
    copied = copy.deepcopy(module, memo)
    _kept.copy_lines(module, copied)
    return copied


def _register_subject(fn: Callable[..., Any], name: str, sweep: _Sweep) -> Tuple[str, Optional[str]]:
    """Defines devparity_py::<name>_<n> (and its state operator for a module); returns their names."""
    import torch

    lib = _lib()
    op = f"{name}_{next(_counter)}"
    lib.define(f"{op}(Tensor image) -> Tensor")
    moved: Dict[str, Callable[..., Any]] = {}

    auditing = os.getpid()

    def run(image: torch.Tensor) -> torch.Tensor:
        subject = moved.get(str(image.device), fn)
        try:
            with contextlib.ExitStack() as stack:
                stack.enter_context(_device_queries.watched())
                if image.device.type == "cpu":
                    stack.enter_context(_host_data.watching())
                    if sweep.collecting:
                        stack.enter_context(sweep.arcs)
                out = subject(image)
            if not isinstance(out, torch.Tensor):
                raise TypeError(f"the audited callable returned {type(out).__name__}, not a tensor: devparity audits "
                                f"image -> image callables; return one tensor (a wrapper can pick it from "
                                f"{type(out).__name__})")
            return out
        except KeyboardInterrupt:
            _ops().request_interrupt()  # Ctrl-C stops the audit, not this trial's verdict
            raise
        finally:
            if os.getpid() != auditing:
                # The audited code forked and its copy returned here: the copy would run the rest of
                # the audit and write its reports over the auditing process's (issue 56). It ends.
                os._exit(0)

    lib.impl(op, run, "CompositeImplicitAutograd")
    if not isinstance(fn, torch.nn.Module):
        return f"devparity_py::{op}", None

    module_fn = fn

    def state(name: str) -> Tuple[List[torch.Tensor], List[str], List[torch.Tensor], List[str], List[str]]:
        device = torch.device(name)
        module = _copy_module(module_fn).to(device)
        moved[str(device)] = module
        registered = list(module.named_parameters()) + list(module.named_buffers())
        kept = _kept.qualified_left_behind(module, device)
        return ([t.detach() for _, t in registered], [n for n, _ in registered],
                [t for _, t, _ in kept], [n for n, _, _ in kept], [line for _, _, line in kept])

    lib.define(f"{op}_state(str device) -> (Tensor[] registered, str[] registered_names, "
               f"Tensor[] kept, str[] kept_names, str[] kept_made_at)")
    lib.impl(f"{op}_state", state, "CompositeExplicitAutograd")
    return f"devparity_py::{op}", f"devparity_py::{op}_state"


def _inputs(inputs: Any, name: str) -> Tuple[List[Json], List[str]]:
    import torch

    if isinstance(inputs, (torch.Tensor, dict)) or (isinstance(inputs, tuple) and all(isinstance(v, int) for v in inputs)):
        inputs = [inputs]
    recipes: List[Json] = []
    dtypes: List[str] = []
    for i, item in enumerate(inputs):
        if isinstance(item, torch.Tensor):
            tensor_name = f"{name}_{i}"
            if item.dim() != 4:
                raise DevparityValueError(f"inputs[{i}]: expected an NCHW tensor, got shape {tuple(item.shape)}")
            _ops().register_input(tensor_name, item.detach())
            recipes.append({"tensor": tensor_name})
            dtypes.append(_dtype_name(item.dtype))
        elif isinstance(item, dict):
            recipes.append(dict(item))
        elif isinstance(item, (list, tuple)) and len(item) == 4 and all(isinstance(v, int) for v in item):
            recipes.append({"shape": list(item)})
        else:
            raise DevparityTypeError(f"inputs[{i}]: expected a tensor, an NCHW shape or a recipe dict "
                                 f"({{'pattern': 'noise', 'shape': [1, 3, 17, 11]}}), got {item!r}")
    return recipes, dtypes


def _device_list(devices: Union[str, Sequence[Any], None]) -> str:
    if devices is None:
        return "auto"
    if isinstance(devices, str):
        devices = [d.strip() for d in devices.split(",") if d.strip()]
    from devparity._devices import device_name

    return ",".join(device_name(d) if not isinstance(d, str) else d for d in devices)


@dataclass(frozen=True, repr=False)
class AuditResult:
    """What devparity.audit() found: the report (a dict in the report schema), its results, those
    that failed or erred, and the seeds audited (audit(random=True): those the sweep kept; None
    without a sweep). Frozen: the verdict of one audit does not change after it."""

    report: Dict[str, Any]
    results: Tuple[Dict[str, Any], ...]
    failures: Tuple[Dict[str, Any], ...]
    seeds: Optional[Tuple[int, ...]]

    @classmethod
    def from_report(cls, report: Dict[str, Any]) -> "AuditResult":
        results = tuple(report.get("results", []))
        sweep = report.get("run", {}).get("random_sweep")
        return cls(report=report, results=results,
                   failures=tuple(r for r in results if r.get("status") in ("fail", "error")),
                   seeds=tuple(sweep["seeds"]) if sweep else None)

    @property
    def interrupted(self) -> Optional[Dict[str, Any]]:
        """Why the audit did not finish (summary.interrupted: signal and message), or None."""
        why: Optional[Dict[str, Any]] = self.report.get("summary", {}).get("interrupted")
        return why

    @property
    def not_run(self) -> Tuple[Dict[str, str], ...]:
        """Each (case, device) where every trial skipped, with the first reason (summary.coverage)."""
        return tuple(self.report.get("summary", {}).get("coverage", {}).get("not_run", []))

    @property
    def ran_nowhere(self) -> bool:
        """True when no trial did more than skip: the audit compared nothing."""
        return all(r.get("status") == "skip" for r in self.results)

    @property
    def passed(self) -> bool:
        """True when the audit finished, something ran, and no trial failed or erred (with
        audit(require_all=True): and every device ran every case)."""
        coverage = self.report.get("summary", {}).get("coverage", {})
        unmet = bool(coverage.get("required")) and bool(coverage.get("not_run"))
        return not self.failures and self.interrupted is None and not self.ran_nowhere and not unmet

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        counts: Dict[str, int] = {}
        for r in self.results:
            status = str(r.get("status"))
            counts[status] = counts.get(status, 0) + 1
        return f"AuditResult({counts})"


class _Sweep:
    """The random-gate sweep's state while an audit runs (Note [Random gates])."""

    def __init__(self) -> None:
        self.collecting = False
        self.arcs = _coverage.Arcs()


def _check_audit_arguments(fn: object, placement: object, interleavings: object, vdev_async: object, seeds: object,
                           pinned_release: object) -> None:
    if not callable(fn):
        raise DevparityTypeError(f"audit(fn): expected a callable or an nn.Module, got {fn!r}")
    if placement not in ("warn", "strict", "off"):
        raise argument_error(f"audit(placement): expected warn, strict or off, got {placement!r}", placement, str)
    if not isinstance(interleavings, int) or isinstance(interleavings, bool) or not 1 <= interleavings <= 1000:
        raise argument_error(f"audit(interleavings): expected an integer in [1, 1000], got {interleavings!r}",
                             interleavings, int)
    if interleavings > 1 and not vdev_async:
        raise DevparityValueError(f"audit(interleavings={interleavings}): only the asynchronous vdev has interleavings; "
                             f"leave vdev_async=True")
    if pinned_release not in ("pooled", "eager"):
        raise argument_error(f"audit(pinned_release): expected 'pooled' or 'eager', got {pinned_release!r}",
                             pinned_release, str)
    if pinned_release != "pooled" and not vdev_async:
        raise DevparityValueError("audit(pinned_release='eager'): only the asynchronous vdev has pinned copies "
                                  "pending; leave vdev_async=True")
    if seeds is not None and not (
            (isinstance(seeds, int) and not isinstance(seeds, bool) and 1 <= seeds <= 1000) or
            (isinstance(seeds, (list, tuple)) and seeds and
             all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in seeds))):
        raise argument_error(f"audit(seeds): expected a bound in [1, 1000] or a list of seeds, got {seeds!r}",
                             seeds, (int, list, tuple))


def _output_path(argument: str, path: object) -> Optional[str]:
    # A file to write: None, a str or any os.PathLike (pathlib.Path).
    if path is None:
        return None
    if not isinstance(path, (str, os.PathLike)):
        raise DevparityTypeError(f"audit({argument}): expected a path (str or os.PathLike), got {path!r}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text:
        raise DevparityValueError(f"audit({argument}): expected a path, got {path!r}")
    return text


def _check_plain_arguments(devices: object, dtypes: object, seed: object, name: object, checks: object, tolerance: object,
                           flags: Mapping[str, object]) -> None:
    # Every argument checked where it enters, by name (issue 56): none reaches the runner to fail there
    # in another's words, or to be taken silently.
    import torch

    if devices is not None and not isinstance(devices, (str, torch.device)) and not (
            isinstance(devices, (list, tuple)) and all(isinstance(d, (str, torch.device)) for d in devices)):
        raise DevparityTypeError(f"audit(devices): expected a device list ('cpu,vdev:1') or a sequence of device "
                                 f"names or torch devices, got {devices!r}")
    if dtypes is not None and not isinstance(dtypes, (str, list, tuple)):
        raise DevparityTypeError(f"audit(dtypes): expected dtype names or torch dtypes, got {dtypes!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 64):
        raise argument_error(f"audit(seed): expected a whole number from 0 to {2 ** 64 - 1}, got {seed!r}", seed, int)
    if name is not None and not isinstance(name, str):
        raise DevparityTypeError(f"audit(name): expected a string, got {name!r}")
    for argument, value in (("checks", checks), ("tolerance", tolerance)):
        if value is not None and not isinstance(value, collections.abc.Mapping):
            raise DevparityTypeError(f"audit({argument}): expected a dict, got {value!r}")
    for argument, value in flags.items():
        if not isinstance(value, bool):
            raise DevparityTypeError(f"audit({argument}): expected True or False, got {value!r}")


def _autocast_name(autocast: object) -> Optional[str]:
    # The case's "autocast": None when off, else the lower precision dtype's name.
    if autocast is None or autocast is False:
        return None
    if autocast is True:
        return "float16"
    text = autocast if isinstance(autocast, str) else str(autocast).replace("torch.", "")
    name = _DTYPES.get(text) if isinstance(autocast, str) or type(autocast).__name__ == "dtype" else None
    if name not in ("float16", "bfloat16"):
        raise argument_error(f"audit(autocast): expected True, False, 'float16' or 'bfloat16' (or the torch dtype), "
                             f"got {autocast!r}", autocast, (bool, str))
    return name


def _perturb_text(perturb: object) -> Optional[str]:
    # "all", "a,b" or ["a", "b"] as the runner reads it; the names are checked there.
    if perturb is None:
        return None
    if isinstance(perturb, str):
        return perturb
    if isinstance(perturb, (list, tuple)) and perturb and all(isinstance(p, str) for p in perturb):
        return ",".join(perturb)
    raise argument_error(f"audit(perturb): expected 'all', a switch name or a list of them, got {perturb!r}",
                         perturb, (str, list))


def _runs_cuda(device_list: str) -> bool:
    # The audit has CUDA rows that run here ("auto" names cuda:0 too).
    import torch

    names = device_list.split(",")
    return torch.cuda.is_available() and any(n == "auto" or n.startswith("cuda") for n in names)


def _run_audit(suite: Json, options: Json) -> Json:
    try:
        report: Json = json.loads(_ops().audit(json.dumps(suite), json.dumps(options)))
    except (RuntimeError, ValueError) as e:
        raise op_error(e) from None
    if report.get("summary", {}).get("interrupted", {}).get("signal") == "SIGINT":
        raise KeyboardInterrupt  # the report is written and marked; Ctrl-C goes on up
    return report


def audit(fn: Callable[..., Any], inputs: Any, *, devices: Union[str, Sequence[Any], None] = None,
          dtypes: Optional[Sequence[Any]] = None, seed: Optional[int] = None, report: Optional[str] = None,
          junit: Optional[str] = None, html: Optional[str] = None, name: Optional[str] = None,
          differentiable: bool = True, random: bool = False, checks: Optional[Mapping[str, Any]] = None,
          tolerance: Optional[Mapping[str, Any]] = None, placement: str = "warn", quiet: bool = True,
          vdev_async: bool = True, interleavings: int = 1, seeds: Union[int, Sequence[int], None] = None,
          isolate: bool = False, timeout_s: Optional[float] = None, pinned_release: str = "pooled",
          perturb: Union[str, Sequence[str], None] = None, autocast: Union[bool, str, Any] = False,
          require_all: bool = False, vdev_arithmetic: str = "cuda") -> AuditResult:
    """Audits `fn` (a callable image -> image, or an nn.Module, moved per device) as `devparity run`
    audits a transform: parity against the reference device with per-dtype tolerances, placement,
    the gradient for floating inputs; random draws replayed per device.

    inputs: tensors (NCHW), NCHW shapes or recipe dicts (cases/README.md: pattern, shape, ...).
    devices: names ("cpu,vdev:1,meta" or a list); default: every device present.
    dtypes: dtype names or torch dtypes ("float32,uint8" or a list); default: the tensors' own, else float32.
    report / junit / html: files to write (str or os.PathLike); the returned AuditResult holds the report
    either way. Every argument is checked as it enters: a wrong type is a DevparityTypeError, a wrong
    value a DevparityValueError, each naming the argument.
    checks: {"check": false | settings} as a case file gives them; tolerance: the parity check's.
    vdev_async: vdev runs asynchronously (the default; False runs each op at its call, as
    `devparity run --vdev-sync`; docs/vdev-async.md);
    interleavings: with it, the interleavings each vdev trial runs under (Note [Interleaving sweep]);
    pinned_release: "eager" frees pinned memory the moment it is dropped, poisoned, and reports copies
    still pending from or into it (Note [Eager pinned release]); "pooled", PyTorch's, waits for them.
    perturb: vdev computes with other legal arithmetic than the CPU ("all", or switch names:
    `devparity list` names them; docs/perturbed-numerics.md); a trial whose result then moves past
    its tolerance fails, naming the switches that move it.
    vdev_arithmetic: "cuda" (the default): vdev computes as CUDA would where devparity models it (TF32
    matmuls while the process allows them, register_cuda_model's models); "cpu": the CPU's kernels
    alone (docs/cuda-arithmetic.md).
    autocast: True (float16), "float16", "bfloat16" or a torch dtype: each device's row runs under
    `torch.autocast(device.type, dtype)` and is compared with the reference made outside it, at the
    lower precision's tolerance (floating dtypes; float32 by default). A device type without autocast
    (meta; vdev on LibTorch 1.13) skips its rows, saying why. docs/half-precision.md.
    random: the callable draws random numbers; its draws are replayed per device, and seeds are
    swept until every random gate went both ways (Note [Random gates]): from `seed` (0 without
    one), at most `seeds` of them (16 by default), or exactly the list `seeds`.
    isolate / timeout_s: the audit runs in a worker process of its own (either one asks for it), so
    that os._exit, a crash or a hang past timeout_s seconds in the audited code ends the worker only;
    the report then holds the results finished before, marked interrupted with the cause.
    Ctrl-C stops the audit after writing its report, marked, and raises KeyboardInterrupt.
    An audit whose every row skipped passed nothing: `passed` is False and `ran_nowhere` says so;
    `not_run` lists each device where it did not run and why; require_all: any such device fails it.
    """
    torch_module()
    _check_audit_arguments(fn, placement, interleavings, vdev_async, seeds, pinned_release)
    report, junit, html = (_output_path(name_, path) for name_, path in (("report", report), ("junit", junit),
                                                                        ("html", html)))
    _check_plain_arguments(devices, dtypes, seed, name, checks, tolerance,
                           {"differentiable": differentiable, "random": random, "quiet": quiet,
                            "vdev_async": vdev_async, "require_all": require_all})
    if isinstance(dtypes, str):  # "float32" or "float32,uint8", as the CLI takes them
        dtypes = [d.strip() for d in dtypes.split(",") if d.strip()]
    perturb_text = _perturb_text(perturb)
    if vdev_arithmetic not in ("cuda", "cpu"):
        raise argument_error(f"audit(vdev_arithmetic): expected 'cuda' or 'cpu', got {vdev_arithmetic!r}",
                             vdev_arithmetic, str)
    autocast_dtype = _autocast_name(autocast)
    _isolation.check_arguments(isolate, timeout_s)
    caller = _sources.caller_file(2)

    def here(report_path: Optional[str], case_checks: Optional[Mapping[str, Any]] = checks,
             isolation: Optional[Json] = None) -> Json:
        return _audit_here(fn, inputs, devices, dtypes, seed, report_path, junit, html, name, differentiable, random,
                           case_checks, tolerance, placement, quiet,
                           (vdev_async, interleavings, pinned_release, perturb_text, vdev_arithmetic),
                           seeds, caller, isolation, autocast_dtype, require_all)

    if isolate or timeout_s is not None:
        def in_worker(report_path: str) -> Json:
            refused = _isolation.autograd_refused()
            if not refused:
                return here(report_path, isolation={"worker": "fork"})
            return here(report_path, dict(checks or {}, gradient=False), {"worker": "fork", "gradient": refused})

        options: Json = {"report": report, "junit": junit, "html": html, "devices": _device_list(devices),
                   "placement": placement, "require_all": bool(require_all)}
        arguments = dict(fn=fn, inputs=inputs, devices=devices, dtypes=dtypes, seed=seed, junit=junit, html=html,
                         name=name, differentiable=differentiable, random=random, checks=checks, tolerance=tolerance,
                         placement=placement, quiet=quiet,
                         streams=(vdev_async, interleavings, pinned_release, perturb_text, vdev_arithmetic),
                         seeds=seeds, caller=caller, autocast=autocast_dtype, require_all=require_all)
        spawn = (_audit_spawned, arguments) if _isolation.pickles((_audit_spawned, arguments)) else None
        return AuditResult.from_report(_isolation.run_isolated(in_worker, options, timeout_s, spawn))
    return AuditResult.from_report(here(report))


def _audit_spawned(arguments: Json, report_path: str) -> Json:
    # audit(isolate=True)'s worker when it is a fresh interpreter (_isolation.run_isolated).
    return _audit_here(report=report_path, isolation={"worker": "spawn"}, **arguments)


def _audit_here(fn: Callable[..., Any], inputs: Any, devices: Union[str, Sequence[Any], None],
                dtypes: Optional[Sequence[Any]], seed: Optional[int], report: Optional[str], junit: Optional[str],
                html: Optional[str], name: Optional[str], differentiable: bool, random: bool,
                checks: Optional[Mapping[str, Any]], tolerance: Optional[Mapping[str, Any]], placement: str, quiet: bool,
                streams: Streams, seeds: Union[int, Sequence[int], None], caller: str, isolation: Optional[Json] = None,
                autocast: Optional[str] = None, require_all: bool = False) -> Json:
    """The audit in this process; returns its report. `streams`: (vdev_async, interleavings,
    pinned_release, perturb, vdev_arithmetic); `isolation`: how its worker ran (run.isolation); `autocast`: the
    case's "autocast" dtype name, or None."""
    vdev_async, interleavings, pinned_release, perturb, vdev_arithmetic = streams
    device_list = _device_list(devices)
    if installed_count() == 0 and ("vdev" in device_list or device_list == "auto") and not _runs_cuda(device_list):
        install()  # Note [One accelerator per process]: never in a process that runs CUDA rows
    name = _identifier(name or getattr(fn, "__name__", None) or type(fn).__name__)
    sweep = _Sweep()
    op, state = _register_subject(fn, name, sweep)
    recipes, tensor_dtypes = _inputs(inputs, name)
    dtype_names = [_dtype_name(d) for d in dtypes] if dtypes else sorted(set(tensor_dtypes)) or ["float32"]
    if autocast and not all(d.startswith(("float", "bfloat")) for d in dtype_names):
        raise DevparityValueError(f"audit(autocast={autocast!r}): autocast casts floating tensors, and integer "
                                  f"outputs computed in a lower precision have no tolerance; the dtypes are "
                                  f"{', '.join(dtype_names)} (give floating inputs or dtypes)")
    subject: Json = {"op": op, "name": name, "dtypes": dtype_names, "differentiable": bool(differentiable),
               "random": bool(random), "description": f"Python callable {name}"}
    if state:
        subject["state"] = state
    case_checks: Json = {"stress": False}  # its threads would wait on this thread's interpreter lock
    if tolerance is not None:  # the parity check's setting is its tolerance (docs/checks.md)
        case_checks["parity"] = dict(tolerance)
    case_checks.update(checks or {})
    case: Json = {"name": name, "subject": subject, "inputs": recipes, "dtypes": dtype_names, "checks": case_checks}
    if autocast:
        case["autocast"] = autocast
    options: Json = {"devices": device_list, "seed": seed, "report": report, "junit": junit, "html": html,
               "placement": placement, "quiet": quiet, "dtypes": dtype_names, "skip": list(_sources.skipped_folders()),
               "vdev_async": bool(vdev_async), "interleavings": interleavings, "pinned_release": pinned_release,
               "perturb": perturb, "vdev_arithmetic": vdev_arithmetic, "vdev_count": installed_count() or 2,
               "require_all": bool(require_all)}
    if isolation:
        options["isolation"] = isolation
    with _sources.scaffolding_file(caller):
        cases = [case]
        if random:
            cases, options["random_sweep"] = _random_cases(case, sweep, seed, seeds)
            options["seed"] = None  # each case carries its own
        suite = {"suite": "devparity.audit", "description": f"devparity.audit({name})", "cases": cases}
        return _run_audit(suite, options)


def _random_cases(case: Json, sweep: _Sweep, seed: Optional[int],
                  seeds: Union[int, Sequence[int], None]) -> Tuple[List[Json], Json]:
    # Note [Random gates]: the seeds to audit, each a case of its own; and what the sweep did.
    first = seed if seed is not None else 0
    if isinstance(seeds, (list, tuple)):
        kept, tried = list(seeds), list(seeds)
    else:
        probe = dict(case, checks=dict(case["checks"], gradient=False, parity=False))

        def run_seed(s: int) -> None:
            suite = {"suite": "devparity.audit", "cases": [dict(probe, name=f"{case['name']}_seed{s}", seed=s)]}
            _run_audit(suite, {"devices": "cpu", "placement": "off", "quiet": True, "dtypes": case["dtypes"],
                               "skip": list(_sources.skipped_folders())})

        sweep.collecting = True
        try:
            bound = seeds if isinstance(seeds, int) else 16
            kept, tried = _coverage.sweep(run_seed, sweep.arcs, range(first, first + bound))
        finally:
            sweep.collecting = False
    cases = [dict(case, name=f"{case['name']}_seed{s}", seed=s) for s in kept]
    return cases, {"seeds": kept, "tried": tried, "arcs": len(sweep.arcs.arcs),
                   "one_sided": sweep.arcs.one_sided()}


def load_report(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """A report file devparity wrote (`devparity run --report`, `audit(report=...)`, the plugin's
    --devparity-report, `devparity merge`), read back with every result in full, as `audit()`
    returns it: the file itself is packed (docs/report-format.md). Schema 1 reports read too."""
    try:
        text = _ops().load_report(os.fspath(path))
    except (RuntimeError, ValueError) as e:
        raise op_error(e) from None
    loaded: Json = json.loads(text)
    return loaded


def compare(output: "torch.Tensor", reference: "torch.Tensor",
            tolerance: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Parity statistics of `output` against `reference` (same shape and dtype, any device), as the
    report's parity check writes them: max_abs, max_rel, max_ulp, mismatches, histogram, spatial
    pattern, psnr_db; plus `tolerance` (resolved for the dtype) and `within` (True when it holds).
    tolerance: {"atol", "rtol", "mismatch_fraction" with "outlier_atol", "tie_epsilon"} or None for
    the dtype's default."""
    torch = torch_module()

    if not isinstance(output, torch.Tensor) or not isinstance(reference, torch.Tensor):
        raise DevparityTypeError("compare(output, reference): expected two tensors")
    if isinstance(tolerance, dict) and "reason" not in tolerance:
        tolerance = dict(tolerance, reason="given to devparity.compare")
    try:
        text = _ops().compare(reference, output, json.dumps(tolerance))
    except (RuntimeError, ValueError) as e:
        raise op_error(e) from None
    statistics: Json = json.loads(text)
    return statistics
