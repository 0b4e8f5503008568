"""torchvision #1738 (#1255): AnchorGenerator cached its grid anchors under a key of sizes and
strides alone, so after a device switch it handed back the anchors made on the first device.
Fixed in #1745 by putting the device in the cache key."""

from twins._accel import image

BUG = {"id": "torchvision-1738", "project": "torchvision", "issue": "https://github.com/pytorch/vision/issues/1255",
       "fix": "https://github.com/pytorch/vision/pull/1745", "file": "torchvision/models/detection/anchor_utils.py",
       "title": "a cache keyed without the device hands back another device's anchors",
       "class": "state cached across devices", "apis": ["trace"],
       "expect": ["foreign_device_input", "device_mismatch_error", "wrong_device_output"]}


def scenario(lib, device):
    gen = lib.AnchorGenerator()
    gen(image("cpu"))              # the module ran on the CPU first (evaluation before training)
    return gen(image(device))      # then on the device
