import torch

from twins._accel import accel, accel_module


def rasterize(means, height, width):
    if means.device.type == "cpu":
        device = means.device
    else:
        device = torch.device(accel(), accel_module().current_device())  # the kernel's launch device
    image = torch.zeros(height * width, device=device)
    pixels = (means[:, 1] * (height - 1)).round().long() * width + (means[:, 0] * (width - 1)).round().long()
    image.index_add_(0, pixels, torch.ones_like(means[:, 0]))
    return image.view(height, width)
