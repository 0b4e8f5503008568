"""Kornia #3066: AugmentationSequential calls `_detach_tensor_to_cpu` on every output when data keys
are given, so the augmented image comes back on the CPU: augmentation on the GPU silently stops.
Fixed by no longer moving the outputs."""

from twins._accel import image

BUG = {"id": "kornia-3066", "project": "kornia", "issue": "https://github.com/kornia/kornia/issues/3066",
       "fix": "https://github.com/kornia/kornia/issues/3066 (the thread; duplicate #3117)", "file": "kornia/augmentation/container/augment.py",
       "title": "AugmentationSequential hands its output back on the CPU",
       "class": "result handed back on the host", "apis": ["trace", "plugin"],
       "expect": ["wrong_device_output"]}


def scenario(lib, device):
    import torch

    aug = lib.AugmentationSequential(lib.HorizontalFlip(), data_keys=["input", "mask"])
    x = image(device)
    mask = (x[:, :1] > 0.5).float()
    out, out_mask = aug(x, mask)
    assert out.shape == x.shape and out_mask.shape == mask.shape
    torch.testing.assert_close(out.cpu(), x.cpu().flip(-1))
    return out, out_mask
