"""CUDA's order of ties and torchvision's CUDA nms on vdev:1 (Note [CUDA's sort order], Note
[torchvision's CUDA nms]): the real torch and torchvision give on vdev what real GPUs printed in
public reports where the CPU gives otherwise; a suite's test that compares nms with the CPU fails on
vdev:1 as it fails on a GPU, and passes with the CPU's arithmetic."""

import math
import random

import pytest
from conftest import run_pytest


def bitonic_order(keys, descending):
    """PyTorch's SmallBitonicSort (SortUtils.cuh: 16 threads, 32 slots, bitonicSwap), written again
    here apart from devparity's C++ model: the permutation it leaves."""
    slots = 32
    k = [keys[i] if i < len(keys) else 0 for i in range(slots)]
    v = list(range(slots))
    valid = [i < len(keys) for i in range(slots)]

    def before(a, b):
        if descending:
            return (math.isnan(a) and not math.isnan(b)) or a > b
        return (math.isnan(b) and not math.isnan(a)) or a < b

    def exchange(a, b, direction):
        if ((before(k[a], k[b]) and valid[a]) or not valid[b]) == direction:
            k[a], k[b] = k[b], k[a]
            v[a], v[b] = v[b], v[a]
            valid[a], valid[b] = valid[b], valid[a]

    def sweep(stride, direction_of):
        for t in range(slots // 2):
            pos = 2 * t - (t & (stride - 1))
            exchange(pos, pos + stride, direction_of(t))

    size = 2
    while size < slots:
        stride = size // 2
        while stride:
            sweep(stride, lambda t: (t & (size // 2)) != 0)
            stride //= 2
        size *= 2
    stride = slots // 2
    while stride:
        sweep(stride, lambda t: False)
        stride //= 2
    return v[:len(keys)]


# (keys, the GPU's argsort, the report): real GPUs' outputs where the CPU printed another order.
PUBLIC = [([1, 2, 3, 3, 2, 1], [5, 0, 1, 4, 2, 3], "pytorch/pytorch#103909"),
          ([3, 1, 4, 1, 5, 9, 2, 6, 5], [1, 3, 6, 0, 2, 8, 4, 7, 5], "pytorch/pytorch#120874"),
          ([1.0, 2.0, 5.0, 4.0, 5.0], [0, 1, 3, 4, 2], "pytorch/pytorch#28871")]


@pytest.mark.parametrize("keys, gpu, report", PUBLIC, ids=[p[2] for p in PUBLIC])
def test_argsort_on_vdev_is_the_gpus(vdev, keys, gpu, report):
    import torch

    x = torch.tensor(keys)
    assert torch.argsort(x.to(vdev)).cpu().tolist() == gpu, report
    assert bitonic_order(keys, descending=False) == gpu, report
    assert torch.argsort(x).tolist() != gpu, f"{report}: the CPU's order differs from the GPU's"


def test_small_sorts_follow_the_bitonic_network(vdev):
    import torch

    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(2, 32)
        keys = [float(rng.randint(0, 3)) for _ in range(n)]
        descending = rng.random() < 0.5
        got = torch.sort(torch.tensor(keys).to(vdev), descending=descending)[1].cpu().tolist()
        assert got == bitonic_order(keys, descending), (keys, descending)


def test_topk_of_ties_is_the_gpus(vdev):
    import torch

    # pytorch/pytorch#127196 (2.4.0): the GPU printed indices [2, 0], the CPU [0, 2].
    x = torch.tensor([3, 2, 3, 2, 1, 1])
    assert x.to(vdev).topk(2).indices.cpu().tolist() == [2, 0]


# pytorch/vision#2157 (torch 1.5): three boxes of equal score, IoU over 0.2; the GPU kept box 2.
TIED_BOXES = [[0.3764, 0.0905, 0.6533, 0.4487], [0.3744, 0.0899, 0.6535, 0.4513], [0.3753, 0.0916, 0.6532, 0.4512]]


def test_torchvision_nms_on_vdev_keeps_what_the_gpu_kept(vdev):
    import torch
    import torchvision

    boxes, scores = torch.tensor(TIED_BOXES), torch.ones(3)
    assert torchvision.ops.nms(boxes.to(vdev), scores.to(vdev), 0.2).cpu().tolist() == [2]
    assert torchvision.ops.nms(boxes, scores, 0.2).tolist() == [0]
    # IoU 3/10 rounds to float(0.3), above 0.3: the CPU compares in double and drops box 1, the
    # CUDA kernel's threshold is a float and keeps it.
    boxes, scores = torch.tensor([[0.0, 0.0, 5.0, 1.0], [2.0, 0.0, 10.0, 1.0]]), torch.tensor([0.9, 0.8])
    assert torchvision.ops.nms(boxes, scores, 0.3).tolist() == [0]
    assert torchvision.ops.nms(boxes.to(vdev), scores.to(vdev), 0.3).cpu().tolist() == [0, 1]
    # Without ties or a boundary IoU, both agree.
    boxes = torch.tensor([[0.0, 0.0, 4.0, 4.0], [1.0, 1.0, 5.0, 5.0], [10.0, 10.0, 12.0, 12.0]])
    scores = torch.tensor([0.5, 0.9, 0.7])
    assert torchvision.ops.nms(boxes.to(vdev), scores.to(vdev), 0.1).cpu().tolist() == \
        torchvision.ops.nms(boxes, scores, 0.1).tolist() == [1, 2]


SUITE = """
import torch
import torchvision


def test_nms_matches_the_cpu(devparity_device):
    boxes = torch.tensor({boxes})
    scores = torch.ones(3)
    want = torchvision.ops.nms(boxes, scores, 0.2)
    got = torchvision.ops.nms(boxes.to(devparity_device), scores.to(devparity_device), 0.2)
    assert torch.equal(got.cpu(), want)
"""


def test_a_suites_nms_test_fails_on_vdev_as_on_a_gpu(pytester):
    pytester.makepyfile(test_nms=SUITE.format(boxes=TIED_BOXES))
    run, outcomes = run_pytest(pytester, "--devparity-devices=cpu,vdev:1")
    assert outcomes["test_nms.py::test_nms_matches_the_cpu[cpu]"] == "PASSED", run.stdout[-3000:]
    assert outcomes["test_nms.py::test_nms_matches_the_cpu[vdev:1]"] == "FAILED", run.stdout[-3000:]
    assert "moved values: cuda_nms in 1 op call" in run.stdout, run.stdout[-3000:]
    run, outcomes = run_pytest(pytester, "--devparity-devices=cpu,vdev:1", "--devparity-vdev-arithmetic=cpu")
    assert outcomes["test_nms.py::test_nms_matches_the_cpu[vdev:1]"] == "PASSED", run.stdout[-3000:]


def test_nms_on_vdev_computes_fused_iou(vdev):
    """On box pairs whose IoU crosses the threshold only with devIoU's fused multiply-adds (or only
    without), vdev keeps what the fused arithmetic decides and the CPU's torchvision what rounding
    at each step decides (the pairs tools/gpu/cuda_model_vectors.py gives a GPU to settle)."""
    import os
    import sys

    import torch
    import torchvision

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
    from cuda_model_vectors import fma_split_pairs

    scores = torch.tensor([1.0, 0.5])
    for pair, fused_overlaps in fma_split_pairs(torch.Generator().manual_seed(58), 0.5, 8):
        on_vdev = torchvision.ops.nms(pair.to(vdev), scores.to(vdev), 0.5).cpu()
        on_cpu = torchvision.ops.nms(pair, scores, 0.5)
        assert len(on_vdev) == (1 if fused_overlaps else 2), pair
        assert len(on_cpu) == (2 if fused_overlaps else 1), pair
