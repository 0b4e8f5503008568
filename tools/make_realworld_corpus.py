#!/usr/bin/python3
"""Generates the real-world TorchScript corpus devparity's precision tests audit.

Two parts, written to tests/realworld/torchvision/:

  * torchvision's own scriptable transforms, scripted from Debian's
    python3-torchvision as they are (random ones included). Code nobody here
    wrote: on cpu, meta, vdev:0 and vdev:1 devparity must report no error
    finding for any of them.
  * seeded-fault twins written in torchvision's style (a module with
    get_params and a functional helper), each next to its clean twin:
      channel_gain_unregistered   the gain table is a plain attribute, not a
                                  buffer: .to() leaves it behind (weighted_brightness
                                  keeps odds that way too, but reads them on the
                                  host only: no finding)
      vignette_deviceless         the falloff is built by torch.linspace with
                                  no device and multiplies the image
      batch_brightness_unmoved    per-image factors of shape (B, 1, 1, 1)
                                  sampled on the CPU and never moved
      grid_shift_device_type      a ramp made on torch.device(img.device.type):
                                  the device without its index
      sequential_unmoved          an nn.Sequential holding the unmoved twin

It also writes the suites that run them: tests/realworld/torchvision.json
(the real transforms) and tests/realworld/torchvision_twins.json (the twins).

Run with Debian's interpreter, which has python3-torch and python3-torchvision:
  /usr/bin/python3 tools/make_realworld_corpus.py
The .pt files and suites are committed; tests and CI only load them.
"""

import json
import os
import warnings
from typing import List

import repository_source
import torch
from torch import Tensor


# ---------------------------------------------------------------------------
# Twins, in torchvision's style.


def _apply_gain(img: Tensor, gains: Tensor) -> Tensor:
    return img * gains.to(img.dtype).view(1, -1, 1, 1)


class ChannelGain(torch.nn.Module):
    """Scales each channel by a fixed table, kept as a registered buffer."""

    def __init__(self):
        super().__init__()
        self.register_buffer("gains", torch.tensor([0.9, 1.0, 1.1]))

    def forward(self, img: Tensor) -> Tensor:
        return _apply_gain(img, self.gains)


class ChannelGainUnregistered(torch.nn.Module):
    """The same table as a plain attribute: Module.to() leaves it behind."""

    def __init__(self):
        super().__init__()
        self.gains = torch.tensor([0.9, 1.0, 1.1])

    def forward(self, img: Tensor) -> Tensor:
        return _apply_gain(img, self.gains)


class WeightedBrightness(torch.nn.Module):
    """Picks one of a few brightness factors with fixed odds. The odds are a
    plain attribute, but only sampled on the host: correct code."""

    def __init__(self):
        super().__init__()
        self.odds = torch.tensor([0.2, 0.5, 0.3])
        self.factors = [0.8, 1.0, 1.2]

    def forward(self, img: Tensor) -> Tensor:
        pick = int(torch.multinomial(self.odds, 1).item())
        return img * self.factors[pick]


def _falloff(width: int, strength: float, like: Tensor) -> Tensor:
    ramp = torch.linspace(-1.0, 1.0, width, device=like.device, dtype=like.dtype)
    return 1.0 - strength * ramp * ramp


def _falloff_deviceless(width: int, strength: float, like: Tensor) -> Tensor:
    ramp = torch.linspace(-1.0, 1.0, width)  # no device: lands on the CPU
    return (1.0 - strength * ramp * ramp).to(like.dtype)


class RandomVignette(torch.nn.Module):
    """Darkens the left and right borders by a random strength."""

    def __init__(self, strength=(0.1, 0.5)):
        super().__init__()
        self.strength = strength

    @staticmethod
    def get_params(strength: List[float]) -> float:
        return float(torch.empty(1).uniform_(strength[0], strength[1]).item())

    def forward(self, img: Tensor) -> Tensor:
        s = self.get_params([float(self.strength[0]), float(self.strength[1])])
        return img * _falloff(img.shape[-1], s, img)


class RandomVignetteDeviceless(RandomVignette):
    def forward(self, img: Tensor) -> Tensor:
        s = self.get_params([float(self.strength[0]), float(self.strength[1])])
        return img * _falloff_deviceless(img.shape[-1], s, img)


class RandomBatchBrightness(torch.nn.Module):
    """Scales every image of the batch by its own random factor."""

    def __init__(self, low: float = 0.6, high: float = 1.4):
        super().__init__()
        self.low = low
        self.high = high

    @staticmethod
    def get_params(batch: int, low: float, high: float) -> Tensor:
        # Sampled on the CPU, as the docs promise, for reproducibility.
        return torch.empty(batch, 1, 1, 1, device=torch.device("cpu")).uniform_(low, high)

    def forward(self, img: Tensor) -> Tensor:
        factors = self.get_params(img.shape[0], self.low, self.high)
        return img * factors.to(img.device, img.dtype)


