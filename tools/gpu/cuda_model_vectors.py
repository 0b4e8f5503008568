#!/usr/bin/env python3
"""Vectors of the CUDA arithmetic vdev models but the shipped goldens do not cover, made on a GPU.

The shipped CUDA goldens (torchvision's resizes and warps) settle cuda_interpolate, cuda_grid_sample
and sgemm_fma for what torchvision calls: bilinear and bicubic resizes, nearest and bilinear
grid_sample with zeros padding and align_corners false, products of depth 3. This script makes the
rest on the device it is given (torch only; nothing of ours is built), for a test to hold vdev's
models to (docs/cuda-arithmetic.md, "Checked against a real GPU"):
  grid_sample    bilinear, nearest, bicubic x zeros, border, reflection x align_corners, float32
                 and float64, grids reaching outside the image
  interpolate    bilinear, bicubic, with and without antialias and align_corners, given scale
                 factors, float64, float16
  mm, bmm        float32 of depth 1..8 with TF32 off (the model covers K <= 4: 5..8 show whether
                 cuBLAS keeps the order deeper)
Writes OUT/manifest.json and one .npy per input and output; inputs are seeded on the CPU.

    python3 tools/gpu/cuda_model_vectors.py OUT                  on the lent GPU (device cuda)
    python3 tools/gpu/cuda_model_vectors.py OUT --device cpu     a rehearsal on the CPU
"""

import argparse
import json
import os

import numpy as np
import torch
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--seed", type=int, default=58)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    g = torch.Generator().manual_seed(args.seed)
    vectors = []

    def save(name, t):
        np.save(os.path.join(args.out, name), t.detach().cpu().contiguous().numpy())
        return name

    def add(op, params, inputs, fn):
        vid = f"{len(vectors):03d}_{op}"
        names = [save(f"{vid}_in{i}.npy", x) for i, x in enumerate(inputs)]
        out = fn(*[x.to(args.device) for x in inputs])
        vectors.append({"id": vid, "op": op, "params": params, "dtype": str(inputs[0].dtype).replace("torch.", ""),
                        "inputs": names, "output": save(f"{vid}_out.npy", out), "device": args.device})

    image = torch.rand(2, 3, 13, 17, generator=g)
    grid = torch.rand(2, 9, 11, 2, generator=g) * 2.6 - 1.3
    for dtype in (torch.float32, torch.float64):
        for mode in ("bilinear", "nearest", "bicubic"):
            for padding in ("zeros", "border", "reflection"):
                for align in (False, True):
                    params = {"mode": mode, "padding_mode": padding, "align_corners": align}
                    add("grid_sample", params, [image.to(dtype), grid.to(dtype)],
                        lambda x, gr, p=params: F.grid_sample(x, gr, **p))

    big = torch.rand(2, 3, 21, 26, generator=g) * 255
    for dtype in (torch.float32, torch.float64, torch.float16):
        for mode in ("bilinear", "bicubic"):
            for antialias in (False, True):
                if dtype == torch.float16 and (antialias or args.device == "cpu"):
                    continue  # CUDA keeps half-precision weights with antialias; the CPU has no half kernel
                for align in (False, True):
                    if antialias and align:
                        continue
                    for how in ({"size": [9, 40]}, {"scale_factor": [0.37, 1.9]}):
                        params = {"mode": mode, "antialias": antialias, "align_corners": align, **how}
                        add("interpolate", params, [big.to(dtype)], lambda x, p=params: F.interpolate(x, **p))

    for k in range(1, 9):
        a = torch.rand(3, 37, k, generator=g) * 100 - 50
        b = torch.rand(3, k, 5, generator=g) * 100 - 50
        add("bmm", {"depth": k}, [a, b], torch.bmm)
        add("mm", {"depth": k}, [a[0], b[0]], torch.mm)

    manifest = {"torch": torch.__version__, "device": args.device,
                "gpu": torch.cuda.get_device_name(0) if args.device == "cuda" else None,
                "made_by": "tools/gpu/cuda_model_vectors.py", "seed": args.seed, "vectors": vectors}
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(vectors)} vectors on {args.device} in {args.out}")


if __name__ == "__main__":
    main()
