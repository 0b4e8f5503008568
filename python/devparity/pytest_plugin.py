"""devparity's pytest plugin: a library's own tests on simulated devices, under the tracer.

Registered through the `pytest11` entry point (and usable as `-p devparity.pytest_plugin`); it
does nothing unless one of its options is given or DEVPARITY_VDEV=1 is set:

  --devparity-devices=cpu,vdev:1,meta  parametrizes the `devparity_device` fixture, adds the
                                       simulated devices to `parametrize("device", [..., "cuda"])`
                                       lists (or any one parameter's list of device names alone)
                                       and to a conftest's TEST_DEVICES dict (docs/python.md)
  --devparity-trace                    traces every test; placement errors fail it, warnings
                                       become pytest warnings (--devparity-placement=strict: fail)
  --devparity-report=FILE              writes the session's findings in devparity's report schema
  --devparity-vdev-count=N             indices of the simulated device (default 2)
  --devparity-random-sweep=N           with --devparity-trace: a test on the simulated device that
                                       drew random numbers runs again under up to N more seeds, for
                                       placement errors in branches its own seed did not take (off
                                       by default: it costs up to N runs of each such test)
  --devparity-shard=I/N                the I-th of N parts of the tests, for CI jobs whose reports
                                       `devparity merge` joins
  --devparity-scaffolding=GLOB         more files that are the suite's own test helpers
  --devparity-vdev-sync                a test on vdev:K runs each op at its call; by default it runs
                                       on the asynchronous simulated device (docs/vdev-async.md), in
                                       an interleaving drawn from its node id, and a race fails it
  --devparity-pinned-release=eager     on it, pinned memory dropped while a copy is pending is
                                       poisoned and reported (pools that do not track copies)
  --devparity-perturb=all|LIST         vdev computes with other legal arithmetic than the CPU (TF32,
                                       another summation order, ...): a test whose values depend on
                                       the CPU's fails, with the switches that moved them
  --devparity-vdev-arithmetic=cpu      vdev runs the CPU's kernels alone; by default it computes as
                                       CUDA would where devparity has a model (TF32 matmuls while the
                                       test allows them), and a failing test names the models
  DEVPARITY_VDEV=1                     installs it and, without --devparity-devices, means cpu,vdev:1

`vdev` without an index names the current device, as users write `cuda`. A test on vdev:K runs
with another index current (Note [Current device]), so code that relies on the current device
instead of its data's fails as it would on a multi-GPU machine.

The simulated device is installed before the first conftest is imported (so that a device dict
built at import sees it) and before any backward (autograd fixes its device threads then).
"""

import contextlib
import functools
import json
import os
import time
import warnings
import zlib

import pytest



class _Session:
    """One pytest run's devparity state, kept on its config's stash (pytest.StashKey)."""

    def __init__(self, devices=(), started=None):
        self.enabled = started is not None
        self.devices = list(devices)   # (name, torch.device) of --devparity-devices
        self.results = []              # the traced tests, for --devparity-report
        self.started = started
        self.warned_sites = set()      # (kind, op, line) of warnings given (--devparity-warnings=once)
        self.relayed = 0               # results[:relayed] went to a pytest-xdist controller
        self.controller = None         # a pytest-xdist controller's _xdist.Controller
        self.device_argnames = ["devparity_device", "device", "device_name"]  # Note [Device parameters]


_STATE = pytest.StashKey()
# How many tests the whole suite had before --devparity-shard kept this part's.
_UNSHARDED = pytest.StashKey()
_IDLE = _Session()
# The session of the run being configured or run, for what pytest calls without its config (a
# conftest's TEST_DEVICES, the public helpers a conftest imports); pytest_unconfigure clears it.
_current = {"session": _IDLE}


def _state(config=None):
    if config is None:
        return _current["session"]
    return config.stash.get(_STATE, _IDLE)
_RERUN_PATIENCE = 2  # reruns in a row that take the code nowhere new end the sweep


class DevparityPlacementWarning(UserWarning):
    """A placement warning found while tracing a test (--devparity-trace)."""


def _warn(message, path, line):
    """Warns of a placement finding the way the test's own filters say, unless they say it of
    every warning alone: Note [Placement warnings under a suite's filters]."""
    named = any(category is not None and issubclass(category, DevparityPlacementWarning)
                for _, _, category, _, _ in warnings.filters)
    with warnings.catch_warnings():
        if not named:
            warnings.simplefilter("always", DevparityPlacementWarning)
        warnings.warn_explicit(message, DevparityPlacementWarning, path, line)


