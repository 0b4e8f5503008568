"""The three ways a maintainer runs devparity on a twin (tests/corpus/README.md): audit(), trace() of
the project's test scenario on each device, and the project's tests under the pytest plugin.

Each returns an Outcome: whether the twin failed, the finding kinds (and exception kinds) seen,
and a line saying where."""

import dataclasses
import importlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCAFFOLDING = [os.path.join(HERE, "twins", "*", "__init__.py"), os.path.join(HERE, "twins", "_accel.py")]
TRACE_DEVICES = ("cpu", "vdev:1", "vdev:0")
AUDIT_DEVICES = "cpu,vdev:0,vdev:1"
PLUGIN_DEVICES = "cpu,cpu-only,vdev:0,vdev:1,vdev"

if HERE not in sys.path:
    sys.path.insert(0, HERE)


@dataclasses.dataclass
class Outcome:
    failed: bool
    kinds: set
    detail: str


def bug_names():
    twins = os.path.join(HERE, "twins")
    return sorted(d for d in os.listdir(twins) if os.path.isfile(os.path.join(twins, d, "__init__.py")))


def load(bug, twin=None):
    package = importlib.import_module(f"twins.{bug}")
    return package if twin is None else (package, importlib.import_module(f"twins.{bug}.{twin}"))


def _tensors(value):
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def run_audit(bug, twin):
    import devparity

    package, lib = load(bug, twin)
    fn, inputs, kwargs = package.subject(lib)
    result = devparity.audit(fn, inputs, devices=AUDIT_DEVICES, name=f"{bug}_{twin}", **kwargs)
    kinds, where = set(), []
    for r in result.failures:
        for check in r["checks"]:
            if check["status"] in ("fail", "error"):
                kinds.add(f"check:{check['name']}")
            for f in check.get("findings", []):
                if f["severity"] == "error":
                    kinds.add(f["kind"])
                    where.append(f"{r['device']}: {f['kind']} [{f.get('source', '')}]")
    return Outcome(not result.passed, kinds, "; ".join(where[:3]) or f"{len(result.failures)} failure(s)")


def run_trace(bug, twin):
    import devparity

    package, lib = load(bug, twin)
    ops = devparity._devices.ops()
    kinds, where = set(), []
    for name in TRACE_DEVICES:
        device = devparity.device(name)
        previous = ops.current_device()
        if device.index is not None:  # as the plugin and the runner run it: another index current
            ops.make_other_current(device.index)
        try:
            with devparity.trace(device) as t:  # an error leaves through it: the trace names it
                for tensor in _tensors(package.scenario(lib, device)):
                    t.returned(tensor)
        except Exception as e:  # noqa: BLE001 - every failure is evidence
            kinds.add(type(e).__name__)
            first = (str(e).splitlines() or [""])[0][:120]
            where.append(f"{name}: {type(e).__name__}: {first}")
        finally:
            ops.set_device(previous)
        for f in t.errors:
            kinds.add(f.kind)
            where.append(f"{name}: {f}")
    return Outcome(bool(where), kinds, "; ".join(where[:3]))


_plugin_runs = {}


def plugin_session(twin):
    """Runs the corpus's test suite under the plugin for one twin; {test id: (status, text)}."""
    if twin in _plugin_runs:
        return _plugin_runs[twin]
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", f"--rootdir={HERE}",
            os.path.join(HERE, "suite"), f"--devparity-devices={PLUGIN_DEVICES}", "--device=all",
            "--devparity-trace", "-W", "ignore::UserWarning",
            # Random gates (Kornia #3704) need the sweep, which is off by default (its reruns cost).
            "--devparity-random-sweep=8"]
    args += [f"--devparity-scaffolding={g}" for g in SCAFFOLDING]
    paths = [HERE] + [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, CORPUS_TWIN=twin, PYTHONPATH=os.pathsep.join(paths))
    run = subprocess.run(args, cwd=HERE, capture_output=True, text=True, timeout=900, env=env)
    outcomes = {}
    for status, test, rest in re.findall(r"^(PASSED|FAILED|SKIPPED|ERROR) (\S+)(.*)$", run.stdout, re.M):
        outcomes[test] = (status, rest)
    if not outcomes:
        raise RuntimeError(f"the plugin run of the {twin} twins reported nothing:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    _plugin_runs[twin] = outcomes
    return outcomes


def run_plugin(bug, twin):
    outcomes = plugin_session(twin)
    mine = {t: s for t, s in outcomes.items() if f"[{bug}-" in t or t.endswith(f"[{bug}]") or bug in t.split("::")[-1]}
    failed = {t: s for t, s in mine.items() if s[0] in ("FAILED", "ERROR")}
    kinds = set()
    for _, (_, text) in failed.items():
        kinds.update(re.findall(r"\b([a-z]+(?:_[a-z]+)+)\b", text))
        kinds.update(re.findall(r"\b(\w+Error)\b", text))
    if not mine:
        raise RuntimeError(f"no test of {bug} ran under the plugin: {sorted(outcomes)[:5]}")
    return Outcome(bool(failed), kinds, "; ".join(f"{t}: {s[1].strip()[:160]}" for t, s in list(failed.items())[:3]))


RUNNERS = {"audit": run_audit, "trace": run_trace, "plugin": run_plugin}


def setup():
    """Installs the simulated device and declares the twins' scenarios the test's own code."""
    import devparity

    devparity.install(2)
    devparity.add_scaffolding(SCAFFOLDING)


def summary():
    """{bug: {"bug": BUG, "faulty": {api: Outcome}, "fixed": {api: Outcome}}} of the whole corpus."""
    setup()
    out = {}
    for bug in bug_names():
        package = load(bug)
        entry = {"bug": package.BUG}
        for twin in ("faulty", "fixed"):
            entry[twin] = {api: RUNNERS[api](bug, twin) for api in package.BUG["apis"]}
        out[bug] = entry
    return out


if __name__ == "__main__":
    results = summary()
    print(json.dumps({bug: {twin: {api: dataclasses.asdict(o) | {"kinds": sorted(o.kinds)}
                                    for api, o in e[twin].items()} for twin in ("faulty", "fixed")}
                      for bug, e in results.items()}, indent=1, default=str))
