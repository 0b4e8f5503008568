"""ClassyVision #69: `convert_to_one_hot` chose the device of its result by asking whether CUDA was
available, not where the targets were: on a GPU machine CPU targets failed, and without a GPU the
CPU path hid it. Fixed by making the result on the targets' device."""

BUG = {"id": "classyvision-69", "project": "ClassyVision", "issue": "https://github.com/facebookresearch/ClassyVision/pull/69",
       "fix": "https://github.com/facebookresearch/ClassyVision/pull/69", "file": "classy_vision/generic/util.py",
       "title": "the device chosen by torch.cuda.is_available()",
       "class": "device chosen by asking what the machine has", "apis": ["trace", "plugin"],
       "expect": ["device_dependent_code", "foreign_device_input", "device_mismatch_error"]}


def scenario(lib, device):
    import torch

    targets = torch.tensor([[0], [2]]).to(device)
    one_hot = lib.convert_to_one_hot(targets, classes=3)
    assert one_hot.shape == (2, 3) and one_hot.device == targets.device
    return one_hot
