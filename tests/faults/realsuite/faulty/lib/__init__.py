import torch


def brighten(x):
    # FAULT: the offset is made on the CPU whatever the input's device.
    return x + torch.ones(x.shape[-1]) * 0.25


def normalize(x):
    return x / x.amax().clamp(min=1e-6)
