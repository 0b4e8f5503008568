"""mmcv #1401 (mmdetection #5326): the multi-scale deformable attention op had no DeviceGuard, so
its output was allocated and its kernel launched on the current device, not the value's: wrong
results or an illegal memory access on a second GPU. Fixed by guarding the value's device."""

BUG = {"id": "mmcv-1401", "project": "mmcv", "issue": "https://github.com/open-mmlab/mmdetection/issues/5326",
       "fix": "https://github.com/open-mmlab/mmcv/pull/1401", "file": "mmcv/ops/csrc/pytorch/cuda/ms_deform_attn_cuda.cu",
       "title": "an op allocates on the current device, not its input's",
       "class": "wrong index: the current device", "apis": ["trace", "plugin"],
       "expect": ["device_without_index", "device_mismatch_error"]}


def scenario(lib, device):
    import torch

    value = torch.rand(2, 6, 4).to(device)
    weights = torch.rand(2, 6).to(device)
    out = lib.ms_deform_attn(value, weights)
    assert out.device == value.device
    return out
