"""devparity's pytest plugin: a library's own tests on simulated devices, under the tracer.

Registered through the `pytest11` entry point (and usable as `-p devparity.pytest_plugin`); it
does nothing unless one of its options is given or DEVPARITY_VDEV=1 is set:

  --devparity-devices=cpu,vdev:1,meta  parametrizes the `devparity_device` fixture, adds the
                                       simulated devices to `parametrize("device", [..., "cuda"])`
                                       lists and to a conftest's TEST_DEVICES dict (docs/python.md)
  --devparity-trace                    traces every test; placement errors fail it, warnings
                                       become pytest warnings (--devparity-placement=strict: fail)
  --devparity-report=FILE              writes the session's findings in devparity's report schema
  --devparity-vdev-count=N             indices of the simulated device (default 2)
  DEVPARITY_VDEV=1                     installs it and, without --devparity-devices, means cpu,vdev:1

The simulated device is installed before the first conftest is imported (so that a device dict
built at import sees it) and before any backward (autograd fixes its device threads then).
"""

import json
import os
import time
import warnings

import pytest

_session = {"enabled": False, "devices": [], "results": [], "started": None}


class DevparityPlacementWarning(UserWarning):
    """A placement warning found while tracing a test (--devparity-trace)."""


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


def _device_names(text):
    return [d.strip() for d in (text or "").split(",") if d.strip()]


def _enabled(args):
    return bool(args.devparity_devices or args.devparity_trace or args.devparity_report or
                args.devparity_vdev_count or os.environ.get("DEVPARITY_VDEV") == "1")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    options = early_config.known_args_namespace
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
        devices = [(name, devparity.device(name)) for name in names]
    except devparity.DevparityError as e:
        raise pytest.UsageError(f"devparity: {e}") from None
    _session.update(enabled=True, devices=devices, started=time.time())


def pytest_configure(config):
    config.addinivalue_line("markers", "devparity_vdev: a test parametrized onto the simulated device by devparity")


def simulated_devices():
    """The (name, torch.device) pairs of --devparity-devices that are simulated: for a conftest's own dict."""
    return [(name, dev) for name, dev in _session["devices"] if name.startswith("vdev")]


def test_devices():
    """Every (name, torch.device) pair of --devparity-devices, in order."""
    return list(_session["devices"])


def pytest_plugin_registered(plugin, manager):
    # Kornia's idiom: a conftest-level TEST_DEVICES dict of name -> torch.device that its
    # `device` fixture looks names up in (`--device cpu,vdev`).
    table = getattr(plugin, "TEST_DEVICES", None)
    if not _session["enabled"] or not isinstance(table, dict):
        return
    for name, dev in simulated_devices():
        table.setdefault(name, dev)


@pytest.fixture
def devparity_device(request):
    """The device a test runs on: each of --devparity-devices in turn (the CPU without it)."""
    import torch

    return getattr(request, "param", torch.device("cpu"))


def _with_simulated(values):
    # A parametrize list naming "cuda" gets the simulated devices after it.
    def names(v):
        inner = v.values[0] if hasattr(v, "values") and len(v.values) == 1 else v
        return inner if isinstance(inner, str) else None

    if not any((names(v) or "").split(":")[0] == "cuda" for v in values):
        return None
    extra = [pytest.param(str(dev), marks=pytest.mark.devparity_vdev, id=name) for name, dev in simulated_devices()
             if str(dev) not in [names(v) for v in values]]
    return list(values) + extra if extra else None


