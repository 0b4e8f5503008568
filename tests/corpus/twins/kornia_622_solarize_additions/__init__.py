"""Kornia #622: RandomSolarize keeps its sampled additions and thresholds on the CPU; `input +
additions` fails on CUDA input. Fixed by moving them to the input's device."""

from twins._accel import image

BUG = {"id": "kornia-622", "project": "kornia", "issue": "https://github.com/kornia/kornia/issues/622",
       "fix": "https://github.com/kornia/kornia/issues/622 (the thread)", "file": "kornia/enhance/adjust.py",
       "title": "RandomSolarize's per-sample additions stay on the CPU",
       "class": "random parameters sampled on the CPU and never moved", "apis": ["audit"],
       "expect": ["foreign_device_input", "device_mismatch_error"]}


def subject(lib):
    return lib.RandomSolarize(0.5, 0.1), [image("cpu")], {"random": True, "differentiable": False}