# Note [Placement warnings under a suite's filters]
# A suite that turns every warning into an error (torchvision's pytest.ini: `filterwarnings =
# error`) means its own code's warnings; a placement warning it never asked for would fail the
# test on vdev:1 alone, where a GPU run passes. So the plugin's warnings are shown, not raised,
# unless a filter names DevparityPlacementWarning (`-W error::...DevparityPlacementWarning`):
# a suite that asks for them as errors gets them so. (Inside pytest's record of the test's
# warnings they still reach its summary.)


def pytest_addoption(parser):
    group = parser.getgroup("devparity", "devparity: tests on simulated devices, under the placement tracer")
    group.addoption("--devparity-devices", default=None, metavar="LIST",
                    help="devices to run device-parametrized tests on, e.g. cpu,vdev:1,meta "
                         "(the devparity_device fixture; parametrize('device') lists with 'cuda'; TEST_DEVICES)")
    group.addoption("--devparity-vdev-count", type=int, default=None, metavar="N",
                    help="indices of the simulated device vdev (1..16, default 2)")
    group.addoption("--devparity-trace", action="store_true", default=False,
                    help="trace every test; placement errors fail it, warnings become pytest warnings")
    group.addoption("--devparity-placement", default="warn", choices=("warn", "strict"),
                    help="with --devparity-trace: strict fails on warnings too")
    group.addoption("--devparity-report", default=None, metavar="FILE",
                    help="write the session's placement findings in devparity's report schema")
    group.addoption("--devparity-random-sweep", type=int, default=0, metavar="N",
                    help="with --devparity-trace: rerun a test on the simulated device that drew random numbers "
                         "under up to N more seeds for placement errors its own seed did not reach (default 0: off; "
                         "each rerun costs a run of the test, 8 cost a whole suite ~7x)")
    group.addoption("--devparity-scaffolding", action="append", default=[], metavar="GLOB",
                    help="files (fnmatch globs) that are the suite's own test helpers, not the code under test")
    group.addoption("--devparity-vdev-sync", action="store_true", default=False,
                    help="tests on vdev:K run each op at its call instead of on the asynchronous simulated device "
                         "with its race detector (the default)")
    group.addoption("--devparity-pinned-release", default="pooled", choices=("pooled", "eager"),
                    help="on the asynchronous simulated device: pinned memory is released after its pending copies "
                         "(pooled, PyTorch's pool) or at once, poisoned and reported (eager)")
    group.addoption("--devparity-perturb", default=None, metavar="LIST",
                    help="tests on vdev:K run with other legal arithmetic than the CPU's: all, or a comma list of "
                         "switches (devparity list names them; docs/perturbed-numerics.md)")
    group.addoption("--devparity-vdev-arithmetic", default="cuda", choices=("cuda", "cpu"),
                    help="tests on vdev:K compute as CUDA would where devparity models CUDA's arithmetic (cuda, the "
                         "default: TF32 matmuls while the test allows them, register_cuda_model's models) or with the "
                         "CPU's kernels alone (cpu; docs/cuda-arithmetic.md)")
    group.addoption("--devparity-shard", default=None, metavar="I/N",
                    help="run the I-th of N parts of the tests (0 <= I < N, by a hash of each node id, the same on every "
                         "machine); `devparity merge` joins the N reports and refuses a missing one (docs/python.md)")
    group.addoption("--devparity-warnings", default="once", choices=("once", "each"),
                    help="with --devparity-trace: a placement warning is about a line of code, given once per session "
                         "on the first test that runs it (once, the default), or on every test (each); the report "
                         "lists it on every test either way")


def _shard(text):
    # "I/N" as `devparity run --shard` takes it, or a UsageError naming the option.
    index, slash, count = (text or "").partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        i, n = -1, 0
    if not slash or n < 1 or not 0 <= i < n:
        raise pytest.UsageError(f"devparity: --devparity-shard={text}: expected I/N with 0 <= I < N, e.g. 0/4")
    return i, n


def _device_names(text):
    return [d.strip() for d in (text or "").split(",") if d.strip()]


