"""torchvision #7391: `decode_image` has a CPU kernel only, registered for every device: given the
bytes on CUDA it read device memory as host memory and crashed. Fixed in #7406 by refusing input
that is not on the CPU; its test decodes on the CPU and expects the error on the GPU."""

BUG = {"id": "torchvision-7391", "project": "torchvision", "issue": "https://github.com/pytorch/vision/issues/7391",
       "fix": "https://github.com/pytorch/vision/pull/7406", "file": "torchvision/io/image.py",
       "title": "a CPU decoder given device bytes reads them as host memory",
       "class": "host kernel on device data; host hand-over", "apis": ["plugin"],
       "expect": ["wrong_device_output"]}


def scenario(lib, device):
    import pytest
    import torch

    encoded = torch.frombuffer(bytearray(b"\x02\x03" + bytes(range(6 * 2 * 3))), dtype=torch.uint8)
    data = encoded.to(device)
    if device.type == "cpu":
        image = lib.decode_image(data)
        assert image.shape == (3, 2, 3) and image.device.type == "cpu"
        return image
    with pytest.raises(RuntimeError):
        lib.decode_image(data)
