#!/usr/bin/env python3
"""Runs the corpus of real device bugs (tests/corpus) through devparity's public Python API and
prints the table of docs/corpus.md and the README's figure: for each bug, whether the faulty twin
was caught (and with which kinds) and whether the fixed twin was clean, through each API a
maintainer would use.

  PYTHONPATH=build/release/python /usr/bin/python3 tools/corpus_table.py [--json]
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "corpus"))

import runners  # noqa: E402  (tests/corpus/runners.py)


def main():
    results = runners.summary()
    if "--json" in sys.argv[1:]:
        print(json.dumps({bug: {twin: {api: {"failed": o.failed, "kinds": sorted(o.kinds)}
                                       for api, o in e[twin].items()} for twin in ("faulty", "fixed")}
                          for bug, e in results.items()}, indent=1))
        return 0
    caught = clean = 0
    print("| bug | class | through | faulty twin | fixed twin |")
    print("|---|---|---|---|---|")
    for bug, e in results.items():
        record = e["bug"]
        faulty_ok = all(o.failed for o in e["faulty"].values())
        fixed_ok = not any(o.failed for o in e["fixed"].values())
        caught += faulty_ok
        clean += fixed_ok
        kinds = sorted({k for o in e["faulty"].values() for k in o.kinds
                        if k in record["expect"] or k.endswith("Error")} & set(record["expect"]) or
                       {"test failed"})
        print(f"| [{record['id']}]({record['issue']}) {record['title']} | {record['class']} | "
              f"{', '.join(record['apis'])} | {'caught' if faulty_ok else 'MISSED'}: {', '.join(kinds)} | "
              f"{'clean' if fixed_ok else 'FLAGGED'} |")
    print(f"\n{len(results)} bugs: {caught} caught, {clean} fixed twins clean")
    return 0 if caught == clean == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
