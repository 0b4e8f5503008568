# The sample project's library: two image modules, one with the colour-jitter bug.
import torch


class ChannelGain(torch.nn.Module):
    """Scales each channel; keeps its gains as a plain attribute (the bug: .to() leaves them)."""

    def __init__(self, gains=(0.5, 1.0, 2.0)):
        super().__init__()
        self.gains = torch.tensor(gains).view(1, -1, 1, 1)

    def forward(self, x):
        return x * self.gains


class Brightness(torch.nn.Module):
    """Adds a learnable offset, registered as a parameter."""

    def __init__(self, offset=0.25):
        super().__init__()
        self.offset = torch.nn.Parameter(torch.tensor(offset))

    def forward(self, x):
        return (x + self.offset).clamp(0, 1)


def horizontal_ramp(x):
    """Blends a 0..1 ramp across the width, made on the input's device."""
    ramp = torch.linspace(0, 1, x.shape[-1], device=x.device, dtype=x.dtype)
    return 0.5 * (x + ramp)