class RandomBatchBrightnessUnmoved(RandomBatchBrightness):
    def forward(self, img: Tensor) -> Tensor:
        factors = self.get_params(img.shape[0], self.low, self.high)
        return img * factors  # never moved to the image's device


class GridShift(torch.nn.Module):
    """Adds a small horizontal ramp, made on the image's device."""

    def forward(self, img: Tensor) -> Tensor:
        ramp = torch.arange(img.shape[-1], device=img.device, dtype=img.dtype)
        return img + 0.001 * ramp


class GridShiftDeviceType(torch.nn.Module):
    """The ramp made on the image's device type: its index is lost, so on
    cuda:1 (vdev:1) it lands on the current device, index 0."""

    def forward(self, img: Tensor) -> Tensor:
        ramp = torch.arange(img.shape[-1], device=torch.device(img.device.type), dtype=img.dtype)
        return img + 0.001 * ramp


SOURCE = "tools/make_realworld_corpus.py"


def relative_definitions():
    """This file's classes, compiled as tools/make_realworld_corpus.py (repository_source.py)."""
    return repository_source.definitions(SOURCE)


# ---------------------------------------------------------------------------
# The corpus.

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
FLOAT = ["float32"]
BOTH = ["uint8", "float32"]
UINT8 = ["uint8"]


def torchvision_modules():
    """name -> (what it is, module, dtypes)."""
    import torchvision
    import torchvision.transforms as T

    v = torchvision.__version__
    return v, {
        "gaussian_blur": ("GaussianBlur(5, sigma=(0.1, 2.0))", T.GaussianBlur(5, sigma=(0.1, 2.0)), BOTH),
        "color_jitter": ("ColorJitter(0.4, 0.4, 0.4, 0.1)", T.ColorJitter(0.4, 0.4, 0.4, 0.1), BOTH),
        "normalize": ("Normalize(ImageNet mean, std)", T.Normalize(MEAN, STD), FLOAT),
        "random_erasing": ("RandomErasing(p=1, value=0)", T.RandomErasing(p=1.0, value=0.0), FLOAT),
        "random_erasing_noise": ("RandomErasing(p=1, value='random')", T.RandomErasing(p=1.0, value="random"), FLOAT),
        "random_affine": ("RandomAffine(30, translate, scale, shear)",
                          T.RandomAffine(30, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=10), BOTH),
        "random_rotation": ("RandomRotation(30)", T.RandomRotation(30), BOTH),
        "random_perspective": ("RandomPerspective(p=1)", T.RandomPerspective(p=1.0), BOTH),
        "random_adjust_sharpness": ("RandomAdjustSharpness(2, p=1)", T.RandomAdjustSharpness(2.0, p=1.0), BOTH),
        "random_autocontrast": ("RandomAutocontrast(p=1)", T.RandomAutocontrast(p=1.0), BOTH),
        "random_equalize": ("RandomEqualize(p=1)", T.RandomEqualize(p=1.0), UINT8),
        "random_posterize": ("RandomPosterize(4, p=1)", T.RandomPosterize(4, p=1.0), UINT8),
        "random_solarize": ("RandomSolarize(0.5, p=1)", T.RandomSolarize(0.5, p=1.0), FLOAT),
        "random_invert": ("RandomInvert(p=1)", T.RandomInvert(p=1.0), BOTH),
        "random_grayscale": ("RandomGrayscale(p=1)", T.RandomGrayscale(p=1.0), BOTH),
        "random_horizontal_flip": ("RandomHorizontalFlip(p=0.5)", T.RandomHorizontalFlip(p=0.5), BOTH),
        "resize": ("Resize([24, 30], antialias=False)", T.Resize([24, 30], antialias=False), BOTH),
        "center_crop": ("CenterCrop(20)", T.CenterCrop(20), BOTH),
        "random_resized_crop": ("RandomResizedCrop(24)", T.RandomResizedCrop(24), FLOAT),
        "random_crop": ("RandomCrop(28, padding=2, reflect)",
                        T.RandomCrop(28, padding=[2], padding_mode="reflect"), BOTH),
        "pad": ("Pad([2, 3], edge)", T.Pad([2, 3], padding_mode="edge"), BOTH),
        "random_vertical_flip": ("RandomVerticalFlip(p=0.5)", T.RandomVerticalFlip(p=0.5), BOTH),
        "random_apply": ("RandomApply([ColorJitter(0.3, 0.3)], p=0.5)",
                         T.RandomApply(torch.nn.ModuleList([T.ColorJitter(0.3, 0.3)]), p=0.5), FLOAT),
        "augmix": ("AugMix()", T.AugMix(), UINT8),
        "convert_image_dtype": ("ConvertImageDtype(float32)", T.ConvertImageDtype(torch.float32), UINT8),
        "auto_augment": ("AutoAugment(IMAGENET)", T.AutoAugment(), UINT8),
        "rand_augment": ("RandAugment()", T.RandAugment(), UINT8),
        "trivial_augment_wide": ("TrivialAugmentWide()", T.TrivialAugmentWide(), UINT8),
        "sequential": ("Sequential(RandomResizedCrop, RandomHorizontalFlip, ColorJitter, Normalize)",
                       torch.nn.Sequential(T.RandomResizedCrop(24), T.RandomHorizontalFlip(),
                                           T.ColorJitter(0.2, 0.2, 0.2), T.Normalize(MEAN, STD)), FLOAT),
    }


