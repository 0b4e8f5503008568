#!/usr/bin/env python3
"""Golden vectors from the real torchvision, for the catalog's torchvision transforms.

Runs where torchvision 2.x lives (Debian trixie: torch 2.6, torchvision 0.21),
usually through tools/make_torchvision_goldens.sh. Writes OUT/manifest.json and
one .npy per input and output; tests/transforms/torchvision_goldens_test.cpp
runs each vector's catalog transform on its input and compares.

Each vector names the catalog transform and its parameters, the torchvision
call it mirrors, and how it is compared:
  "exact"        bit for bit, no tie excused;
  "ties"         exact, except +-1 at a rounding tie of the catalog's own value
                 and any difference where nearest sampling met an exact
                 midpoint (the catalog notes both; the test counts them);
  "float"        within atol/rtol, with the reason in the manifest (a nearest
                 pick at a midpoint excused, as for "ties").
Inputs are seeded, of odd sizes, batched (2 images), uint8 and float32; with --dtypes also
float16 and bfloat16 (the float32 draws rounded to them; bfloat16 arrays are stored as float32,
which holds them exactly: "stored_as" in the vector). A call torchvision refuses for a dtype is
listed under "unsupported" in the manifest with its error, not written.

With --sweep N the script writes N vectors of drawn parameters and input
sizes instead (resize, resized_crop, rotate, affine, perspective, pad and the
colour adjustments), for a wider check than the committed set:
  DEVPARITY_GOLDENS_DIR=DIR build/release/tests/devparity_tests --gtest_filter='TorchvisionGoldens*'
"""

import argparse
import json
import os
import sys

import numpy as np
import torch
import torchvision
import torchvision.transforms.v2.functional as F
from torchvision.transforms import InterpolationMode as IM

SHAPE = (2, 3, 11, 13)  # odd sizes, a batch of two
FLOAT_REASON = ("float32 arithmetic in another order than torchvision's (grid, weights, sums): "
                "a few units in the last place")


def make_inputs(shape=SHAPE, seed=20):
    g = torch.Generator().manual_seed(seed)
    u8 = torch.randint(0, 256, shape, generator=g, dtype=torch.uint8)
    f32 = torch.rand(shape, generator=g, dtype=torch.float32)
    made = {"uint8": u8, "float32": f32, "float16": f32.to(torch.float16), "bfloat16": f32.to(torch.bfloat16)}
    return {d: made[d] for d in DTYPES}


def save(path, t):
    """Writes `t` as .npy; returns how it was stored when that is not its dtype (bfloat16 as float32)."""
    if t.dtype == torch.bfloat16:
        np.save(path, t.to(torch.float32).contiguous().numpy())
        return "float32"
    np.save(path, t.contiguous().numpy())
    return None


def float_dtypes():
    return tuple(d for d in DTYPES if d != "uint8")


