#!/usr/bin/env python3
"""Which float32 operation order gives the GPU's warps: an emulation in NumPy, apart from devparity.

torchvision v2's affine, rotate and perspective build a grid with bmm (cuBLAS on CUDA) and sample
it with grid_sample; both round differently on CUDA than on the CPU. For each order of the grid's
products (`fma`: cuBLAS's acc = fma(a_k, b_k, acc) in k order; `plain`: each product rounded, then
summed; `torch`: this machine's torch.bmm on the CPU) and of grid_sample's source coordinate
(`fma`: fma(g + 1, size, -1) / 2; `plain`: rounded product), the script replays every warp vector
of a CUDA golden set (../shared/cuda-goldens, unpacked) and counts those it gives bit for bit.
The bilinear sum is fma(value, weight, acc) corner by corner in every variant. rotate's rot90 fast
paths are left out. Fused multiply-adds are computed in long double (64-bit significand), exact
for float32 operands but for double rounding, which these inputs do not meet.

    python3 tools/cuda_warp_orders.py build/release/tests/cuda_sweep1-*/sweep1

What it printed for the shipped set is in docs/cuda-arithmetic.md ("Checked against a real GPU").
"""

import argparse
import json
import math

import numpy as np
import torch

F32 = np.float32


def fma(a, b, c):
    return (np.asarray(a, np.longdouble) * np.asarray(b, np.longdouble) + np.asarray(c, np.longdouble)).astype(F32)