def twin_modules(m):
    """name -> (what it is, module, dtypes)."""
    return {
        "channel_gain": ("a gain table kept as a buffer", m.ChannelGain(), FLOAT),
        "channel_gain_unregistered": ("the gain table kept as a plain attribute", m.ChannelGainUnregistered(), FLOAT),
        "weighted_brightness": ("odds kept as a plain attribute but only sampled on the host",
                                m.WeightedBrightness(), FLOAT),
        "vignette": ("a falloff made on the image's device", m.RandomVignette(), FLOAT),
        "vignette_deviceless": ("the falloff made by linspace with no device", m.RandomVignetteDeviceless(), FLOAT),
        "batch_brightness": ("per-image factors sampled on the CPU, moved before use", m.RandomBatchBrightness(), FLOAT),
        "batch_brightness_unmoved": ("the (B, 1, 1, 1) factors never moved", m.RandomBatchBrightnessUnmoved(), FLOAT),
        "grid_shift": ("a ramp made on the image's device", m.GridShift(), FLOAT),
        "grid_shift_device_type": ("the ramp made on the device type, without its index", m.GridShiftDeviceType(), FLOAT),
        "sequential_unmoved": ("nn.Sequential(ChannelGain, RandomBatchBrightnessUnmoved): findings name the "
                               "faulty line, not torch's container", torch.nn.Sequential(m.ChannelGain(), m.RandomBatchBrightnessUnmoved()),
                               FLOAT),
    }


# Tolerances a case states, by case name: what a correct device may differ by, and why.
PARITY = {
    "resize": {"uint8": {
        "mismatch_fraction": 0.05,
        "outlier_atol": 1,
        "reason": "torchvision 0.14 resizes uint8 through float32 and rounds, on every device; CUDA's float32 "
                  "kernel fuses multiply-adds where the CPU's rounds each product (Note [CUDA's float resize]), so "
                  "a value within float32's rounding of .5 rounds the other way: +-1 at scattered pixels (2.5% of "
                  "this input under vdev's model of CUDA), never more",
    }},
}


def write_suite(path, name, description, entries, folder):
    cases = []
    for case, (what, _, dtypes) in entries.items():
        cases.append({
            "name": case,
            "description": what,
            "subject": {"torchscript": f"{folder}/{case}.pt", "dtypes": dtypes},
            "inputs": [{"pattern": "noise", "shape": [2, 3, 32, 40]}],
        })
        if case in PARITY:
            cases[-1]["checks"] = {"parity": PARITY[case]}
    suite = {
        "$schema": "../../cases/schema/case.schema.json",
        "suite": name,
        "description": description,
        "cases": cases,
    }
    with open(path, "w") as f:
        json.dump(suite, f, indent=2)
        f.write("\n")


def save(entries, out):
    for name, (_, module, _) in entries.items():
        path = os.path.join(out, name + ".pt")
        torch.jit.save(torch.jit.script(module.eval()), path)
        print(f"{path}: {os.path.getsize(path)} bytes")


def main():
    warnings.simplefilter("ignore")  # torchvision's deprecation notes
    m = relative_definitions()
    folder = "torchvision"
    out = os.path.join("tests", "realworld", folder)
    os.makedirs(out, exist_ok=True)
    version, real = torchvision_modules()
    twins = twin_modules(m)
    save(real, out)
    save(twins, out)
    write_suite(os.path.join("tests", "realworld", "torchvision.json"), "torchvision",
                f"torchvision {version}'s own scriptable transforms (Debian's python3-torchvision, "
                f"torch {torch.__version__}), scripted as they are by tools/make_realworld_corpus.py. "
                "Code devparity did not write: no error finding on any device.",
                real, folder)
    write_suite(os.path.join("tests", "realworld", "torchvision_twins.json"), "torchvision_twins",
                "Seeded-fault twins in torchvision's style, each next to its clean twin "
                "(tools/make_realworld_corpus.py).",
                twins, folder)


if __name__ == "__main__" and not globals().get("DEFINITIONS_ONLY"):
    main()
