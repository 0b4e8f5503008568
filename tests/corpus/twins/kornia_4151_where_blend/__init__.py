"""Kornia #4151: #3722 replaced the Python branch `transformed if bool(to_apply.any()) else
not_transformed` with a `torch.where` blend whose mask, sampled on the CPU by design, has one entry
per sample: CUDA's where refuses a CPU condition that is not 0-dim. Fixed by moving the mask to the
input's device."""

from twins._accel import image

BUG = {"id": "kornia-4151", "project": "kornia", "issue": "https://github.com/kornia/kornia/issues/4151",
       "fix": "https://github.com/kornia/kornia/issues/4151 (the thread)", "file": "kornia/augmentation/base.py",
       "title": "a torch.where blend with the CPU-sampled mask",
       "class": "random parameters sampled on the CPU and never moved", "apis": ["audit"],
       "expect": ["foreign_device_input", "device_mismatch_error"]}


def subject(lib):
    return lib.RandomInvert(p=0.5), [image("cpu")], {"random": True}
