#!/usr/bin/env python3
"""Compares a GPU's TF32 failures (tools/gpu/cuda_arithmetic.sh's two JUnit files) with the tests a real
suite's expectation file lists as failing for CUDA's arithmetic (tf32_matmul) on vdev:1.

    tools/gpu/tf32_compare.py OUT tests/realsuites/kornia-v0.8.1.tsv

A GPU TF32 failure fails under the conftest's TF32 and passes with TF32 off. Prints the tests both
name, those vdev alone names (false alarms: the model fails what a GPU passes) and those the GPU alone
names (misses), and exits 1 when there is a false alarm."""

import argparse
import re
import sys
import xml.etree.ElementTree as ET


def outcomes(path):
    """{test id with DEV for the device: "pass" | "fail" | "skip"} of a JUnit file."""
    out = {}
    try:
        cases = list(ET.parse(path).iter("testcase"))
    except (OSError, ET.ParseError) as e:
        sys.exit(f"tf32_compare: {path}: {e} (did tools/gpu/cuda_arithmetic.sh run to the end?)")
    for case in cases:
        name = re.sub(r"\[(cuda|cpu)(:\d+)?", "[DEV", case.get("name", ""))
        test = f"{case.get('classname')}::{name}"
        if case.find("skipped") is not None:
            out[test] = "skip"
        elif case.find("failure") is not None or case.find("error") is not None:
            out[test] = "fail"
        else:
            out[test] = "pass"
    return out


def listed(path):
    """The tests the expectation file gives CUDA's arithmetic (tf32_matmul) as the cause."""
    with open(path) as f:
        return {line.split("\t")[0] for line in f if "\t" in line and "(tf32_matmul)" in line}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the folder tools/gpu/cuda_arithmetic.sh wrote")
    parser.add_argument("expected", help="the real suite's expectation file")
    args = parser.parse_args()
    tf32 = outcomes(f"{args.out}/kornia-0.8.1-tf32.xml")
    plain = outcomes(f"{args.out}/kornia-0.8.1-no_tf32.xml")
    gpu = {t for t, o in tf32.items() if o == "fail" and plain.get(t) == "pass"}
    vdev = listed(args.expected)
    ran = {t for t, o in tf32.items() if o != "skip"}
    both, false_alarms, misses = gpu & vdev, (vdev & ran) - gpu, gpu - vdev
    print(f"GPU: {len(tf32)} tests, {len(gpu)} fail for TF32 alone; vdev lists {len(vdev)} ({len(vdev & ran)} ran on the GPU)")
    print(f"both: {len(both)}; vdev alone (false alarms): {len(false_alarms)}; GPU alone (misses): {len(misses)}")
    for label, tests in (("false alarm", false_alarms), ("miss", misses)):
        for t in sorted(tests):
            print(f"  {label}: {t} (GPU under TF32: {tf32.get(t)}, without: {plain.get(t)})")
    return 1 if false_alarms else 0


if __name__ == "__main__":
    sys.exit(main())
