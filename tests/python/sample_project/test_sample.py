import pytest
import torch

from sample_lib import Brightness, ChannelGain, horizontal_ramp


def test_channel_gain(device):
    x = torch.ones(1, 3, 2, 2, device=device)
    out = ChannelGain().to(device)(x)
    expected = torch.tensor([0.5, 1.0, 2.0]).view(1, 3, 1, 1).expand(1, 3, 2, 2)
    torch.testing.assert_close(out.cpu(), expected)


def test_brightness(device):
    x = torch.full((1, 3, 2, 2), 0.5, device=device)
    out = Brightness().to(device)(x)
    torch.testing.assert_close(out, torch.full_like(x, 0.75))


def test_brightness_gradient(device):
    module = Brightness().to(device)
    x = torch.rand(1, 3, 4, 4, device=device)
    module(x).sum().backward()
    assert module.offset.grad is not None


def test_exports_through_dlpack(device):
    import torch.utils.dlpack

    assert torch.utils.dlpack.to_dlpack(torch.arange(3.0, device=device)) is not None


def test_autocast_keeps_the_input_dtype(device):
    # Kornia's augmentations' idiom: under autocast, cast the result back to the input's dtype.
    x = torch.rand(4, 4, device=device)
    with torch.autocast(device.type):
        y = x @ x
        if torch.is_autocast_enabled() or torch.is_autocast_cpu_enabled():
            y = y.to(x.dtype)
    assert y.dtype == x.dtype and y.device == x.device


def test_draws_then_skips(device):
    torch.rand(2, device=device)
    pytest.skip("drew, then skipped")  # under the trace its reruns skip too; the trace still ends


def test_ramp(device):
    x = torch.zeros(1, 1, 1, 5, device=device)
    expected = torch.tensor([0.0, 0.125, 0.25, 0.375, 0.5], device=device).view(1, 1, 1, 5)
    torch.testing.assert_close(horizontal_ramp(x), expected)


# torchvision's idiom: the device list is a parametrize mark naming "cuda".
@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs CUDA"))])
def test_gain_listed_devices(device):
    x = torch.ones(1, 3, 1, 1, device=device)
    out = ChannelGain().to(device)(x)
    assert out.flatten().tolist() == [0.5, 1.0, 2.0]


def test_ramp_on_devparity_device(devparity_device):
    x = torch.zeros(1, 1, 1, 3, device=devparity_device)
    assert horizontal_ramp(x).device == x.device


def test_another_index_is_current(device):
    # devparity runs a test on vdev:K with another index current, as on a two-GPU machine.
    if device.type in ("cpu", "cuda") or device.index is None:
        return
    assert getattr(torch, device.type).current_device() != device.index
