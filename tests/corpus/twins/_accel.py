"""The accelerator as the twins' code spells it: "cuda" in the real projects, here the simulated
device's type name, so that `device=accel()` (no index) means the current device as it does there."""

import torch


def accel():
    """The accelerator's device type ("vdev"; "privateuseone" on torch 1.13)."""
    import devparity

    return devparity.device_type()


def accel_module():
    """The accelerator's runtime module, as code uses torch.cuda (device(), current_device())."""
    return getattr(torch, accel())


def image(device, batch=2, channels=3, height=8, width=8, seed=0):
    """A test's image on `device`, made on the CPU from a seed as test suites make them."""
    g = torch.Generator().manual_seed(seed)
    return torch.rand(batch, channels, height, width, generator=g).to(device)