def sweep(out, count, seed):
    """Drawn parameters on drawn input sizes (see the module's docstring)."""
    import random
    from torchvision.transforms.v2.functional._geometry import _do_native_uint8_resize_on_cpu
    rng = random.Random(seed)
    items = []
    for k in range(count):
        shape = (rng.choice([1, 2]), 3, rng.randint(3, 48), rng.randint(3, 48))
        inputs = make_inputs(shape, seed + k)
        for dtype, x in inputs.items():
            save(os.path.join(out, f"input{k}_{dtype}.npy"), x)
        v = Vectors(out, inputs, input_tag=str(k))
        v.items = items
        h, w = shape[2], shape[3]
        kind = rng.choice(["resize", "resize", "resized_crop", "rotate", "affine", "perspective", "pad", "colour"])
        if kind in ("resize", "resized_crop"):
            mode = rng.choice(["bilinear", "bicubic"])
            im = IM(mode)
            aa = rng.random() < 0.5
            # From 2: LibTorch 2.6's float antialiased kernel gives one value per column
            # for an output width of 1 (a LibTorch bug the catalog does not copy).
            size = [rng.randint(2, 64), rng.randint(2, 64)]
            native = _do_native_uint8_resize_on_cpu(im)
            params = {"size": size, "interpolation": mode, "antialias": aa,
                      "uint8_strategy": "cpu_kernel" if native else "float_round_trip"}
            how = lambda d, native=native: ({"mode": "exact" if native else "ties"} if d == "uint8"
                                            else resize_float_compare(d))
            if kind == "resize":
                v.add("resize", params, f"F.resize(x, {size}, {mode}, antialias={aa})",
                      lambda x: F.resize(x, size, interpolation=im, antialias=aa), compare=how)
            else:
                # Boxes that reach into the image: torchvision's crop slices
                # [top:bottom] unguarded, so a box wholly above or left of the
                # image wraps around (a torchvision bug the catalog does not copy).
                top, left = rng.randint(-2, h - 1), rng.randint(-2, w - 1)
                box = [top, left, rng.randint(max(1, 1 - top), h + 2), rng.randint(max(1, 1 - left), w + 2)]
                params.update({"top": box[0], "left": box[1], "height": box[2], "width": box[3]})
                v.add("resized_crop", params, f"F.resized_crop(x, {box}, {size}, {mode}, antialias={aa})",
                      lambda x: F.resized_crop(x, *box, size, interpolation=im, antialias=aa), compare=how)
        elif kind == "rotate":
            angle = rng.choice([90, -90, 45, -45, 180, rng.uniform(-180, 180)])
            expand = rng.random() < 0.5
            interp = rng.choice(["nearest", "bilinear"])
            center = [rng.randint(0, w - 1), rng.randint(0, h - 1)] if rng.random() < 0.3 else None
            fill = rng.choice([None, 0, 255, [10, 200, 30]])
            for dtype in DTYPES:
                f = fill
                if f is not None and dtype != "uint8":
                    f = [c / 255.0 for c in f] if isinstance(f, list) else f / 255.0
                params = {"angle": angle, "expand": expand, "interpolation": interp}
                if center is not None:
                    params["center"] = center
                if f is not None:
                    params["fill"] = f
                v.add("rotate", params, f"F.rotate(x, {angle}, {interp}, expand={expand}, center={center}, fill={f})",
                      lambda x, f=f: F.rotate(x, angle, interpolation=IM(interp), expand=expand, center=center, fill=f),
                      dtypes=(dtype,), compare=warp_compare)
        elif kind == "affine":
            a = [rng.uniform(-180, 180), [rng.randint(-3, 3), rng.randint(-3, 3)], rng.uniform(0.5, 1.5),
                 [rng.uniform(-30, 30), rng.uniform(-30, 30)]]
            interp = rng.choice(["nearest", "bilinear"])
            v.add("affine", {"angle": a[0], "translate": a[1], "scale": a[2], "shear": a[3], "interpolation": interp},
                  f"F.affine(x, {a}, {interp})", lambda x: F.affine(x, *a, interpolation=IM(interp)),
                  compare=warp_compare)
        elif kind == "perspective":
            start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
            end = [[c[0] + rng.randint(-2, 2), c[1] + rng.randint(-2, 2)] for c in start]
            interp = rng.choice(["nearest", "bilinear"])
            v.add("perspective", {"startpoints": start, "endpoints": end, "interpolation": interp},
                  f"F.perspective(x, {start}, {end}, {interp})",
                  lambda x: F.perspective(x, start, end, interpolation=IM(interp)), compare=warp_compare)
        elif kind == "pad":
            mode = rng.choice(["constant", "edge", "reflect", "symmetric"])
            limit = min(6, min(h, w) - 1) if mode in ("reflect", "symmetric") else 6
            padding = [rng.randint(0, limit) for _ in range(4)]
            v.add("pad", {"padding": padding, "padding_mode": mode}, f"F.pad(x, {padding}, {mode})",
                  lambda x: F.pad(x, padding, padding_mode=mode), compare={"mode": "exact"})
        else:
            name, fn = rng.choice([("adjust_brightness", F.adjust_brightness), ("adjust_contrast", F.adjust_contrast),
                                   ("adjust_saturation", F.adjust_saturation),
                                   ("adjust_sharpness", F.adjust_sharpness)])
            factor = round(rng.uniform(0, 3), 3)
            v.add(name, {"factor": factor}, f"F.{name}(x, {factor})", lambda x: fn(x, factor))
    return items


# Where torchvision runs (--device): the inputs are made on the CPU and moved
# there before each call; the outputs come back. "cpu" writes no "device".
DEVICE = "cpu"
# The dtypes vectors are made in (--dtypes).
DTYPES = ("uint8", "float32")


