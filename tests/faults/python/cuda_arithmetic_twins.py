"""Seeded faults for CUDA's arithmetic on vdev (tests/python/test_cuda_arithmetic.py), each with its
clean twin, written as a library's tests are.

- Points through a batch of homographies by matmul, judged against a float64 reference at
  float32's default tolerance, while the suite allows TF32 matmuls (Kornia's conftest sets
  torch.set_float32_matmul_precision("high")): on a GPU the product reads TF32 inputs and the
  projected points move by ~1e-3 relative; 78 of Kornia's geometry tests failed so on an H100.
  Clean: the tolerance TF32 leaves.
- A custom op (`twins::to_levels`) whose CPU kernel rounds to the nearest level and whose CUDA
  kernel truncates, as a float-to-int cast in a GPU plugin does (DALI's truncating conversion):
  the fault expects the CPU's levels exactly. Clean: within one level.
"""

import torch


def project(points, homographies):
    ones = torch.ones_like(points[..., :1])
    projected = torch.matmul(torch.cat([points, ones], -1), homographies.transpose(-1, -2))
    return projected[..., :2] / projected[..., 2:]


def homography_case(device):
    generator = torch.Generator().manual_seed(0)
    points = torch.rand(4, 64, 2, generator=generator) * 512
    homographies = torch.eye(3) + torch.rand(4, 3, 3, generator=generator) * torch.tensor(
        [[0.1, 0.1, 20.0], [0.1, 0.1, 20.0], [1e-4, 1e-4, 0.0]])
    expected = project(points.double(), homographies.double()).float()
    return project(points.to(device), homographies.to(device)).cpu(), expected


def assert_projection_tight(device):
    got, expected = homography_case(device)
    torch.testing.assert_close(got, expected)  # FAULT: float32's tolerance where the GPU reads TF32


def assert_projection_for_tf32(device):
    got, expected = homography_case(device)
    torch.testing.assert_close(got, expected, rtol=2e-3, atol=1e-2)


def define_to_levels():
    """twins::to_levels(x): x in [0, 1] to 255 levels; the CPU kernel rounds."""
    library = torch.library.Library("twins", "DEF")
    library.define("to_levels(Tensor x) -> Tensor")
    library.impl("to_levels", lambda x: torch.round(x * 255), "CPU")
    return library


def to_levels_cuda(x):
    """The op's CUDA kernel: a float-to-int cast, which truncates."""
    return torch.trunc(x * 255)


def levels_case(device):
    x = torch.linspace(0, 1, 101)
    return torch.ops.twins.to_levels(x.to(device)).cpu(), torch.round(x * 255)


def assert_levels_exact(device):
    got, expected = levels_case(device)
    assert torch.equal(got, expected)  # FAULT: the CPU kernel's rounding where CUDA's truncates


def assert_levels_within_one(device):
    got, expected = levels_case(device)
    assert (got - expected).abs().max() <= 1
