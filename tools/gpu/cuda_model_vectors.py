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
  sort, topk     indices of slices full of ties and signed zeros, of every length CUDA's sort
                 switches algorithm at (32, 128, 4096), stable or not; topk's selection and order
  nms            torchvision's, on tied scores, on an IoU of float(0.3), and on box pairs whose
                 IoU crosses the threshold only with devIoU's fused multiply-adds (or only without)
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


def fma32(a, b, c):
    """float32 fma through float64 (a * b exact there; the add's double rounding does not matter here)."""
    return np.float32(np.float64(a) * np.float64(b) + np.float64(c))


def fma_split_pairs(g, threshold, count):
    """Box pairs whose float32 IoU is above `threshold` computed one way and not the other, each with
    whether the fused way is: inter / fma(-w, h, fma(dxa, dya, area_b)) (devIoU as vdev's cuda_nms
    reads nvcc's contraction) against inter / (area_a + area_b - inter) rounded at each step (the
    CPU kernel's)."""
    f = np.float32
    found = []
    while len(found) < count:
        a = (torch.rand(4, generator=g) * 40).tolist()
        a = [f(min(a[0], a[2])), f(min(a[1], a[3])), f(max(a[0], a[2]) + 1), f(max(a[1], a[3]) + 1)]
        w0, h0 = a[2] - a[0], a[3] - a[1]
        # b: a shifted so the IoU lands near the threshold, with noise in the last bits.
        shift = f(w0 * (1 - threshold) / (1 + threshold) * (1 + (torch.rand(1, generator=g).item() - 0.5) * 1e-6))
        b = [a[0] + shift, a[1], a[2] + shift, a[3]]
        w = max(min(a[2], b[2]) - max(a[0], b[0]), f(0))
        h = max(min(a[3], b[3]) - max(a[1], b[1]), f(0))
        inter = f(w * h)
        area_a, area_b = f(w0 * h0), f((b[2] - b[0]) * (b[3] - b[1]))
        plain = inter / f(f(area_a + area_b) - inter) > f(threshold)
        fused = inter / fma32(-w, h, fma32(w0, h0, area_b)) > f(threshold)
        if plain != fused:
            found.append((torch.tensor([a, b], dtype=torch.float32), bool(fused)))
    return found


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

    ties = torch.randint(0, 4, (3, 5000), generator=g).float()
    ties[:, ::7] = -0.0
    ties[:, 3::7] = 0.0
    for n in (2, 5, 17, 32, 33, 100, 128, 129, 300, 4096, 5000):
        for descending in (False, True):
            for stable in (False, True):
                params = {"n": n, "descending": descending, "stable": stable}
                add("sort", params, [ties[:, :n].contiguous()],
                    lambda x, p=params: torch.sort(x, dim=-1, descending=p["descending"], stable=p["stable"])[1])
    long_ties = torch.randint(0, 3, (1, 100000), generator=g).float()
    for x, k in ((ties[:, :6], 2), (ties[:, :40], 3), (ties[:, :40], 35), (ties[:, :300], 50), (long_ties, 5)):
        for largest in (True, False):
            for is_sorted in (True, False):
                params = {"n": x.shape[-1], "k": k, "largest": largest, "sorted": is_sorted}
                add("topk", params, [x.contiguous()],
                    lambda y, p=params: torch.topk(y, p["k"], largest=p["largest"], sorted=p["sorted"])[1])

    try:
        import torchvision
    except ImportError:
        torchvision = None
    if torchvision is not None:
        def nms(thr):
            return lambda b, sc: torchvision.ops.nms(b, sc, thr)

        corners = torch.randint(0, 12, (30, 2), generator=g).float()
        boxes = torch.cat([corners, corners + torch.randint(2, 6, (30, 2), generator=g).float()], 1)
        for levels in (1, 3):
            scores = torch.randint(0, levels, (30,), generator=g).float()
            for thr in (0.2, 0.5):
                add("nms", {"iou_threshold": thr, "score_levels": levels}, [boxes, scores], nms(thr))
        add("nms", {"iou_threshold": 0.3, "case": "IoU of float(0.3)"},
            [torch.tensor([[0.0, 0.0, 5.0, 1.0], [2.0, 0.0, 10.0, 1.0]]), torch.tensor([0.9, 0.8])], nms(0.3))
        for pair, _ in fma_split_pairs(g, 0.5, 12):
            add("nms", {"iou_threshold": 0.5, "case": "fused and plain IoU disagree"},
                [pair, torch.tensor([1.0, 0.5])], nms(0.5))

    manifest = {"torch": torch.__version__, "device": args.device,
                "gpu": torch.cuda.get_device_name(0) if args.device == "cuda" else None,
                "made_by": "tools/gpu/cuda_model_vectors.py", "seed": args.seed, "vectors": vectors}
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(vectors)} vectors on {args.device} in {args.out}")


if __name__ == "__main__":
    main()