class Vectors:
    unsupported = []  # calls torchvision refused for a dtype, over all Vectors

    def __init__(self, out, inputs, input_tag=""):
        self.out, self.inputs, self.items, self.input_tag = out, inputs, [], input_tag

    def add(self, transform, params, call, fn, dtypes=None, compare=None, vid=None):
        """fn(image) -> torchvision's output, for `dtypes` (default: all) of DTYPES; compare: per
        dtype, or one for all."""
        for dtype in [d for d in (dtypes or DTYPES) if d in DTYPES]:
            x = self.inputs[dtype]
            try:
                y = fn(x.clone().to(DEVICE)).cpu()
            except Exception as e:  # torchvision (or torch under it) has no kernel for the dtype
                Vectors.unsupported.append({"transform": transform, "torchvision": call, "dtype": dtype,
                                            "error": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"})
                continue
            n = len(self.items)
            name = f"{n:03d}_{vid or transform}_{dtype}"
            stored = save(os.path.join(self.out, name + ".npy"), y)
            how = compare(dtype) if callable(compare) else (compare or default_compare(dtype))
            if dtype in HALF_ULP and how.get("mode") == "float":
                how = half_compare(dtype, how)
            item = {"id": name, "transform": transform, "params": params, "dtype": dtype,
                    "input": f"input{self.input_tag}_{dtype}.npy", "output": name + ".npy",
                    "torchvision": call, "compare": how}
            if stored:
                item["stored_as"] = stored
            if DEVICE != "cpu":
                item["device"] = DEVICE
            self.items.append(item)


# The spacing of values in [0.5, 1) (2^-11 for float16, 2^-8 for bfloat16): the unit half
# precision vectors are compared in.
HALF_ULP = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}


def half_compare(dtype, how):
    # Every torchvision op rounds its output to the half dtype; the catalog rounds where its own
    # ops end, so values may sit a few units apart: 4 units of [0.5, 1) absolute, 4 relative.
    ulp = HALF_ULP[dtype]
    return {"mode": "float", "atol": 4 * ulp, "rtol": 8 * ulp,
            "reason": f"{dtype} rounding after each op in another op order than torchvision's: a few units "
                      f"in the last place (float32 comparison: {how.get('reason', '')})"}


def default_compare(dtype):
    # Integer outputs: exact, ties excused (the catalog notes them); float32:
    # a few ulps, since no catalog transform promises torchvision's float order.
    if dtype == "uint8":
        return {"mode": "ties"}
    return {"mode": "float", "atol": 1e-6, "rtol": 1e-5, "reason": FLOAT_REASON}


def resize_float_compare(dtype):
    return {"mode": "float", "atol": 2e-6, "rtol": 1e-5, "reason": FLOAT_REASON}


def resizes(v):
    # torchvision resizes uint8 natively on the CPU only where it decides to
    # (bicubic always; bilinear on AVX2, not on AVX512 or without AVX2), else
    # through float32 and round: uint8_strategy cpu_kernel, bit for bit, or
    # float_round_trip, exact but for rounding ties.
    from torchvision.transforms.v2.functional._geometry import _do_native_uint8_resize_on_cpu
    modes = {"bilinear": IM.BILINEAR, "bicubic": IM.BICUBIC}
    sizes = [[7, 9], [17, 29], [11, 5], [5, 20], [23, 13]]
    for mode, im in modes.items():
        native = _do_native_uint8_resize_on_cpu(im)
        strategy = "cpu_kernel" if native else "float_round_trip"
        for aa in (False, True):
            for size in sizes:
                v.add("resize", {"size": size, "interpolation": mode, "antialias": aa, "uint8_strategy": strategy},
                      f"F.resize(x, {size}, {mode}, antialias={aa})",
                      lambda x, size=size, im=im, aa=aa: F.resize(x, size, interpolation=im, antialias=aa),
                      compare=lambda d, native=native: {"mode": "exact" if native else "ties"} if d == "uint8"
                      else resize_float_compare(d))
    # LibTorch's uint8 kernel itself (what torchvision calls where native),
    # and align_corners, which is interpolate's, not torchvision's.
    for mode in modes:
        for aa, corners, size in [(False, False, [7, 9]), (True, False, [17, 29]), (False, True, [7, 9]),
                                  (False, True, [17, 29])]:
            def fn(x, size=size, mode=mode, aa=aa, corners=corners):
                return torch.nn.functional.interpolate(x, size=size, mode=mode, antialias=aa, align_corners=corners)
            v.add("resize", {"size": size, "interpolation": mode, "antialias": aa, "align_corners": corners,
                             "uint8_strategy": "cpu_kernel"},
                  f"interpolate(x, {size}, {mode}, antialias={aa}, align_corners={corners})", fn,
                  vid="resize_interpolate",
                  compare=lambda d: {"mode": "exact"} if d == "uint8" else resize_float_compare(d))
    v.add("resize", {"size": [7, 20], "interpolation": "nearest"}, "F.resize(x, [7, 20], nearest)",
          lambda x: F.resize(x, [7, 20], interpolation=IM.NEAREST), compare={"mode": "exact"})
    for top, left, h, w, size, mode, aa in [(2, 1, 8, 9, [13, 6], "bilinear", True),
                                            (-1, 3, 9, 7, [19, 15], "bicubic", False)]:
        native = _do_native_uint8_resize_on_cpu(modes[mode])
        v.add("resized_crop", {"top": top, "left": left, "height": h, "width": w, "size": size,
                               "interpolation": mode, "antialias": aa,
                               "uint8_strategy": "cpu_kernel" if native else "float_round_trip"},
              f"F.resized_crop(x, {top}, {left}, {h}, {w}, {size}, {mode}, antialias={aa})",
              lambda x, a=(top, left, h, w, size), m=modes[mode], aa=aa:
                  F.resized_crop(x, *a, interpolation=m, antialias=aa),
              compare=lambda d, native=native: {"mode": "exact" if native else "ties"} if d == "uint8"
              else resize_float_compare(d))


def warp_compare(dtype):
    # grid_sample's coordinates in float32 in another order: nearest picks
    # differ only at exact midpoints (noted, excused), bilinear by ulps.
    if dtype == "uint8":
        return {"mode": "ties"}
    return {"mode": "float", "atol": 1e-5, "rtol": 1e-5,
            "reason": "sampling coordinates in float32, computed in another order than torchvision's affine "
                      "grid: bilinear weights differ in the last bits"}


def warps(v):
    for angle, expand, interp, fill, center in [(90, False, "nearest", None, None),
                                                (-45, False, "nearest", None, [6, 5]),
                                                (30, True, "bilinear", [10, 200, 30], None),
                                                (-45, True, "bilinear", 7, None)]:
        params = {"angle": angle, "expand": expand, "interpolation": interp}
        if center is not None:
            params["center"] = center

        def fn(x, angle=angle, expand=expand, interp=interp, fill=fill, center=center):
            f = fill
            if f is not None and x.is_floating_point():
                f = [c / 255.0 for c in f] if isinstance(f, list) else f / 255.0
            return F.rotate(x, angle, interpolation=IM(interp), expand=expand, center=center, fill=f)

        # Fills are given in the dtype's units: the float32 vector uses fill / 255.
        for dtype in DTYPES:
            p = dict(params)
            if fill is not None:
                p["fill"] = fill
                if dtype != "uint8":
                    p["fill"] = [c / 255.0 for c in fill] if isinstance(fill, list) else fill / 255.0
            v.add("rotate", p, f"F.rotate(x, {angle}, {interp}, expand={expand}, center={center}, fill={fill})",
                  fn, dtypes=(dtype,), compare=warp_compare)
    for angle, translate, scale, shear, interp in [(30, [1, -2], 0.9, [5, 10], "bilinear"),
                                                   (-90, [0, 0], 1.0, [0, 0], "nearest"),
                                                   (12.5, [2, 1], 1.2, [-20, 0], "nearest")]:
        v.add("affine", {"angle": angle, "translate": translate, "scale": scale, "shear": shear,
                         "interpolation": interp},
              f"F.affine(x, {angle}, {translate}, {scale}, {shear}, {interp})",
              lambda x, a=angle, t=translate, s=scale, sh=shear, i=interp:
                  F.affine(x, a, t, s, sh, interpolation=IM(i)), compare=warp_compare)
    corners = [[0, 0], [12, 0], [12, 10], [0, 10]]
    for end, interp in [([[1, 1], [11, 0], [12, 9], [2, 10]], "bilinear"),
                        ([[2, 0], [10, 2], [12, 10], [0, 8]], "nearest")]:
        v.add("perspective", {"startpoints": corners, "endpoints": end, "interpolation": interp},
              f"F.perspective(x, {corners}, {end}, {interp})",
              lambda x, e=end, i=interp: F.perspective(x, corners, e, interpolation=IM(i)),
              compare=warp_compare)


def pads_and_crops(v):
    for padding, mode in [([3], "constant"), ([2, 1], "edge"), ([1, 2, 3, 4], "reflect"),
                          ([4, 0, 2, 5], "symmetric")]:
        p = padding[0] if len(padding) == 1 else padding
        params = {"padding": p, "padding_mode": mode}
        fill = 0
        if mode == "constant":
            params["fill"] = fill = 9
        v.add("pad", params, f"F.pad(x, {padding}, fill={fill}, padding_mode={mode})",
              lambda x, padding=padding, mode=mode, fill=fill: F.pad(x, padding, fill=fill, padding_mode=mode),
              compare={"mode": "exact"})
    v.add("crop", {"top": -2, "left": 3, "height": 9, "width": 14}, "F.crop(x, -2, 3, 9, 14)",
          lambda x: F.crop(x, -2, 3, 9, 14), compare={"mode": "exact"})
    for size in ([5, 8], [15, 16]):
        v.add("center_crop", {"size": size}, f"F.center_crop(x, {size})",
              lambda x, size=size: F.center_crop(x, size), compare={"mode": "exact"})
    v.add("hflip", {}, "F.horizontal_flip(x)", F.horizontal_flip, compare={"mode": "exact"})
    v.add("vflip", {}, "F.vertical_flip(x)", F.vertical_flip, compare={"mode": "exact"})


def colours(v):
    for factor in (0.4, 1.7):
        v.add("adjust_brightness", {"factor": factor}, f"F.adjust_brightness(x, {factor})",
              lambda x, f=factor: F.adjust_brightness(x, f))
        v.add("adjust_contrast", {"factor": factor}, f"F.adjust_contrast(x, {factor})",
              lambda x, f=factor: F.adjust_contrast(x, f))
        v.add("adjust_saturation", {"factor": factor}, f"F.adjust_saturation(x, {factor})",
              lambda x, f=factor: F.adjust_saturation(x, f))
        v.add("adjust_sharpness", {"factor": factor}, f"F.adjust_sharpness(x, {factor})",
              lambda x, f=factor: F.adjust_sharpness(x, f))
    for factor in (-0.3, 0.12):
        v.add("adjust_hue", {"factor": factor}, f"F.adjust_hue(x, {factor})",
              lambda x, f=factor: F.adjust_hue(x, f),
              compare=lambda d: {"mode": "ties"} if d == "uint8" else {
                  "mode": "float", "atol": 1e-5, "rtol": 0,
                  "reason": "HSV round trip in float32 (hue in turns, fmod, sextant): another operation "
                            "order than torchvision's"})
    for gamma, gain in ((0.5, 1.0), (2.2, 1.3)):
        v.add("adjust_gamma", {"gamma": gamma, "gain": gain}, f"F.adjust_gamma(x, {gamma}, {gain})",
              lambda x, g=gamma, k=gain: F.adjust_gamma(x, g, k))
    v.add("autocontrast", {}, "F.autocontrast(x)", F.autocontrast)
    v.add("equalize", {}, "F.equalize(x)", F.equalize)
    v.add("invert", {}, "F.invert(x)", F.invert, compare={"mode": "exact"})
    for bits in (2, 5):
        v.add("posterize", {"bits": bits}, f"F.posterize(x, {bits})", lambda x, b=bits: F.posterize(x, b),
              compare={"mode": "exact"})
    for threshold in (0.5, 0.25):
        v.add("solarize", {"threshold": threshold}, f"F.solarize(x, {threshold} * bound)",
              lambda x, t=threshold: F.solarize(x, t * (1.0 if x.is_floating_point() else 255.0)),
              compare={"mode": "exact"})
    for channels in (1, 3):
        v.add("rgb_to_grayscale", {"num_output_channels": channels}, f"F.rgb_to_grayscale(x, {channels})",
              lambda x, c=channels: F.rgb_to_grayscale(x, c))
    v.add("normalize", {"mean": [0.5, 0.4, 0.3], "std": [0.2, 0.25, 0.3]}, "F.normalize(x, mean, std)",
          lambda x: F.normalize(x, [0.5, 0.4, 0.3], [0.2, 0.25, 0.3]), dtypes=float_dtypes())
    v.add("normalize", {"mean": 0.5, "std": 0.25}, "F.normalize(x, [0.5] * 3, [0.25] * 3)",
          lambda x: F.normalize(x, [0.5] * 3, [0.25] * 3), dtypes=float_dtypes(), vid="normalize_scalar")
    v.add("to_dtype", {"dtype": "float32", "scale": True}, "F.to_dtype(x, float32, scale=True)",
          lambda x: F.to_dtype(x, torch.float32, scale=True), dtypes=("uint8",),
          compare={"mode": "exact"})
    v.add("to_dtype", {"dtype": "uint8", "scale": True}, "F.to_dtype(x, uint8, scale=True)",
          lambda x: F.to_dtype(x, torch.uint8, scale=True), dtypes=float_dtypes(),
          compare={"mode": "exact"})
    order = [2, 0, 3, 1]
    factors = {"brightness": 1.2, "contrast": 0.7, "saturation": 1.4, "hue": -0.1}

    def jitter(x):
        fns = [lambda y: F.adjust_brightness(y, factors["brightness"]),
               lambda y: F.adjust_contrast(y, factors["contrast"]),
               lambda y: F.adjust_saturation(y, factors["saturation"]),
               lambda y: F.adjust_hue(y, factors["hue"])]
        for i in order:
            x = fns[i](x)
        return x
    v.add("color_jitter", {"brightness": 0.5, "contrast": 0.5, "saturation": 0.5, "hue": 0.2,
                           "order": order, "factors": factors},
          "ColorJitter's adjust_* calls in order [2, 0, 3, 1]", jitter,
          compare=lambda d: {"mode": "ties"} if d == "uint8" else {
              "mode": "float", "atol": 1e-5, "rtol": 0,
              "reason": "four float32 stages, the HSV round trip among them, in another operation order"})
    v.add("erasing", {"box": [2, 3, 5, 6], "value": 0}, "F.erase(x, 2, 3, 5, 6, 0)",
          lambda x: F.erase(x, 2, 3, 5, 6, torch.zeros((), dtype=x.dtype)), compare={"mode": "exact"})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="directory for manifest.json and the .npy files")
    ap.add_argument("--sweep", type=int, default=0, metavar="N", help="N vectors of drawn parameters instead")
    ap.add_argument("--seed", type=int, default=1, help="the sweep's seed")
    ap.add_argument("--device", default="cpu", help="where torchvision runs (cuda: ../shared/cuda-goldens)")
    ap.add_argument("--dtypes", default="uint8,float32", help="of uint8, float32, float16, bfloat16")
    args = ap.parse_args()
    global DEVICE, DTYPES
    DEVICE = args.device
    DTYPES = tuple(args.dtypes.split(","))
    if not DTYPES or any(d not in ("uint8", "float32", "float16", "bfloat16") for d in DTYPES):
        ap.error(f"--dtypes: {args.dtypes!r}: give names among uint8, float32, float16, bfloat16")
    os.makedirs(args.out, exist_ok=True)
    for old in os.listdir(args.out):
        if old.endswith(".npy") or old == "manifest.json":
            os.remove(os.path.join(args.out, old))
    if args.sweep:
        items = sweep(args.out, args.sweep, args.seed)
    else:
        inputs = make_inputs()
        for dtype, x in inputs.items():
            save(os.path.join(args.out, f"input_{dtype}.npy"), x)
        v = Vectors(args.out, inputs)
        resizes(v)
        warps(v)
        pads_and_crops(v)
        colours(v)
        items = v.items
    manifest = {"torch": torch.__version__, "torchvision": torchvision.__version__,
                "cpu_capability": torch.backends.cpu.get_cpu_capability(),
                "made_by": "tools/torchvision_goldens.py", "dtypes": list(DTYPES), "vectors": items,
                "unsupported": Vectors.unsupported}
    if DEVICE.startswith("cuda"):
        manifest["gpu"] = torch.cuda.get_device_name(0)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(items)} vectors ({len(Vectors.unsupported)} calls unsupported) from torch {torch.__version__}, torchvision {torchvision.__version__} "
          f"({manifest['cpu_capability']}) in {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
