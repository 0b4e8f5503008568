import torch

import lib


def test_brighten(device):
    x = torch.zeros(2, 3, device=device)
    assert torch.allclose(lib.brighten(x).cpu(), torch.full((2, 3), 0.25))


def test_normalize(device):
    x = torch.arange(4.0, device=device)
    assert lib.normalize(x).max().item() == 1.0


def test_fails_everywhere(device):
    assert torch.zeros(1, device=device).item() == 1.0  # a test bug: on every device alike
