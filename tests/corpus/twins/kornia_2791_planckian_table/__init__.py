"""Kornia #2791: RandomPlanckianJitter's coefficient table is made on gpu 0 (the current device)
and is a plain attribute, so `.to(cuda:1)` leaves it there, and forward copies it from cuda:0 on
every call (wrong values on some machines). Fixed in #2792 by registering it as a buffer."""

from twins._accel import image

BUG = {"id": "kornia-2791", "project": "kornia", "issue": "https://github.com/kornia/kornia/issues/2791",
       "fix": "https://github.com/kornia/kornia/pull/2792",
       "file": "kornia/augmentation/_2d/intensity/planckian_jitter.py",
       "title": "RandomPlanckianJitter's coefficient table does not follow .to()",
       "class": "state left behind by .to()", "apis": ["audit", "trace", "plugin"],
       "expect": ["unregistered_tensor_state"]}


def subject(lib):
    return lib.PlanckianJitter(), [image("cpu")], {}


def scenario(lib, device):
    aug = lib.PlanckianJitter().to(device)
    out = aug(image(device))
    assert out.device == device or device.index is None
