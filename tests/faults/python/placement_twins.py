"""Seeded placement faults written in Python, each with its clean twin (tests/python/test_trace.py).

Each faulty module marks the line its finding must name with `# FAULT: <kind>`.
"""

import torch


class PlainAttributeGain(torch.nn.Module):
    """State kept as a plain attribute: .to() leaves it on the CPU."""

    def __init__(self):
        super().__init__()
        self.gain = torch.tensor([0.9, 1.0, 1.1]).view(1, 3, 1, 1)

    def forward(self, x):
        return x * self.gain  # FAULT: unregistered_tensor_state


class BufferGain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("gain", torch.tensor([0.9, 1.0, 1.1]).view(1, 3, 1, 1))

    def forward(self, x):
        return x * self.gain


class DevicelessRamp(torch.nn.Module):
    """A factory with no device meets the input."""

    def forward(self, x):
        ramp = torch.linspace(0, 1, x.shape[-1])  # FAULT: implicit_device_factory
        return x + ramp


class DeviceRamp(torch.nn.Module):
    def forward(self, x):
        ramp = torch.linspace(0, 1, x.shape[-1], device=x.device, dtype=x.dtype)
        return x + ramp


class HostMatrix(torch.nn.Module):
    """A non-scalar CPU tensor multiplies device data."""

    def forward(self, x):
        weights = x.new_tensor([0.299, 0.587, 0.114]).cpu().view(1, 3, 1, 1)
        return (x * weights).sum(1, keepdim=True)  # FAULT: foreign_device_input


class DeviceMatrix(torch.nn.Module):
    def forward(self, x):
        weights = x.new_tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1)
        return (x * weights).sum(1, keepdim=True)


class IndexlessMove(torch.nn.Module):
    """Moves its state with device="vdev" (the type without an index): it lands on the current device."""

    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.full((1, 3, 1, 1), 0.1))

    def forward(self, x):
        bias = self.bias.to(x.device.type)  # FAULT: device_without_index
        return x + bias


class IndexedMove(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.full((1, 3, 1, 1), 0.1))

    def forward(self, x):
        return x + self.bias.to(x.device)


TWINS = [(PlainAttributeGain, BufferGain), (DevicelessRamp, DeviceRamp), (HostMatrix, DeviceMatrix),
         (IndexlessMove, IndexedMove)]
