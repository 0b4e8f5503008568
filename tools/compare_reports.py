#!/usr/bin/env python3
"""Compare devparity reports made before and after a change, ignoring what
differs from run to run: durations, timestamps, the git revision, and the
paths the reports were written to.

    tools/compare_reports.py BEFORE_DIR AFTER_DIR     # every *.json and *.xml
    tools/compare_reports.py before.json after.json

Exit status 0 when every pair is identical after normalising, 1 otherwise
(the first differences are printed, with their JSON path), 2 on bad usage.
"""
import json
import pathlib
import re
import sys

# Keys whose values are measured, not computed.
VOLATILE_KEYS = {"duration_s", "started_at", "git", "argv", "timestamp", "hostname", "time"}
# "ran on cpu in 0.859 ms", "took 1.2 s", "12.5 ms per call"
DURATION = re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?\s?(ms|s|us)\b")


def normalise(value, roots):
    if isinstance(value, dict):
        return {k: ("<volatile>" if k in VOLATILE_KEYS or k.endswith("_ms")
                    else normalise(v, roots))
                for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, roots) for v in value]
    if isinstance(value, str):
        for root in roots:
            value = value.replace(root, "<dir>")
        return DURATION.sub("<time>", value)
    return value


def differences(a, b, path="$"):
    if type(a) is not type(b):
        yield f"{path}: {a!r} != {b!r}"
    elif isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                yield f"{path}.{k}: only in {'after' if k in b else 'before'}"
            else:
                yield from differences(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        if len(a) != len(b):
            yield f"{path}: {len(a)} items != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, f"{path}[{i}]")
    elif a != b:
        yield f"{path}: {a!r} != {b!r}"


def load(path):
    text = path.read_text()
    if path.suffix == ".json":
        data = json.loads(text)
        if "shared" in data or "skipped" in data:
            import devparity  # a packed report (docs/report-format.md): compared in full

            return devparity.load_report(str(path))
        return data
    # JUnit: compare the XML text with its volatile attributes blanked.
    text = re.sub(r'\b(time|timestamp|hostname)="[^"]*"', r'\1=""', text)
    text = re.sub(r'name="(devparity\.git|run\.argv)" value="[^"]*"', r'name="\1" value=""', text)
    return text.splitlines()


def compare(before, after, limit=20):
    # Longest first: one folder's name may begin with the other's.
    roots = sorted({str(before.parent), str(after.parent)}, key=len, reverse=True)
    a, b = normalise(load(before), roots), normalise(load(after), roots)
    found = list(differences(a, b))
    for line in found[:limit]:
        print(f"  {line}")
    if len(found) > limit:
        print(f"  ... and {len(found) - limit} more")
    return not found


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    before, after = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    if before.is_dir():
        pairs = [(p, after / p.name) for p in sorted(before.iterdir())
                 if p.suffix in (".json", ".xml")]
    else:
        pairs = [(before, after)]
    if not pairs:
        print(f"compare_reports: no reports in {before}", file=sys.stderr)
        return 2
    same = True
    for a, b in pairs:
        if not b.exists():
            print(f"{b}: missing (made before as {a})")
            same = False
            continue
        ok = compare(a, b)
        print(f"{a.name}: {'identical' if ok else 'DIFFERS'}")
        same = same and ok
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
