#!/usr/bin/env python3
"""Peak resident memory of the reference kernels: runs `devparity apply` once per case in a
fresh process and reports its maximum RSS (from wait4), minus that of the same process
applying a subject that only copies the input (`center_crop` to the input's own size), so
the figure is what the kernel itself adds over LibTorch, the input and the output file.

usage: tools/peak_memory.py [DEVPARITY] [--compare OTHER_DEVPARITY]
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

CASES = [
    ("jpeg_encode 3840x2160 q90", "jpeg_encode", (1, 3, 2160, 3840), "uint8", {"quality": 90}, "out.jpg"),
    ("resize uint8 1080p -> 720p (cpu_kernel)", "resize", (1, 3, 1080, 1920), "uint8",
     {"size": [720, 1280], "uint8_strategy": "cpu_kernel"}, "out.npy"),
    ("resize uint8 1080p -> 720p (fixed_point)", "resize", (1, 3, 1080, 1920), "uint8",
     {"size": [720, 1280], "uint8_strategy": "fixed_point"}, "out.npy"),
    ("gaussian_blur2d 5x5 uint8 1080p", "gaussian_blur2d", (1, 3, 1080, 1920), "uint8",
     {"kernel_size": [5, 5], "sigma": [1.5, 1.5]}, "out.npy"),
]


def peak_kib(argv):
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"peak_memory: {' '.join(argv)} failed: {proc.stderr.read().decode()[-500:]}")
    return usage.ru_maxrss


def measure(binary, folder):
    rows = {}
    for label, subject, shape, dtype, params, out in CASES:
        path = os.path.join(folder, f"{'x'.join(map(str, shape))}-{dtype}.npy")
        if not os.path.exists(path):
            rng = np.random.default_rng(0)
            np.save(path, rng.integers(0, 256, size=shape, dtype=np.uint8))
        base = peak_kib([binary, "apply", "center_crop", "--input", path, "--output",
                         os.path.join(folder, "base.npy"), "--params",
                         json.dumps({"size": [shape[2], shape[3]]})])
        peak = peak_kib([binary, "apply", subject, "--input", path, "--output", os.path.join(folder, out),
                         "--params", json.dumps(params)])
        rows[label] = (peak - base) / 1024.0
    return rows


def main(argv):
    binary = argv[0] if argv and not argv[0].startswith("--") else "build/release/tools/devparity"
    other = argv[argv.index("--compare") + 1] if "--compare" in argv else None
    with tempfile.TemporaryDirectory() as folder:
        now = measure(binary, folder)
        before = measure(other, folder) if other else {}
    print("| kernel | peak MiB over a copy |" + (" before (MiB) |" if other else ""))
    print("|---|---:|" + ("---:|" if other else ""))
    for label, mib in now.items():
        print(f"| {label} | {mib:.0f} |" + (f" {before[label]:.0f} |" if other else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