def _enabled(args):
    return bool(args.devparity_devices or args.devparity_trace or args.devparity_report or
                args.devparity_vdev_count or os.environ.get("DEVPARITY_VDEV") == "1")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    options = early_config.known_args_namespace
    if options.devparity_shard is not None:
        _shard(options.devparity_shard)
    if not _enabled(options):
        return
    import devparity

    names = _device_names(options.devparity_devices)
    if not names and os.environ.get("DEVPARITY_VDEV") == "1":
        names = ["cpu", "vdev:1"]
    wants_vdev = any(n.startswith("vdev") for n in names) or os.environ.get("DEVPARITY_VDEV") == "1"
    count = options.devparity_vdev_count or int(os.environ.get("DEVPARITY_VDEV_COUNT", "2"))
    try:
        if wants_vdev or options.devparity_vdev_count:
            devparity.install(count)
            # Note [CUDA's arithmetic on vdev]: on by default, as the GPU computes.
            from devparity._devices import ops

            ops().set_cuda_arithmetic(options.devparity_vdev_arithmetic == "cuda")
        devices = [(name, devparity.device(name)) for name in names]
    except devparity.DevparityError as e:
        raise pytest.UsageError(f"devparity: {e}") from None
    state = _Session(devices, time.time())
    early_config.stash[_STATE] = state
    _current["session"] = state
    from devparity import _sources

    _sources.set_scaffolding_globs(options.devparity_scaffolding or [])


def pytest_report_header(config):
    state = _state(config)
    if not state.enabled:
        return None
    from devparity import installed_count

    trace = (f"trace on (placement {config.getoption('devparity_placement')}, warnings "
             f"{config.getoption('devparity_warnings')})" if config.getoption("devparity_trace") else "trace off")
    names = ", ".join(name for name, _ in state.devices) or "none"
    return f"devparity: devices {names}; simulated vdev indices {installed_count()}; {trace}"


def pytest_configure(config):
    config.addinivalue_line("markers", "devparity_vdev: a test parametrized onto the simulated device by devparity")


def simulated_devices():
    """The (name, torch.device) pairs of --devparity-devices that devparity makes: the simulated
    device and the cpu-only row, for a conftest's own dict."""
    from devparity._devices import CPU_ONLY

    return [(name, dev) for name, dev in _state().devices if name.startswith("vdev") or name == CPU_ONLY]


def devices_under_test():
    """Every (name, torch.device) pair of --devparity-devices, in order."""
    return list(_state().devices)


# The earlier name, kept for conftests that import it; marked so that pytest does not collect it
# as a test once it is imported into a test module.
test_devices = devices_under_test
test_devices.__test__ = False


def pytest_plugin_registered(plugin, manager):
    # Kornia's idiom: a conftest-level TEST_DEVICES dict of name -> torch.device that its
    # `device` fixture looks names up in (`--device cpu,vdev`).
    table = getattr(plugin, "TEST_DEVICES", None)
    if not _state().enabled or not isinstance(table, dict):
        return
    for name, dev in simulated_devices():
        table.setdefault(name, dev)


@pytest.fixture
def devparity_device(request):
    """The device a test runs on: each of --devparity-devices in turn (the CPU without it)."""
    import torch

    return getattr(request, "param", torch.device("cpu"))


def _device_name(v):
    # A parametrize value's device name (a pytest.param's too); None for anything else (a dict's
    # `values` is a method).
    values = getattr(v, "values", None)
    inner = values[0] if isinstance(values, (tuple, list)) and len(values) == 1 else v
    return inner if isinstance(inner, str) else None


_DEVICE_TYPES = ("cpu", "cuda", "mps", "xpu", "meta")


def _names_devices(values):
    # Note [Device parameters]: a list of device names alone, "cuda" among them.
    names = [(_device_name(v) or "").split(":")[0] for v in values]
    return "cuda" in names and all(n in _DEVICE_TYPES for n in names)


def _with_simulated(values):
    # A parametrize list naming "cuda" gets the simulated devices after it.
    if not any((_device_name(v) or "").split(":")[0] == "cuda" for v in values):
        return None
    present = [_device_name(v) for v in values]
    extra = [pytest.param(str(dev), marks=pytest.mark.devparity_vdev, id=name) for name, dev in simulated_devices()
             if dev.type == "cpu" or str(dev) not in present]
    return list(values) + extra if extra else None


def _replace_mark(args, kwargs):
    # Built the public way (MarkDecorator.mark), so pytest's private constructor is not used.
    return pytest.mark.parametrize(*args, **kwargs).mark


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    state = _state(metafunc.config)
    if not state.enabled:
        return
    if "devparity_device" in metafunc.fixturenames and state.devices:
        metafunc.parametrize("devparity_device", [d for _, d in state.devices],
                             ids=[n for n, _ in state.devices], indirect=True)
    if not simulated_devices():
        return
    # torchvision's idiom: @pytest.mark.parametrize("device", cpu_and_cuda()); its test_models names
    # the parameter "dev" (Note [Device parameters]).
    markers = metafunc.definition.own_markers
    for i, mark in enumerate(markers):
        if mark.name != "parametrize" or len(mark.args) < 2:
            continue
        argnames = mark.args[0]
        argname = (argnames if isinstance(argnames, str) else ",".join(argnames)).replace(" ", "")
        if argname != "device" and ("," in argname or not _names_devices(list(mark.args[1]))):
            continue
        if argname not in state.device_argnames:
            state.device_argnames.append(argname)
        values = _with_simulated(list(mark.args[1]))
        if values is None:
            continue
        kwargs = dict(mark.kwargs)
        if isinstance(kwargs.get("ids"), (list, tuple)):
            kwargs["ids"] = list(kwargs["ids"]) + [None] * (len(values) - len(kwargs["ids"]))
        markers[i] = _replace_mark((argnames, values) + tuple(mark.args[2:]), kwargs)


