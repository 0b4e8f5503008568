"""torchvision #3870: after PyTorch restricted indexing with indices on another device, code that
indexed a CPU table with indices computed on the GPU failed ("indices should be either on cpu or on
the same device as the indexed tensor (cpu)"). Fixed in #3870 by moving the tensors to the right
device."""

from twins._accel import image

BUG = {"id": "torchvision-3870", "project": "torchvision", "issue": "https://github.com/pytorch/vision/pull/3869",
       "fix": "https://github.com/pytorch/vision/pull/3870", "file": "torchvision/transforms/functional_tensor.py",
       "title": "a CPU table indexed with device indices",
       "class": "backend semantics: indices on another device", "apis": ["audit", "trace"],
       "expect": ["foreign_device_input", "device_mismatch_error"]}


def subject(lib):
    return lib.posterize_palette, [image("cpu")], {"differentiable": False}


def scenario(lib, device):
    return lib.posterize_palette(image(device))
