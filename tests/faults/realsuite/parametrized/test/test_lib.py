import pytest
import torch
from conftest import cpu_and_gpu

import lib


@pytest.mark.parametrize("device", cpu_and_gpu())
def test_brighten(device):
    x = torch.zeros(2, 3, device=device)
    assert torch.allclose(lib.brighten(x).cpu(), torch.full((2, 3), 0.25))


@pytest.mark.parametrize("scale", [1, 2])
@pytest.mark.parametrize("device", cpu_and_gpu())
def test_normalize(device, scale):
    x = torch.arange(4.0, device=device) * scale
    assert lib.normalize(x).max().item() == 1.0


def test_needs_no_device():
    assert lib.normalize(torch.ones(2)).sum().item() == 2.0


@pytest.mark.parametrize("config", [{"gain": 1.0}, {"gain": 2.0}])  # dicts: their `values` is a method
def test_configured(config):
    assert lib.normalize(torch.ones(2) * config["gain"]).sum().item() == 2.0
