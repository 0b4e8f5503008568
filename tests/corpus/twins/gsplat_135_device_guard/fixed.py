import torch

from twins._accel import accel, accel_module


def rasterize(means, height, width):
    if means.device.type == "cpu":
        return _rasterize(means, height, width, means.device)
    with accel_module().device(means.device):  # the device guard
        return _rasterize(means, height, width, torch.device(accel(), accel_module().current_device()))


def _rasterize(means, height, width, device):
    image = torch.zeros(height * width, device=device)
    pixels = (means[:, 1] * (height - 1)).round().long() * width + (means[:, 0] * (width - 1)).round().long()
    image.index_add_(0, pixels, torch.ones_like(means[:, 0]))
    return image.view(height, width)
