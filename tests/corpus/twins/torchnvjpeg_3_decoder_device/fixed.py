import torch

from twins._accel import accel, accel_module


class Decoder:
    def __init__(self, device_id=0):
        self.device_id = device_id

    def decode(self, data, shape):
        orig_device = accel_module().current_device()
        accel_module().set_device(self.device_id)
        try:
            # nvjpeg writes into an image tensor allocated for "the" device, now its own.
            image = torch.empty(shape, dtype=torch.uint8, device=accel())
            image.copy_(torch.frombuffer(bytearray(data), dtype=torch.uint8).view(shape))
        finally:
            accel_module().set_device(orig_device)
        return image
