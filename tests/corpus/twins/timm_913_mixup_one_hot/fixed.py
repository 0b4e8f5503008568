import torch

from twins._accel import accel


def one_hot(x, num_classes, on_value=1.0, off_value=0.0, device=None):
    device = accel() if device is None else device  # timm: device='cuda'
    x = x.long().view(-1, 1)
    return torch.full((x.size()[0], num_classes), off_value, device=device).scatter_(1, x, on_value)


def mixup_target(target, num_classes, lam=1.0, smoothing=0.0):
    off_value = smoothing / num_classes
    on_value = 1.0 - smoothing + off_value
    y1 = one_hot(target, num_classes, on_value=on_value, off_value=off_value, device=target.device)
    y2 = one_hot(target.flip(0), num_classes, on_value=on_value, off_value=off_value, device=target.device)
    return y1 * lam + y2 * (1.0 - lam)
