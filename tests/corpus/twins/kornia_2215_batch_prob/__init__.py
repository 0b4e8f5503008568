"""Kornia #2212/#2215: the auto-augment operations blend the augmented and the original input with
`params["batch_prob"]`, sampled on the CPU; on CUDA the blend fails. Fixed in #2215 by moving
batch_prob to the input's device."""

from twins._accel import image

BUG = {"id": "kornia-2215", "project": "kornia", "issue": "https://github.com/kornia/kornia/pull/2215",
       "fix": "https://github.com/kornia/kornia/pull/2215", "file": "kornia/augmentation/auto/operations/base.py",
       "title": "the auto-augment operation's batch probabilities stay on the CPU",
       "class": "random parameters sampled on the CPU and never moved", "apis": ["audit"],
       "expect": ["foreign_device_input", "device_mismatch_error"]}


def subject(lib):
    return lib.OperationBase(lib.Brightness(), p=0.5), [image("cpu")], {"random": True}
