"""Kornia #4536: LinearIlluminationGenerator.forward took its device from
`_extract_device_dtype([self.gain, self.sign])`, the constructor's Python tuples, so the ramps and
the gain factor stay on the CPU while `make_samplers(device)` put the sign sampler on the device;
`sign * gain_factor * gradient` mixes them. Fixed in #4546 by reading self.device."""

from twins._accel import image

BUG = {"id": "kornia-4536", "project": "kornia", "issue": "https://github.com/kornia/kornia/issues/4536",
       "fix": "https://github.com/kornia/kornia/pull/4546",
       "file": "kornia/augmentation/random_generator/_2d/linear_illumination.py",
       "title": "the generator's device comes from Python tuples, not from its samplers",
       "class": "device taken from the wrong object", "apis": ["trace", "plugin"],
       "expect": ["foreign_device_input", "device_mismatch_error"]}


def scenario(lib, device):
    aug = lib.RandomLinearIllumination().to(device)
    out = aug(image(device))
    assert out.device.type == device.type
