#!/usr/bin/env python3
"""How much of the +-1 divergence in a devparity report rounding ties explain.

  tools/tie_share.py REPORT.json [--filter SUBSTRING]

For every trial whose parity check judged ties (its reference noted the
values it rounded: cases/README.md, Tolerances), prints the differing elements, the
+-1 differences at rounding ties and elsewhere, and the largest |diff|; then
the totals per case. Reads the report only; prints nothing it did not find.
"""
import argparse
import sys
from collections import OrderedDict


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--filter", default="", help="keep trial ids containing this")
    args = parser.parse_args()
    try:
        import devparity  # the file is packed (docs/report-format.md): read it back in full

        report = devparity.load_report(args.report)
    except (ImportError, RuntimeError, ValueError) as e:
        sys.exit(f"tie_share: error: {args.report}: {e}")
    totals = OrderedDict()
    print(f"{'trial':<88} {'differ':>7} {'ties':>7} {'interm.':>7} {'+-1 else':>8} {'max':>4}")
    for trial in report.get("results", []):
        if args.filter not in trial["id"]:
            continue
        parity = next((c for c in trial.get("checks", []) if c["name"] == "parity"), None)
        if parity is None or "rounding_ties" not in parity.get("stats", {}):
            continue
        s = parity["stats"]
        ties, other = s["rounding_ties"], s["off_by_one_elsewhere"]
        interm = s.get("intermediate_rounding", 0)
        print(f"{trial['id'][:88]:<88} {s['differing']:>7} {ties:>7} {interm:>7} {other:>8} {s['max_abs']:>4g}")
        t = totals.setdefault(trial["id"].split("/")[0], [0, 0, 0, 0])
        t[0] += s["differing"]
        t[1] += ties
        t[2] += other
        t[3] += interm
    if not totals:
        sys.exit("tie_share: no trial with judged rounding ties in this report")
    print()
    for case, (differ, ties, other, interm) in totals.items():
        share = f"{100.0 * ties / (ties + other):.1f}%" if ties + other else "-"
        print(f"{case}: {differ} elements differ; {ties} of {ties + other} +-1 differences not explained by an "
              f"intermediate rounding at ties ({share}); {interm} explained by the reference's intermediate rounding")


if __name__ == "__main__":
    main()