def _keep_shard(config, items):
    # A node id's hash picks its shard: a test added or removed moves no other test to another shard.
    index, count = _shard(config.getoption("devparity_shard"))
    config.stash[_UNSHARDED] = config.stash.get(_UNSHARDED, 0) + len(items)
    kept, dropped = [], []
    for item in items:
        (kept if zlib.crc32(item.nodeid.encode("utf-8")) % count == index else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_collection_modifyitems(config, items):
    if config.getoption("devparity_shard", None) is not None:
        _keep_shard(config, items)
    if _state(config).enabled:
        from devparity import _sources

        # Note [Scaffolding]: files beside the test modules are the suite's own helpers.
        _sources.add_scaffolding_dirs({os.path.dirname(str(item.fspath)) for item in items})
    if not simulated_devices():
        return
    skip = pytest.mark.skip(reason="devparity: torch.compile and dynamo do not run on the simulated device")
    for item in items:
        on_vdev = "[vdev" in item.nodeid or "-vdev" in item.nodeid
        if on_vdev and any(word in item.nodeid.lower() for word in ("compile", "dynamo")):
            item.add_marker(skip)


def _as_device(value):
    import torch

    if isinstance(value, torch.device):
        return value
    if isinstance(value, str):
        import devparity

        try:
            return devparity.device(value)
        except devparity.DevparityError:
            return None
    return None


# Note [Device parameters]
# A test takes its device as a parameter. Its name is "device" in most suites, but not all
# (torchvision's test_models: `parametrize("dev", cpu_and_gpu())`): a parameter of one name whose
# values are device names alone, "cuda" among them, is a device parameter too, and gets the
# simulated devices as "device" does. (A list of other strings that happens to hold "cuda", a
# backend's name beside "triton", is not.)


def _test_target(item):
    # The device the test runs on, when it says: a device argument, or a parameter naming one.
    # Asked by every hook of every test: kept on the item until its fixtures fill in (a device
    # fixture names it only then).
    funcargs = getattr(item, "funcargs", None) or {}
    kept = item.__dict__.get("_devparity_target")
    if kept is None or kept[0] != len(funcargs):
        kept = item.__dict__["_devparity_target"] = (len(funcargs), _named_device(item, funcargs))
    return kept[1]


def _named_device(item, funcargs):
    params = getattr(getattr(item, "callspec", None), "params", {})
    for key in _state(item.config).device_argnames:
        for source in (funcargs, params):
            if key in source:
                found = _as_device(source[key])
                if found is not None:
                    return found
    return None


def _simulated(device):
    return device is not None and device.type in ("vdev", "privateuseone")


def _simulated_index(device):
    return _simulated(device) and device.index is not None


def _on_cpu_only_row(item):
    from devparity._devices import CPU_ONLY

    callspec = getattr(item, "callspec", None)
    # (`in params.values()` would compare each tensor parameter with a string.)
    return callspec is not None and (CPU_ONLY in callspec.id or
                                     any(type(v) is str and v == CPU_ONLY for v in callspec.params.values()))


@contextlib.contextmanager
def _row(item):
    # The conditions of the test's row: on vdev:K another index is current (Note [Current
    # device]); on cpu-only there is no accelerator runtime (Note [No accelerator]).
    if not _state(item.config).enabled:
        yield
        return
    import devparity

    target = _test_target(item)
    simulated, cpu_only = _simulated_index(target), _on_cpu_only_row(item)
    if not (simulated or cpu_only):  # (most rows: nothing to set)
        yield
        return
    with contextlib.ExitStack() as stack:
        if simulated:
            ops = devparity._devices.ops()
            stack.callback(ops.set_device, ops.make_other_current(target.index))
        if cpu_only:
            from devparity._no_accelerator import without_accelerator

            stack.enter_context(without_accelerator())
        yield


def _absent(device):
    # Why the test's device is not in this process (None when it is), from its device guard alone, so
    # that asking starts nothing: a "cuda" row on a machine without CUDA skips as it would without
    # devparity, untouched by the trace.
    if device is None:
        return None
    from devparity._devices import installed_count

    return _absent_from(str(device), installed_count())


@functools.lru_cache(maxsize=64)
def _absent_from(name, simulated_count):
    # (A process's devices change only as install() adds simulated indices.)
    from devparity._devices import ops

    return ops().device_absent(name) or None


def _held_back(item):
    # Note [One accelerator per process]: with the simulated device installed here, torch 2.x takes it
    # for the process's accelerator and gives CUDA's backward its streams, so a row on another real
    # accelerator would fail here where it passes in a process of its own.
    target = _test_target(item)
    if target is None or target.type in ("cpu", "meta", "vdev", "privateuseone") or _absent(target):
        return None
    from devparity import installed_count

    if not installed_count():
        return None
    return (f"devparity: the {target} row does not run in this process: the simulated device is installed here "
            f"(--devparity-devices), and torch 2.x takes it for the process's accelerator, whose streams it then gives "
            f"{target.type}'s backward; run the {target} rows in a pytest process without devparity's devices")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    if _state(item.config).enabled:
        held = _held_back(item)
        if held:
            if item.config.getoption("devparity_trace"):
                _record_untraced(item, _test_target(item), held)
            pytest.skip(held)
    with _row(item):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    with _row(item):
        yield


def _draws_state():
    import torch

    return torch.default_generator.get_state()


def _interleaving_seed(item):
    # Stable across runs and machines, so a race replays with the test alone.
    return zlib.crc32(item.nodeid.encode("utf-8"))


@contextlib.contextmanager
def _asynchronous(item):
    # Note [Asynchronous by default]: a test on vdev:K runs on the asynchronous simulated device,
    # as a test on cuda:K runs on a GPU's streams: stream and event ordering bugs fail it with
    # the race, in an interleaving drawn from its node id (the same in every run, so a failure
    # replays with the test alone). A vdev_async() block inside the test pauses this session
    # and resumes it after; --devparity-vdev-sync runs each op at its call instead.
    target = _test_target(item)
    if not (_state(item.config).enabled and _simulated(target)) or item.config.getoption("devparity_vdev_sync"):
        yield None
        return
    from devparity._streams import AsyncRun

    release = item.config.getoption("devparity_pinned_release")
    with AsyncRun(_interleaving_seed(item), ambient=True, pinned_release=release) as run:
        yield run


def _report_races(item, run):
    # The traced test's row of --devparity-report gets the races as error findings.
    rows = [r for r in _state(item.config).results if r["id"] == item.nodeid]
    if not rows:
        return
    row = rows[-1]
    for race in run.races:
        op = race.later.get("op", "")
        row["findings"].append({"kind": "unsynchronized_access", "severity": "error",
                                "op": op if op.startswith("aten::") else "",
                                "message": f"{race.message} (interleaving seed {run.seed})", "device": row["target"],
                                "source": race.later.get("site", ""), "scopes": [], "count": 1})
    if row["status"] == "pass":
        row["status"] = "fail"


def _fail_on_races(item, run, failed):
    # A test that failed already (its values, often, where the race bit) keeps its own error.
    lines = "\n".join(f"  {race.message}" for race in run.races)
    item.add_report_section("call", f"devparity races (interleaving seed {run.seed})", lines)
    if failed:
        return
    pytest.fail(f"devparity: {len(run.races)} unsynchronized access(es) on the asynchronous simulated device "
                f"(interleaving seed {run.seed}; --devparity-vdev-sync runs ops at their call):\n{lines}",
                pytrace=False)


@contextlib.contextmanager
def _perturbed(item):
    # Note [Perturbed numerics]: the test's own assertions judge; what moved is told on failure.
    names = item.config.getoption("devparity_perturb")
    target = _test_target(item)
    if not (names and _state(item.config).enabled and _simulated(target)):
        yield None
        return
    from devparity._devices import ops

    moved = {}
    try:
        ops().perturb_begin(names)
    except RuntimeError as e:
        raise pytest.UsageError(f"devparity: {e}") from None
    try:
        yield moved
    finally:
        moved.update(json.loads(ops().perturb_end()))


@contextlib.contextmanager
def _cuda_arithmetic(item):
    # Note [CUDA's arithmetic on vdev]: what CUDA's models moved in this test, told on failure.
    if not (_state(item.config).enabled and _simulated(_test_target(item))
            and item.config.getoption("devparity_vdev_arithmetic") == "cuda"):
        yield None
        return
    from devparity._devices import ops

    ops().cuda_arithmetic_take()  # what ran before this test is not its own
    moved = {}
    try:
        yield moved
    finally:
        moved.update(json.loads(ops().cuda_arithmetic_take()))


def _tell_cuda_arithmetic(item, moved, failed):
    if failed and moved and moved["moved"]:
        item.add_report_section("call", "devparity CUDA arithmetic",
                                f"  vdev computed as CUDA would, and moved values: {moved['words']}")


def _tell_perturbation(item, moved, failed):
    if failed and moved:
        words = ", ".join(f"{name} in {calls} op call(s)" for name, calls in sorted(moved.items()))
        item.add_report_section("call", "devparity perturbed numerics", f"  values moved by: {words}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    with _cuda_arithmetic(item) as cuda_moved, _perturbed(item) as moved, _asynchronous(item) as run:
        if _state(item.config).enabled and item.config.getoption("devparity_trace"):
            outcome = yield from _traced_call(item)
        else:
            with _row(item):
                outcome = yield
    if moved is not None:
        _tell_perturbation(item, moved, failed=outcome.excinfo is not None)
    if cuda_moved is not None:
        _tell_cuda_arithmetic(item, cuda_moved, failed=outcome.excinfo is not None)
    if run is not None and run.races:
        _report_races(item, run)
        _fail_on_races(item, run, failed=outcome.excinfo is not None)


def _untraced_call(item, target, absent):
    # The test's device is not in this process: the test runs as it would without devparity (it skips
    # itself, or fails as it would), and its row of --devparity-report is a skip with the reason.
    started = time.perf_counter()
    with _row(item):
        outcome = yield
    reason = _skip_reason(outcome.excinfo) or f"not traced: {absent}"
    _record_untraced(item, target, reason, (time.perf_counter() - started) * 1000.0)
    return outcome


def _traced_call(item):
    import torch

    import devparity
    from devparity._received import Received

    strict = item.config.getoption("devparity_placement") == "strict"
    target = _test_target(item)
    absent = _absent(target)
    if absent:
        return (yield from _untraced_call(item, target, absent))
    tracer = devparity.trace(target, strict=strict)
    started = time.perf_counter()
    with _row(item):
        sweep = item.config.getoption("devparity_random_sweep")
        drawn = _draws_state() if sweep > 0 and _simulated_index(target) else None
        tracer.__enter__()
        if target is not None:  # the test names its device: its fixtures' tensors are its inputs
            tracer.inputs(*(getattr(item, "funcargs", None) or {}).values())
        received = Received()
        # A test function is watched around its call alone (pytest_pyfunc_call); other items
        # (unittest's TestCase methods run without that hook) around the whole call.
        alone = type(item).runtest is pytest.Function.runtest
        if alone:
            item.__dict__[_RECEIVED] = received
        try:
            with (contextlib.nullcontext() if alone else received), _seeding_noted(drawn is not None) as seeded:
                outcome = yield
        finally:
            item.__dict__.pop(_RECEIVED, None)  # (the random sweep's reruns are not watched)
        exc = outcome.excinfo
        skipped_because = _skip_reason(exc)
        try:  # the trace ends whatever a rerun raises: the next test opens its own
            # (A test that seeds itself may end in the state the last one left: it drew all the same.)
            if drawn is not None and skipped_because is None and (seeded or not torch.equal(drawn, _draws_state())):
                _random_sweep(item, tracer, sweep)
        finally:
            tracer.__exit__(*(exc if exc else (None, None, None)))
    test_file = os.path.abspath(str(item.fspath))
    tracer.findings = [f for f in tracer.findings if not (_scaffolding(test_file, f) or received.caller_chose(f))]
    _record(item, tracer, (time.perf_counter() - started) * 1000.0, skipped_because)
    failing = tracer.errors
    once = item.config.getoption("devparity_warnings") == "once"
    for finding in new_warnings(tracer.findings, _state(item.config).warned_sites if once else set()):
        _warn(str(finding), finding.file or item.location[0], finding.line or 0)
    if failing and exc is None:
        lines = "\n".join(f"  {f}" for f in failing)
        pytest.fail(f"devparity: {len(failing)} placement problem(s) on {tracer.target_name}:\n{lines}",
                    pytrace=False)
    return outcome


_RECEIVED = "_devparity_received"


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    # Note [Received values]: the watch slows every Python call it sees (3.11 runs all code on its
    # slow path while a profile function is set), so it covers the test function alone, not pytest's
    # hooks around it.
    received = pyfuncitem.__dict__.get(_RECEIVED)
    if received is None:
        yield
        return
    with received:
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # What a GPU runs and the simulated device cannot by torch's design (DLPack, 1.13's autocast) is
    # the simulator's gap: a skip naming the reason, never the suite's failure (Note [Python layer]).
    outcome = yield
    state = _state(item.config)
    if state.enabled and len(state.results) > state.relayed and hasattr(item.config, "workerinput"):
        from devparity._xdist import ROWS

        outcome.get_result().user_properties.append((ROWS, json.dumps(state.results[state.relayed:])))
        state.relayed = len(state.results)
    if not (state.enabled and call.excinfo is not None):
        return
    refused = _refused_by_torch(call.excinfo.value)
    if refused is None and _simulated(_test_target(item)):
        refused = _cuda_branch_refusal(call.excinfo.value)
    if refused is not None:
        report = outcome.get_result()
        report.outcome = "skipped"
        report.longrepr = (str(item.fspath), item.location[1] or 0, f"devparity: {refused}")


@contextlib.contextmanager
def _seeding_noted(needed):
    # Yields a list that is non-empty once the code called torch.manual_seed (when `needed`: only the
    # random sweep asks, and patching costs every test).
    calls = []
    if not needed:
        yield calls
        return
    import torch

    from devparity._patching import patched

    original = torch.manual_seed

    def noted(seed):
        calls.append(seed)
        return original(seed)

    with patched([(torch, "manual_seed", noted), (torch.random, "manual_seed", noted)]):
        yield calls


@contextlib.contextmanager
def _seeds_shifted(rerun):
    # A test that seeds itself (`torch.manual_seed(0)`) would take the same branch every rerun:
    # in rerun k its seeds are shifted by k.
    import torch

    from devparity._patching import patched

    original = torch.manual_seed
    shifted = lambda seed: original((int(seed) + 7919 * rerun) % (2 ** 63))  # noqa: E731
    with patched([(torch, "manual_seed", shifted), (torch.random, "manual_seed", shifted)]):
        yield


def _random_sweep(item, tracer, bound):
    # Note [Random gates]: the test drew random numbers on the simulated device; other seeds may
    # take its code through branches its own seed did not. Only placement counts in these runs:
    # their values differ from the test's expectations by design.
    import torch

    from devparity._coverage import Arcs, sweep
    from devparity._trace import _is_device_mismatch

    arcs = Arcs()
    state = _draws_state()

    def run_seed(seed):
        torch.manual_seed(seed)
        try:
            with arcs, _seeds_shifted(seed):
                item.runtest()
        except (Exception, pytest.skip.Exception, pytest.fail.Exception) as e:  # noqa: BLE001
            # A rerun's other failures (and skips) are its seed's values.
            if _is_device_mismatch(e):
                tracer.mismatch_under_seed(e, seed)

    try:
        _, tried = sweep(run_seed, arcs, range(1, bound + 1), patience=_RERUN_PATIENCE)
    finally:
        torch.default_generator.set_state(state)
    item.user_properties.append(("devparity_random_sweep", tried))


def new_warnings(findings, seen):
    """The warnings among `findings` whose site (kind, op, line) is not in `seen`, which learns them: a
    warning is about a line of code, not a test, so a session gives it once (--devparity-warnings)."""
    fresh = []
    for finding in findings:
        site = (finding.kind, finding.op, finding.source)
        if finding.severity == "warning" and site not in seen:
            seen.add(site)
            fresh.append(finding)
    return fresh


def _scaffolding(test_file, finding):
    # A test moves its inputs and reads its results back (assert_close syncs): warnings whose
    # line is in the test's own file or its helpers are the test's doing (Note [Scaffolding]), and
    # so is data it makes on another index by name (a second decoder on the other device).
    from devparity import _sources

    if (finding.severity != "warning" and finding.kind != "foreign_device_target") or not finding.file:
        return False
    return _absolute(finding.file) == test_file or _sources.is_scaffolding(finding.file)


@functools.lru_cache(maxsize=4096)
def _absolute(path):
    return os.path.abspath(path)


def _record(item, tracer, duration_ms, skipped_because=None):
    # A test that skipped itself ("no cuda") is a skip in the report, not a pass.
    findings = [f.to_json() for f in tracer.findings]
    item.user_properties.append(("devparity_findings", json.dumps(findings)))
    if findings:
        text = "\n".join(str(f) for f in tracer.findings)
        item.add_report_section("call", "devparity", text)
    status = "skip" if skipped_because is not None else "fail" if tracer.errors else "pass"
    seeds = dict(item.user_properties).get("devparity_random_sweep")
    _append_row(item, tracer.target_name, status, tracer.ops, findings, duration_ms, seeds, skipped_because)


def _record_untraced(item, target, reason, duration_ms=0.0):
    # A row the trace did not run: a skip with its reason.
    _append_row(item, str(target), "skip", 0, [], duration_ms, None, reason)


def _append_row(item, target, status, ops, findings, duration_ms, seeds, skipped_because):
    _state(item.config).results.append({"id": item.nodeid, "target": target, "status": status, "ops": ops,
                                        "findings": findings, "duration_ms": duration_ms,
                                        "mode": item.config.getoption("devparity_placement"), "random_sweep": seeds,
                                        "skipped_because": skipped_because})


def _cuda_branch_refusal(error):
    # Note [Branches on the device type's name]: the reason, when the simulated row failed on the side
    # of a library's `if x.device.type == "cuda"` that a GPU does not run.
    from devparity._cuda_branches import branch_a_gpu_skips

    branch = branch_a_gpu_skips(error)
    if branch is None:
        return None
    lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [""]
    # (A TorchScript interpreter's error ends with the error the scripted code raised, named.)
    said = lines[-1] if "Traceback of TorchScript" in str(error) else f"{type(error).__name__}: {lines[0]}"
    said = said[len("builtins."):] if said.startswith("builtins.") else said  # (torch 1.13's TorchScript)
    return (f"the library picks its CUDA path by the device type's name at {branch}; the simulated device "
            f"takes the other branch, which a GPU does not run, and fails there ({said[:200]})")


def _refused_by_torch(error):
    # The reason, when `error` (or one it was raised from: opcheck wraps its checks' errors) is what
    # the simulated device cannot do by torch's design: devparity's UnsupportedOnSimulatedDevice, or
    # torch's own NotImplementedError naming the device (opcheck's "NYI devices other than CPU/CUDA,
    # got {'vdev'}"). None for anything else.
    from devparity._python_layer import UnsupportedOnSimulatedDevice

    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, UnsupportedOnSimulatedDevice):
            return str(error)
        if type(error) is NotImplementedError and any(name in str(error) for name in ("'vdev'", "privateuseone")):
            return f"torch refuses the simulated device here ({str(error).splitlines()[0]}); on a GPU this runs"
        error = error.__cause__ or error.__context__
    return None


def _skip_reason(exc):
    # The reason a test skipped, or None when it did not: its own pytest.skip(), or what the simulated
    # device cannot do by torch's design, which pytest_runtest_makereport reports as a skip (issue 56:
    # the session report said pass).
    if exc is None:
        return None
    refused = _refused_by_torch(exc[1])
    if refused is not None:
        return f"devparity: {refused}"
    if not issubclass(exc[0], pytest.skip.Exception):
        return None
    return str(exc[1].msg if hasattr(exc[1], "msg") else exc[1])


def _controller(config):
    # A pytest-xdist controller that merges its workers' parts of --devparity-report.
    state = _state(config)
    if state.enabled and config.getoption("devparity_report", None) and state.controller is None:
        from devparity._xdist import Controller

        state.controller = Controller(config.getoption("devparity_report"))
    return state.controller


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    controller = _controller(node.config)
    if controller is not None:
        controller.node_configured(node)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    controller = _current["session"].controller
    if controller is not None:
        controller.node_down(node, error)


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem, report, sched):
    controller = _current["session"].controller
    if controller is not None:
        controller.crash(crashitem, getattr(report, "node", None))


def pytest_runtest_logreport(report):
    controller = _current["session"].controller
    if controller is not None:
        controller.relay(report)


def pytest_sessionfinish(session, exitstatus):
    # A part of a sharded suite may hold no test (fewer tests than parts): it has not failed,
    # and its (empty) report is written below, so that `devparity merge` finds every part.
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and session.config.stash.get(_UNSHARDED, 0) > 0:
        session.exitstatus = pytest.ExitCode.OK
    path = session.config.getoption("devparity_report", None)
    state = _state(session.config)
    if not path or not state.enabled:
        return
    from devparity._session_report import write_session_report
    from devparity._xdist import is_controller, worker_part

    shard = session.config.getoption("devparity_shard", None)
    if state.controller is not None:
        state.controller.finish(path, state.started, session.config, shard)
    elif not is_controller(session.config):  # (a controller whose workers never started has no parts)
        write_session_report(worker_part(session.config) or path, state.results, state.started, session.config,
                             shard)


def pytest_unconfigure(config):
    if _current["session"] is config.stash.get(_STATE, None):
        _current["session"] = _IDLE
