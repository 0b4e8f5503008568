import torch

from twins._accel import accel


class VideoReader:
    """A decoder that yields frames on `device` (the GPU decoder's contract)."""

    def __init__(self, path, stream="video", num_threads=0, device="cpu"):
        self.is_accelerated = False
        device = torch.device(device)
        if device.type == accel():
            self.is_accelerated = True
            with getattr(torch, accel()).device(device):  # the guard resolves an index-less device
                device = torch.device(accel(), getattr(torch, accel()).current_device())
        self._device = device
        self._frames = 2

    def __next__(self):
        if self._frames == 0:
            raise StopIteration
        self._frames -= 1
        return {"data": torch.zeros(3, 4, 6, dtype=torch.uint8, device=self._device), "pts": 0.0}

    def __iter__(self):
        return self