def inverse_affine(center, angle, translate, scale, shear):
    """torchvision v2's _get_inverse_affine_matrix (inverted), in Python's float64 order."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    cos_sy, tan_sx, rot_minus_sy = math.cos(sy), math.tan(sx), rot - sy
    a = math.cos(rot_minus_sy) / cos_sy
    b = -(a * tan_sx + math.sin(rot))
    c = math.sin(rot_minus_sy) / cos_sy
    d = math.cos(rot) - c * tan_sx
    m = [d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0]
    m[2] += cx - m[0] * (cx + tx) - m[1] * (cy + ty)
    m[5] += cy - m[3] * (cx + tx) - m[4] * (cy + ty)
    return m


def perspective_coeffs(start, end):
    a = torch.zeros(8, 8, dtype=torch.float64)
    for i, (p1, p2) in enumerate(zip(end, start)):
        a[2 * i, :] = torch.tensor([p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]])
        a[2 * i + 1, :] = torch.tensor([0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]])
    b = torch.tensor(start, dtype=torch.float64).view(8)
    return torch.linalg.lstsq(a, b, driver="gels").solution.to(torch.float32).tolist()


def base_grid(ow, oh, centred):
    x = (np.linspace((1.0 - ow) * 0.5, (ow - 1.0) * 0.5, ow) if centred else np.arange(ow) + 0.5).astype(F32)
    y = (np.linspace((1.0 - oh) * 0.5, (oh - 1.0) * 0.5, oh) if centred else np.arange(oh) + 0.5).astype(F32)
    g = np.empty((oh, ow, 3), F32)
    g[..., 0], g[..., 1], g[..., 2] = x[None, :], y[:, None], 1
    return g.reshape(-1, 3)


def bmm(base, theta, order):
    if order == "torch":
        return torch.from_numpy(base)[None].bmm(torch.from_numpy(np.ascontiguousarray(theta))[None])[0].numpy()
    out = np.empty((base.shape[0], theta.shape[1]), F32)
    for j in range(theta.shape[1]):
        if order == "fma":
            acc = np.zeros(base.shape[0], F32)
            for k in range(3):
                acc = fma(base[:, k], theta[k, j], acc)
        else:
            acc = (base[:, 0] * theta[0, j]).astype(F32) + (base[:, 1] * theta[1, j]).astype(F32)
            acc = (acc + (base[:, 2] * theta[2, j]).astype(F32)).astype(F32)
        out[:, j] = acc
    return out


def unnormalize(g, size, order):
    t = (g + F32(1)).astype(F32)
    if order == "fma":
        return (fma(t, F32(size), F32(-1)) / F32(2)).astype(F32)
    return (((t * F32(size)).astype(F32) - F32(1)) / F32(2)).astype(F32)


def grid_sample(img, gx, gy, mode, order):
    n, c, h, w = img.shape
    ix, iy = unnormalize(gx, w, order), unnormalize(gy, h, order)
    if mode == "nearest":
        jx, jy = np.rint(ix).astype(np.int64), np.rint(iy).astype(np.int64)
        inside = (jx >= 0) & (jx < w) & (jy >= 0) & (jy < h)
        return np.where(inside, img[:, :, np.clip(jy, 0, h - 1), np.clip(jx, 0, w - 1)], F32(0)).astype(F32)
    jx, jy = np.floor(ix).astype(np.int64), np.floor(iy).astype(np.int64)
    ax, bx = (jx + 1).astype(F32) - ix, ix - jx.astype(F32)
    ay, by = (jy + 1).astype(F32) - iy, iy - jy.astype(F32)
    acc = np.zeros((n, c) + gx.shape, F32)
    for yy, xx, weight in ((jy, jx, ax * ay), (jy, jx + 1, bx * ay), (jy + 1, jx, ax * by), (jy + 1, jx + 1, bx * by)):
        inside = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
        v = img[:, :, np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)]
        acc = np.where(inside, fma(v, weight.astype(F32), acc), acc).astype(F32)
    return acc


def warp(vec, x, out_shape, grid_order, sampler_order):
    """torchvision v2's program for `vec`, or None for rotate's rot90 fast paths."""
    p, t = vec["params"], vec["transform"]
    n, c, h, w = x.shape
    oh, ow = out_shape[-2:]
    if t == "perspective":
        k = perspective_coeffs(p["startpoints"], p["endpoints"])
        t1 = np.array([k[0:3], k[3:6]], F32)
        t2 = np.array([[k[6], k[7], 1.0], [k[6], k[7], 1.0]], F32)
        base = base_grid(ow, oh, centred=False)
        g1 = bmm(base, (t1.T / np.array([0.5 * ow, 0.5 * oh], F32)).astype(F32), grid_order)
        g = ((g1 / bmm(base, t2.T.copy(), grid_order)).astype(F32) - F32(1)).astype(F32)
    else:
        center = p.get("center")
        cf = [0.0, 0.0] if center is None else [cc - s * 0.5 for cc, s in zip(center, [w, h])]
        if t == "affine":
            m = inverse_affine(cf, p["angle"], [float(v) for v in p["translate"]], p["scale"], p["shear"])
        else:
            angle = p["angle"] % 360
            if center is None and (angle in (0, 180) or ((p.get("expand") or h == w) and angle in (90, 270))):
                return None
            m = inverse_affine(cf, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
        theta = (np.array(m, F32).reshape(2, 3).T / np.array([0.5 * w, 0.5 * h], F32)).astype(F32)
        g = bmm(base_grid(ow, oh, centred=True), theta, grid_order)
    fx = x if x.dtype == F32 else x.astype(F32)
    fill = p.get("fill")
    if fill is not None:
        fx = np.concatenate([fx, np.ones((n, 1, h, w), F32)], 1)
    mode = p.get("interpolation", "nearest")
    out = grid_sample(fx, g[:, 0].reshape(oh, ow), g[:, 1].reshape(oh, ow), mode, sampler_order)
    if fill is not None:
        out, mask = out[:, :-1], out[:, -1:]
        f = np.array(fill if isinstance(fill, list) else [float(fill)], F32).reshape(1, -1, 1, 1)
        if mode == "nearest":
            out = np.where(mask < 0.5, np.broadcast_to(f, out.shape), out).astype(F32)
        else:
            out = (((out - f).astype(F32) * mask).astype(F32) + f).astype(F32)
    return out if x.dtype == F32 else np.rint(out).astype(x.dtype)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("goldens", help="an unpacked CUDA golden set (its manifest.json)")
    args = parser.parse_args()
    manifest = json.load(open(f"{args.goldens}/manifest.json"))
    variants = [(g, s) for g in ("fma", "plain", "torch") for s in ("fma", "plain")]
    exact = {v: 0 for v in variants}
    compared = 0
    for vec in manifest["vectors"]:
        if vec["transform"] not in ("affine", "rotate", "perspective"):
            continue
        x = np.load(f"{args.goldens}/{vec['input']}")
        want = np.load(f"{args.goldens}/{vec['output']}")
        if warp(vec, x, want.shape, "fma", "fma") is None:
            continue
        compared += 1
        for v in variants:
            got = warp(vec, x, want.shape, *v)
            exact[v] += bool(got.shape == want.shape and np.array_equal(np.ascontiguousarray(got).view(np.uint8), np.ascontiguousarray(want).view(np.uint8)))
    print(f"{compared} warp vectors that reach grid_sample (torch {torch.__version__} on the CPU for 'torch')")
    print("| grid products | grid_sample coordinate | bit for bit |")
    print("|---|---|---|")
    for (g, s), n in exact.items():
        print(f"| {g} | {s} | {n} of {compared} |")


if __name__ == "__main__":
    main()
