import torch

from twins._accel import accel


class Decoder:
    def __init__(self, device_id=0):
        self.device_id = device_id

    def decode(self, data, shape):
        # nvjpeg writes into an image tensor allocated for "the" device.
        image = torch.empty(shape, dtype=torch.uint8, device=accel())
        image.copy_(torch.frombuffer(bytearray(data), dtype=torch.uint8).view(shape))
        return image
