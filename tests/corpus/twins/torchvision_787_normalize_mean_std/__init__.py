"""torchvision #787 (PyTorch #19028): `normalize()` built its mean and std with `torch.tensor(mean)`,
on the default device, so normalizing a CUDA tensor failed in `sub_`. Fixed in #787 by making them
on the tensor's device."""

from twins._accel import image

BUG = {"id": "torchvision-787", "project": "torchvision", "issue": "https://github.com/pytorch/pytorch/issues/19028",
       "fix": "https://github.com/pytorch/vision/pull/787", "file": "torchvision/transforms/functional.py",
       "title": "normalize() makes mean and std with no device",
       "class": "device-less factory meeting the input", "apis": ["audit", "trace"],
       "expect": ["implicit_device_factory"]}


def subject(lib):
    return (lambda x: lib.normalize(x, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])), [image("cpu")], {}


def scenario(lib, device):
    out = lib.normalize(image(device), [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    return out
