"""Kornia #2209: AugmentationSequential's keypoint pad/unpad added a padding size made on the CPU
to device keypoints; random crops with keypoints failed on CUDA. Fixed in #2209 by putting the
padding size on the keypoints' device."""

BUG = {"id": "kornia-2209", "project": "kornia", "issue": "https://github.com/kornia/kornia/pull/2209",
       "fix": "https://github.com/kornia/kornia/pull/2209", "file": "kornia/augmentation/container/utils.py",
       "title": "keypoint padding sizes made on the CPU",
       "class": "device-less factory meeting the input", "apis": ["trace", "plugin"],
       "expect": ["implicit_device_factory", "foreign_device_input", "device_mismatch_error"]}


def scenario(lib, device):
    import torch

    keypoints = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]]).to(device)
    padded = lib.pad_keypoints(keypoints, [(2, 1, 3, 0)])
    assert padded.shape == keypoints.shape
    return padded
