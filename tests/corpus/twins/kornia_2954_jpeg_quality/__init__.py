"""Kornia #2867/#2954: RandomJPEG samples its JPEG quality on the CPU and multiplies the quantization
table (made on the input's device) by its scale: "Expected all tensors to be on the same device" on
CUDA. Fixed by moving the quality to the input's device (#2954)."""

from twins._accel import image

BUG = {"id": "kornia-2954", "project": "kornia", "issue": "https://github.com/kornia/kornia/issues/2867",
       "fix": "https://github.com/kornia/kornia/pull/2954", "file": "kornia/enhance/jpeg.py",
       "title": "RandomJPEG's sampled quality stays on the CPU",
       "class": "random parameters sampled on the CPU and never moved", "apis": ["audit"],
       "expect": ["foreign_device_input", "device_mismatch_error"]}


def subject(lib):
    return lib.RandomJPEG(), [image("cpu", width=16, height=16)], {"random": True, "differentiable": False}
