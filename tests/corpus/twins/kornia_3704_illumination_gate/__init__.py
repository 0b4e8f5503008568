"""Kornia #3704: RandomGaussianIllumination's parameter generator keeps its device at 'cpu', so the
gradient it returns lives on the CPU and `input.add_(params["gradient"])` fails on CUDA input; only
for seeds where the Bernoulli gate selects a sample (an empty gradient used to pass). Fixed by
moving the gradient to the input (`.to(input)`), the #3704 fix and #3457."""

from twins._accel import image

BUG = {"id": "kornia-3704", "project": "kornia", "issue": "https://github.com/kornia/kornia/issues/3704",
       "fix": "https://github.com/kornia/kornia/pull/3457",
       "file": "kornia/augmentation/_2d/intensity/gaussian_illumination.py",
       "title": "the illumination gradient is made on the CPU, for the samples the gate selects",
       "class": "random branch: device-less parameters only where the gate fires", "apis": ["audit", "plugin"],
       "expect": ["foreign_device_input", "device_mismatch_error"]}


def subject(lib):
    # One image, applied with probability 0.25: most seeds apply nothing.
    return lib.RandomGaussianIllumination(p=0.25), [image("cpu", batch=1)], {"random": True}


def scenario(lib, device):
    import torch

    torch.manual_seed(0)  # as the project's test: one seed, which here selects no sample
    aug = lib.RandomGaussianIllumination(p=0.25)
    out = aug(image(device, batch=1))
    assert out.shape == (1, 3, 8, 8)
