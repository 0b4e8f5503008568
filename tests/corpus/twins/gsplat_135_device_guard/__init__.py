"""gsplat #135: the rasterizer launched its kernels and sized its buffers on the current device
(`torch.cuda.current_device()`), not the means' device: a second GPU failed. Fixed by guarding the
input's device for the launch ("add device guard")."""

BUG = {"id": "gsplat-135", "project": "gsplat", "issue": "https://github.com/nerfstudio-project/gsplat/pull/135",
       "fix": "https://github.com/nerfstudio-project/gsplat/pull/135", "file": "gsplat/rasterize.py",
       "title": "buffers made on torch.cuda.current_device(), not the input's",
       "class": "wrong index: the current device", "apis": ["trace", "plugin"],
       "expect": ["foreign_device_target", "device_mismatch_error"]}


def scenario(lib, device):
    import torch

    means = torch.rand(6, 2).to(device)
    image = lib.rasterize(means, height=4, width=5)
    assert image.device == means.device and image.shape == (4, 5)
    return image
