#!/usr/bin/python3
"""Generates the TorchScript fixtures devparity's tests audit.

Each fixture is a small scripted module saved with torch.jit.save; faulty
ones carry one real device bug, and each has a clean twin:

  gain_clean            per-channel gain, the table a registered buffer
  gain_unregistered     the table a plain tensor attribute: Module.to() leaves it
                        behind (unregistered_tensor_state; fails on meta/cuda:N)
  gain_cpu_output       returns its result with .cpu() (wrong_device_output)
  ramp_clean            a horizontal ramp made with device=x.device
  ramp_arange           the ramp made by torch.arange / torch.linspace without
                        a device in a helper two calls below forward
                        (implicit_device_factory)
  normalize_clean       divides by the per-image maximum, on the device
  normalize_item        divides by x.amax().item() (host_sync; fails on meta)
  halve_clean           uint8 halving through a float round trip on every device
  halve_device_branch   native integer halving on the CPU, the float round trip
                        elsewhere: ±1 between devices (device_dependent_code)
  blend                 forward(x, other: Tensor, alpha: float): extra arguments
  jpeg_op               calls the example plugin's custom operator
                        devparity_example::encode_jpeg (needs --plugin)
  jpeg_op_truncated     the same, with the last two bytes (EOI) cut off

Run with Debian's interpreter, which has python3-torch (1.13):
  /usr/bin/python3 tools/make_torchscript_fixtures.py \
      --out tests/fixtures/torchscript \
      --plugin build/release/examples/plugin/libdevparity_example_plugin.so
The .pt files are committed; tests and CI only load them.
"""

import argparse
import os
from typing import List

import repository_source
import torch


class GainClean(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("gain", torch.tensor([0.9, 1.0, 1.1]))

    def forward(self, x):
        return x * self.gain.to(x.dtype).view(1, 3, 1, 1)


class GainUnregistered(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gain = torch.tensor([0.9, 1.0, 1.1])  # not a buffer: to() ignores it

    def forward(self, x):
        return x * self.gain.to(x.dtype).view(1, 3, 1, 1)


class GainCpuOutput(GainClean):
    def forward(self, x):
        return (x * self.gain.to(x.dtype).view(1, 3, 1, 1)).cpu()


def ramp_on(width: int, like: torch.Tensor) -> torch.Tensor:
    return torch.arange(width, device=like.device, dtype=like.dtype) / max(width - 1, 1)


class RampClean(torch.nn.Module):
    def forward(self, x):
        return x * ramp_on(x.shape[-1], x)


def ramp_values(width: int) -> torch.Tensor:
    steps = torch.arange(width)  # no device: lands on the CPU
    scale = torch.linspace(0.0, 1.0, width)  # nor here
    return steps * 0.0 + scale


def ramp_helper(width: int, like: torch.Tensor) -> torch.Tensor:
    return ramp_values(width).to(like.dtype)


class RampArange(torch.nn.Module):
    def forward(self, x):
        return x * ramp_helper(x.shape[-1], x)


class NormalizeClean(torch.nn.Module):
    def forward(self, x):
        peak = x.amax(dim=(1, 2, 3), keepdim=True).clamp_min(1e-6)
        return x / peak


class NormalizeItem(torch.nn.Module):
    def forward(self, x):
        peak = max(x.amax().item(), 1e-6)  # a host sync per call
        return x / peak


class HalveClean(torch.nn.Module):
    def forward(self, x):
        if x.dtype == torch.uint8:
            return (x.float() * 0.5).round().to(torch.uint8)
        return x * 0.5


class HalveDeviceBranch(torch.nn.Module):
    def forward(self, x):
        if x.dtype == torch.uint8:
            # torchvision's resize pattern: native uint8 on the CPU, a float
            # round trip elsewhere; odd values differ by one.
            if x.device.type == "cpu":
                return x // 2
            return (x.float() * 0.5).round().to(torch.uint8)
        return x * 0.5


class Blend(torch.nn.Module):
    def forward(self, x, other: torch.Tensor, alpha: float):
        return x * (1.0 - alpha) + other * alpha


class JpegOp(torch.nn.Module):
    def forward(self, x, quality: int):
        files: List[torch.Tensor] = []
        for i in range(x.shape[0]):
            files.append(torch.ops.devparity_example.encode_jpeg(x[i], quality))
        return torch.cat(files)


class JpegOpTruncated(torch.nn.Module):
    def forward(self, x, quality: int):
        out = torch.ops.devparity_example.encode_jpeg(x[0], quality)
        return out[: out.shape[0] - 2]


SOURCE = "tools/make_torchscript_fixtures.py"


def relative_definitions():
    """This file's classes, compiled as tools/make_torchscript_fixtures.py (repository_source.py)."""
    return repository_source.definitions(SOURCE)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory for the .pt files")
    parser.add_argument("--plugin", help="libdevparity_example_plugin.so, for the jpeg_op fixtures")
    args = parser.parse_args()
    args.out = os.path.abspath(args.out)
    if args.plugin:
        args.plugin = os.path.abspath(args.plugin)
    os.makedirs(args.out, exist_ok=True)
    m = relative_definitions()
    modules = {
        "gain_clean": m.GainClean(),
        "gain_unregistered": m.GainUnregistered(),
        "gain_cpu_output": m.GainCpuOutput(),
        "ramp_clean": m.RampClean(),
        "ramp_arange": m.RampArange(),
        "normalize_clean": m.NormalizeClean(),
        "normalize_item": m.NormalizeItem(),
        "halve_clean": m.HalveClean(),
        "halve_device_branch": m.HalveDeviceBranch(),
        "blend": m.Blend(),
    }
    if args.plugin:
        torch.ops.load_library(args.plugin)
        modules["jpeg_op"] = m.JpegOp()
        modules["jpeg_op_truncated"] = m.JpegOpTruncated()
    else:
        print("no --plugin: jpeg_op fixtures not generated")
    for name, module in modules.items():
        path = os.path.join(args.out, name + ".pt")
        torch.jit.save(torch.jit.script(module.eval()), path)
        print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__" and not globals().get("DEFINITIONS_ONLY"):
    main()
