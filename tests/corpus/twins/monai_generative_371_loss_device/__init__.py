"""MONAI GenerativeModels #371: the adversarial loss made its target tensors on "cuda" (no index),
so any device but cuda:0 raised a device mismatch. Fixed by making them on the input's device."""

from twins._accel import image

BUG = {"id": "monai-generative-371", "project": "MONAI GenerativeModels",
       "issue": "https://github.com/Project-MONAI/GenerativeModels/pull/371",
       "fix": "https://github.com/Project-MONAI/GenerativeModels/pull/371", "file": "generative/losses/adversarial_loss.py",
       "title": "loss targets made on the default accelerator",
       "class": "hard-coded device type", "apis": ["audit", "trace"],
       "expect": ["device_without_index", "foreign_device_target", "device_mismatch_error"]}


def subject(lib):
    return lib.AdversarialLoss(), [image("cpu")], {}


def scenario(lib, device):
    return lib.AdversarialLoss()(image(device))
