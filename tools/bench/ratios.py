#!/usr/bin/env python3
"""Runs devparity_bench once and prints each benchmark's median time as a ratio
to its baseline's median, as a Markdown table (docs/performance.md's numbers): LibTorch's own op
for resize and blur, BM_native_X for the catalog's BM_catalog_X, the untraced run for BM_trace_*_traced, the forward
(no autograd) run for BM_*_forward_backward, libjpeg-turbo for BM_jpeg_*
(with MB/s of JPEG file where a benchmark counts bytes), the module's own
forward for BM_torchscript_*.

Each benchmark runs REPETITIONS times (5 unless the flags say otherwise); the table gives the
median and the spread ((max - min) / median) of the repetitions, so that one slow repetition
(another process, a page-fault storm) neither hides nor makes a figure. Benchmarks set their
inputs up before the clock starts.

usage: tools/bench/ratios.py [BENCH_BINARY] [-- extra benchmark flags]
       tools/bench/ratios.py --json results.json   (a saved --benchmark_format=json run)
"""
import json
import statistics
import subprocess
import sys

DEFAULT_FLAGS = ["--benchmark_repetitions=5", "--benchmark_min_time=0.2"]

BASELINES = {
    "resize": "BM_libtorch_interpolate_float32",
    "blur": "BM_libtorch_conv2d_blur_float32",
}


def baseline_of(name):
    if name.startswith("BM_catalog_"):
        return name.replace("BM_catalog_", "BM_native_", 1)
    if name.startswith("BM_native_"):
        return name
    if name.startswith("BM_torchscript_"):
        return "BM_torchscript_gain_module"
    if name.startswith("BM_jpeg_encode"):
        return "BM_jpeg_encode_4k_q90_libjpeg_turbo"
    if name.startswith("BM_jpeg_validate") or name.startswith("BM_jpeg_decode"):
        return "BM_jpeg_decode_4k_libjpeg_turbo"
    if name.endswith("_forward") or name.endswith("_forward_backward"):
        return name.removesuffix("_backward")
    if name.startswith("BM_trace_"):
        return name.replace("_traced", "_untraced") if name.endswith("_traced") else name
    return BASELINES["blur" if "blur" in name else "resize"]


def load(argv):
    if len(argv) >= 2 and argv[0] == "--json":
        with open(argv[1]) as f:
            return json.load(f)
    binary = argv[0] if argv and argv[0] != "--" else "build/release/tools/bench/devparity_bench"
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    if not any(f.startswith("--benchmark_repetitions") for f in extra):
        extra = DEFAULT_FLAGS + extra
    out = subprocess.run([binary, "--benchmark_format=json"] + extra, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def to_ms(run):
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[run.get("time_unit", "ns")]
    return run["real_time"] * scale


def summarise(benchmarks):
    """name -> (median ms, spread, repetitions, median MB/s or None), in first-seen order."""
    reps, rates = {}, {}
    for b in benchmarks:
        if b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"])
        reps.setdefault(name, []).append(to_ms(b))
        if b.get("bytes_per_second"):
            rates.setdefault(name, []).append(b["bytes_per_second"] / 1e6)
    out = {}
    for name, times in reps.items():
        median = statistics.median(times)
        spread = (max(times) - min(times)) / median if median else 0.0
        rate = statistics.median(rates[name]) if name in rates else None
        out[name] = (median, spread, len(times), rate)
    return out


def main(argv):
    data = load(argv)
    stats = summarise(data["benchmarks"])
    ctx = data.get("context", {})
    print(f"host: {ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz, "
          f"{ctx.get('date', '')}")
    print()
    print("| benchmark | median (ms) | spread | runs | ratio to baseline | MB/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (median, spread, n, rate) in stats.items():
        base = stats.get(baseline_of(name))
        ratio = f"{median / base[0]:.2f}x" if base else "n/a"
        mbs = f"{rate:.1f}" if rate is not None else ""
        print(f"| {name} | {median:.2f} | {spread:.0%} | {n} | {ratio} | {mbs} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
