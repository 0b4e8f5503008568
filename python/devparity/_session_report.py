"""The pytest plugin's --devparity-report: the session's findings in devparity's report schema.

One result per traced test (its node id, on the device it was judged against) with one
`placement` check holding its findings, so that `devparity diff`, `merge` and `html` read it.
"""

import json
import os
import time

from devparity._devices import device_name, ops as _ops

_COUNTS = ("passed", "failed", "errored", "skipped")
_STATUS_COUNT = {"pass": "passed", "fail": "failed", "error": "errored", "skip": "skipped"}


def _counts():
    return {"total": 0, "passed": 0, "failed": 0, "errored": 0, "skipped": 0}


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
    return {"id": entry["id"], "suite": path, "case": path, "subject": test, "variant": "", "dtype": "",
            "device": device, "resolved_device": device, "reference_device": device,
            "reference_subject": test, "input": "", "shape": [], "seed": 0, "params": {},
            "reference_params": {}, "status": entry["status"], "message": message,
            "duration_ms": entry["duration_ms"], "checks": [check]}


def write_session_report(path, session, config):
    results = [_result(e) for e in session["results"]]
    summary = _counts()
    summary.update(by_check={"placement": _counts()}, by_device={},
                   duration_s=max(0.0, time.time() - session["started"]), unsupported_ops={})
    for r in results:
        for counts in (summary, summary["by_check"]["placement"],
                       summary["by_device"].setdefault(r["device"], _counts())):
            counts["total"] += 1
            counts[_STATUS_COUNT[r["status"]]] += 1
    header = json.loads(_ops().report_header())
    devices = sorted({r["device"] for r in results})
    report = {
        "schema_version": 1, "tool": header["tool"], "environment": header["environment"],
        "run": {"started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(session["started"])),
                "duration_s": summary["duration_s"], "argv": ["pytest"] + list(config.invocation_params.args),
                "seed": None, "suites": sorted({r["suite"] for r in results}),
                "devices": [{"name": d, "present": True, "resolved": d} for d in devices],
                "dtypes": [], "filter": "", "placement": config.getoption("devparity_placement"), "report": path,
                "planned_trials": len(results)},
        "summary": summary, "results": results}
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    partial = path + ".tmp"
    with open(partial, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(partial, path)
