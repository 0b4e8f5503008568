"""ivadomed #1062: mix-up built its mixing weight with `torch.FloatTensor([lambda_])`, a one-element
CPU tensor (not a 0-dim scalar), and blended CUDA data with it: "Expected all tensors to be on the
same device". Fixed in #1063 by making it on the data's device."""

from twins._accel import image

BUG = {"id": "ivadomed-1062", "project": "ivadomed", "issue": "https://github.com/ivadomed/ivadomed/issues/1062",
       "fix": "https://github.com/ivadomed/ivadomed/pull/1063", "file": "ivadomed/mixup.py",
       "title": "a one-element CPU weight blends device data",
       "class": "device-less factory meeting the input", "apis": ["audit", "trace"],
       "expect": ["implicit_device_factory", "foreign_device_input", "device_mismatch_error"]}


def subject(lib):
    return lib.mixup, [image("cpu")], {"random": True}


def scenario(lib, device):
    return lib.mixup(image(device))
