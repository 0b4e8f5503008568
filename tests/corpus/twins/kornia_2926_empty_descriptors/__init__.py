"""Kornia #2926: LAFDescriptor returns `torch.empty(B, N, 128)` when the image has no keypoints,
made on the CPU whatever the input's device; LocalFeatureMatcher's cdist then fails on CUDA.
Fixed by making the empty descriptors on the LAFs' device."""

from twins._accel import image

BUG = {"id": "kornia-2926", "project": "kornia", "issue": "https://github.com/kornia/kornia/issues/2926",
       "fix": "https://github.com/kornia/kornia/issues/2926 (the thread)", "file": "kornia/feature/integrated.py",
       "title": "empty descriptors are made on the CPU",
       "class": "result handed back on the host", "apis": ["trace", "plugin"],
       "expect": ["wrong_device_output", "implicit_device_factory"]}


def scenario(lib, device):
    import torch

    describe = lib.LAFDescriptor()
    img = image(device, channels=1)
    lafs = torch.zeros(img.shape[0], 0, 2, 3, device=device)  # no keypoints found
    descs = describe(img, lafs)
    assert descs.shape == (img.shape[0], 0, 128)
    return descs