def _replace_mark(args, kwargs):
    # Built the public way (MarkDecorator.mark), so pytest's private constructor is not used.
    return pytest.mark.parametrize(*args, **kwargs).mark


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    if not _session["enabled"]:
        return
    if "devparity_device" in metafunc.fixturenames and _session["devices"]:
        metafunc.parametrize("devparity_device", [d for _, d in _session["devices"]],
                             ids=[n for n, _ in _session["devices"]], indirect=True)
    if not simulated_devices():
        return
    # torchvision's idiom: @pytest.mark.parametrize("device", cpu_and_cuda()).
    markers = metafunc.definition.own_markers
    for i, mark in enumerate(markers):
        if mark.name != "parametrize" or len(mark.args) < 2:
            continue
        argnames = mark.args[0]
        if (argnames if isinstance(argnames, str) else ",".join(argnames)).replace(" ", "") != "device":
            continue
        values = _with_simulated(list(mark.args[1]))
        if values is None:
            continue
        kwargs = dict(mark.kwargs)
        if isinstance(kwargs.get("ids"), (list, tuple)):
            kwargs["ids"] = list(kwargs["ids"]) + [None] * (len(values) - len(kwargs["ids"]))
        markers[i] = _replace_mark((argnames, values) + tuple(mark.args[2:]), kwargs)


def pytest_collection_modifyitems(config, items):
    if not simulated_devices():
        return
    skip = pytest.mark.skip(reason="devparity: torch.compile and dynamo do not run on the simulated device")
    for item in items:
        on_vdev = "[vdev" in item.nodeid or "-vdev" in item.nodeid
        if on_vdev and any(word in item.nodeid.lower() for word in ("compile", "dynamo")):
            item.add_marker(skip)


def _test_target(item):
    # The device the test is parametrized on, when it says; else the tracer infers it.
    import torch

    params = getattr(getattr(item, "callspec", None), "params", {})
    for key in ("devparity_device", "device"):
        value = params.get(key)
        if isinstance(value, torch.device):
            return value
        if isinstance(value, str):
            try:
                return torch.device(value)
            except RuntimeError:
                return None
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if not (_session["enabled"] and item.config.getoption("devparity_trace")):
        yield
        return
    import devparity

    strict = item.config.getoption("devparity_placement") == "strict"
    target = _test_target(item)
    tracer = devparity.trace(target, strict=strict)
    started = time.perf_counter()
    tracer.__enter__()
    outcome = yield
    exc = outcome.excinfo
    tracer.__exit__(*(exc if exc else (None, None, None)))
    tracer.findings = [f for f in tracer.findings if not _scaffolding(item, f)]
    _record(item, tracer, (time.perf_counter() - started) * 1000.0)
    failing = tracer.errors
    for finding in tracer.findings:
        if finding not in failing and finding.severity == "warning":
            warnings.warn_explicit(str(finding), DevparityPlacementWarning,
                                   finding.file or item.location[0], finding.line or 0)
    if failing and exc is None:
        lines = "\n".join(f"  {f}" for f in failing)
        pytest.fail(f"devparity: {len(failing)} placement problem(s) on {tracer.target_name}:\n{lines}",
                    pytrace=False)


def _scaffolding(item, finding):
    # A test moves its inputs and reads its results back (assert_close syncs): warnings whose
    # line is in the test's own file or a conftest are the test's doing, not the library's.
    if finding.severity != "warning" or not finding.file:
        return False
    test_file = os.path.abspath(str(item.fspath))
    return os.path.abspath(finding.file) == test_file or os.path.basename(finding.file) == "conftest.py"


def _record(item, tracer, duration_ms):
    findings = [f.to_json() for f in tracer.findings]
    item.user_properties.append(("devparity_findings", json.dumps(findings)))
    if findings:
        text = "\n".join(str(f) for f in tracer.findings)
        item.add_report_section("call", "devparity", text)
    status = "fail" if tracer.errors else "pass"
    _session["results"].append({"id": item.nodeid, "target": tracer.target_name, "status": status,
                                "ops": tracer.ops, "findings": findings, "duration_ms": duration_ms,
                                "mode": "strict" if tracer.strict else "warn"})


def pytest_sessionfinish(session, exitstatus):
    path = session.config.getoption("devparity_report", None)
    if not path or not _session["enabled"]:
        return
    from devparity._session_report import write_session_report

    write_session_report(path, _session, session.config)
