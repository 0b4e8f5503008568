"""timm #913 (#1222): Mixup's `mixup_target` built its one-hot targets with `device='cuda'` by
default, on the current accelerator whatever the targets' device: it failed for CPU targets, and on
a second GPU. Fixed by using the targets' device."""

BUG = {"id": "timm-913", "project": "timm", "issue": "https://github.com/huggingface/pytorch-image-models/pull/913",
       "fix": "https://github.com/huggingface/pytorch-image-models/pull/913", "file": "timm/data/mixup.py",
       "title": "one-hot targets made on the default accelerator",
       "class": "hard-coded device type", "apis": ["trace", "plugin"],
       "expect": ["device_without_index", "foreign_device_target", "device_mismatch_error"]}


def scenario(lib, device):
    import torch

    target = torch.tensor([1, 3]).to(device)
    soft = lib.mixup_target(target, num_classes=4, lam=0.7)
    assert soft.shape == (2, 4) and soft.device == target.device
    return soft
