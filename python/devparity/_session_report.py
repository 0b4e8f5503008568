"""The pytest plugin's --devparity-report: the session's findings in devparity's report schema.

One result per traced test (its node id, on the device it was judged against) with one
`placement` check holding its findings, so that `devparity diff`, `merge` and `html` read it. The
results go through devparity's own session (harness/session/session.h): totals, the run object,
the streamed and atomically written report are `devparity run`'s.
"""

import json
import re
import time

from devparity._devices import device_name, op_error, ops as _ops


def _result(entry):
    findings = entry["findings"]
    severities = [f["severity"] for f in findings]
    errors, warnings = severities.count("error"), severities.count("warning")
    device = device_name(entry["target"]) if entry["target"] else "cpu"
    message = (f"{errors} error(s), {warnings} warning(s) in {entry['ops']} traced op(s)"
               + (f"; first: [{findings[0]['kind']}] {findings[0]['message']}" if findings else ""))
    if entry.get("skipped_because") is not None:
        message = f"skipped: {entry['skipped_because']} ({message})"
    check = {"name": "placement", "status": entry["status"], "message": message,
             "describe": "no placement errors while the test ran (pytest --devparity-trace)",
             "stats": {"errors": errors, "warnings": warnings, "notes": severities.count("note"),
                       "ops_traced": entry["ops"], "mode": entry["mode"]},
             "findings": findings, "artifacts": []}
    if entry.get("random_sweep"):  # the seeds its reruns ran under (Note [Random gates])
        check["stats"]["random_sweep_seeds"] = entry["random_sweep"]
    path, _, test = entry["id"].partition("::")
    case = re.sub(r"[^A-Za-z0-9_]", "_", path) or "tests"  # the schema's case is an identifier
    return {"id": entry["id"], "suite": path, "case": case, "subject": test, "variant": "", "dtype": "",
            "device": device, "resolved_device": device, "reference_device": device,
            "reference_subject": test, "input": "", "shape": [], "seed": 0, "params": {},
            "reference_params": {}, "status": entry["status"], "message": message,
            "duration_ms": entry["duration_ms"], "checks": [check]}


def write_session_report(path, rows, started, config, shard=None):
    """The report of `rows` (the plugin's traced tests) at `path`, through devparity's own session.
    `shard` ("I/N", --devparity-shard) is recorded for `devparity merge` to find a missing one."""
    results = [_result(e) for e in rows]
    options = {"report": path, "argv": ["pytest"] + [str(a) for a in config.invocation_params.args],
               "suites": sorted({r["suite"] for r in results}),
               "devices": sorted({r["device"] for r in results}),
               "placement": config.getoption("devparity_placement"),
               "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
               "duration_s": max(0.0, time.time() - started)}
    if shard is not None:
        options["shard"] = shard
    try:
        _ops().session_report(json.dumps(results), json.dumps(options))
    except (RuntimeError, ValueError) as e:
        raise op_error(e) from None


def merge_parts(parts, output, gaps):
    """`devparity merge`'s merge of the pytest-xdist workers' parts into `output`; `gaps` (a worker that
    died, the test it was running) mark it incomplete."""
    try:
        _ops().merge_session_parts(list(parts), output, list(gaps))
    except (RuntimeError, ValueError) as e:
        raise op_error(e) from None
