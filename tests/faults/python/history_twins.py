"""A clean callable and its faulty twin for tests/python/test_process_history.py: defined in a module
so that they pickle (an isolated audit's worker is a fresh interpreter where PyTorch refuses autograd
in forks of the process)."""

import torch


class CpuGradScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 0.5

    @staticmethod
    def backward(ctx, grad):
        return grad * torch.full(grad.shape, 0.5)  # a device-less factory in backward: a CPU tensor


def clean(x):
    return x * 0.5


def faulty(x):
    return CpuGradScale.apply(x)
