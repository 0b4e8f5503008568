"""Real torchvision on vdev:1 gives a real GPU's outputs bit for bit: ../shared/cuda-goldens holds
torchvision 0.26's transforms made on an H200 (torch 2.11); vdev computes CUDA's interpolate,
grid_sample and small products (docs/cuda-arithmetic.md). The CPU, with the same code, does not."""

import json
import math
import os
import tarfile

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def goldens(tmp_path_factory):
    shared = os.environ.get("DEVPARITY_SHARED") or os.path.join(HERE, "..", "..", "..", "shared")
    archive = os.path.join(shared, "cuda-goldens", "cuda_sweep1.txz")
    if not os.path.exists(archive):
        if os.environ.get("CI"):
            pytest.fail(f"{archive} is missing: CI must provide ../shared/cuda-goldens")
        pytest.skip(f"{archive} is not beside the clone (DEVPARITY_SHARED elsewhere)")
    out = tmp_path_factory.mktemp("cuda-goldens")
    with tarfile.open(archive) as t:
        t.extractall(out)
    folder = out / "sweep1"
    with open(folder / "manifest.json") as f:
        manifest = json.load(f)
    return folder, manifest["vectors"]


def same_bits(got, want):
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    return got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got.view(np.uint8),
                                                                                 want.view(np.uint8))


def replay(folder, vectors, transforms, device, call):
    """{id: whether torchvision's call on `device` gives the GPU's bits} for the vectors of `transforms`."""
    import torch

    out = {}
    for v in vectors:
        if v["transform"] not in transforms:
            continue
        x = torch.from_numpy(np.load(folder / v["input"])).to(device)
        want = np.load(folder / v["output"])
        out[v["id"]] = any(same_bits(y.cpu().numpy(), want) for y in call(v, x))
    return out


def resize(v, x):
    """torchvision's resize or resized_crop: v1 and v2 compute them alike (float32 through interpolate)."""
    import torchvision.transforms.functional as F
    from torchvision.transforms import InterpolationMode

    p = v["params"]
    kwargs = {"interpolation": InterpolationMode(p["interpolation"]), "antialias": p.get("antialias", True)}
    if v["transform"] == "resize":
        yield F.resize(x, p["size"], **kwargs)
    else:
        yield F.resized_crop(x, p["top"], p["left"], p["height"], p["width"], p["size"], **kwargs)


def residue_choices(k):
    """The perspective coefficients with each whose exact value is 0 (0, or under 1e-12) as 0 or a
    residue of either sign: the host's float64 lstsq (LAPACK) leaves either, and the GPU's host
    (MKL) and this one need not agree (tests/vdev/cuda_goldens_test.cpp says more)."""
    choices = [list(k)]
    for i, c in enumerate(k):
        if abs(c) > 1e-12:
            continue
        group = k[0:3] if i < 3 else k[3:6] if i < 6 else [1.0]
        r = abs(c) if c != 0 else float(np.float32(math.ldexp(max(abs(g) for g in group), -52)))
        choices += [ch[:i] + [alt] + ch[i + 1:] for ch in choices for alt in (0.0, r, -r) if alt != ch[i]]
    return choices


def warp(v, x):
    """torchvision v2's affine, rotate or perspective, as the goldens were made."""
    import torchvision.transforms.functional as F1
    import torchvision.transforms.v2.functional as F
    from torchvision.transforms import InterpolationMode

    p = v["params"]
    interpolation = InterpolationMode(p.get("interpolation", "nearest"))
    fill = p.get("fill")
    if v["transform"] == "affine":
        yield F.affine(x, p["angle"], p["translate"], p["scale"], p["shear"], interpolation=interpolation, fill=fill)
    elif v["transform"] == "rotate":
        yield F.rotate(x, p["angle"], interpolation=interpolation, expand=p.get("expand", False),
                       center=p.get("center"), fill=fill)
    else:
        coefficients = F1._get_perspective_coeffs(p["startpoints"], p["endpoints"])
        for k in residue_choices(coefficients):
            yield F.perspective(x, None, None, interpolation=interpolation, fill=fill, coefficients=k)


def has_v2():
    try:
        import torchvision.transforms.v2.functional as F
    except ImportError:
        return False
    return hasattr(F, "perspective")


def float32_share(outcomes):
    floats = [ok for vid, ok in outcomes.items() if vid.endswith("float32")]
    return sum(floats), len(floats)


def test_torchvisions_resizes_on_vdev_are_the_gpus_bit_for_bit(vdev, goldens):
    folder, vectors = goldens
    outcomes = replay(folder, vectors, ("resize", "resized_crop"), vdev, resize)
    assert len(outcomes) == 316
    assert [vid for vid, ok in outcomes.items() if not ok] == []
    # The twin: the same torchvision calls on the CPU miss most float32 vectors.
    exact, total = float32_share(replay(folder, vectors, ("resize", "resized_crop"), "cpu", resize))
    assert exact < total // 2, (exact, total)


@pytest.mark.skipif(not has_v2(), reason="this torchvision has no transforms.v2, the goldens' code: v1 builds the "
                                         "affine matrix in other float64 arithmetic and blends fills otherwise")
def test_torchvisions_warps_on_vdev_are_the_gpus_bit_for_bit(vdev, goldens):
    folder, vectors = goldens
    outcomes = replay(folder, vectors, ("affine", "rotate", "perspective"), vdev, warp)
    assert len(outcomes) == 288
    assert [vid for vid, ok in outcomes.items() if not ok] == []
    exact, total = float32_share(replay(folder, vectors, ("affine", "rotate", "perspective"), "cpu", warp))
    assert exact < total * 9 // 10, (exact, total)
