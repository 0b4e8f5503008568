#!/usr/bin/env python3
"""Runs devparity_bench once and prints each benchmark's time as a ratio to
its baseline, as a Markdown table (docs/performance.md's numbers): LibTorch's own op
for resize and blur, BM_native_X for the catalog's BM_catalog_X, the untraced run for BM_trace_*_traced, the forward
(no autograd) run for BM_*_forward_backward, libjpeg-turbo for BM_jpeg_*
(with MB/s of JPEG file where a benchmark counts bytes), the module's own
forward for BM_torchscript_*.

usage: tools/bench/ratios.py [BENCH_BINARY] [-- extra benchmark flags]
       tools/bench/ratios.py --json results.json   (a saved --benchmark_format=json run)
"""
import json
import subprocess
import sys

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
    extra = argv[argv.index("--") + 1:] if "--" in argv else ["--benchmark_min_time=1"]
    out = subprocess.run([binary, "--benchmark_format=json"] + extra, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main(argv):
    data = load(argv)
    runs = [b for b in data["benchmarks"] if b.get("run_type") != "aggregate"]
    times = {b["name"]: b["real_time"] for b in runs}
    rates = {b["name"]: b["bytes_per_second"] / 1e6 for b in runs if b.get("bytes_per_second")}
    ctx = data.get("context", {})
    print(f"host: {ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz, "
          f"{ctx.get('date', '')}")
    print()
    print("| benchmark | time (ms) | ratio to baseline | MB/s |")
    print("|---|---:|---:|---:|")
    for name, t in times.items():
        base = times.get(baseline_of(name))
        ratio = f"{t / base:.2f}x" if base else "n/a"
        rate = f"{rates[name]:.1f}" if name in rates else ""
        print(f"| {name} | {t:.1f} | {ratio} | {rate} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
