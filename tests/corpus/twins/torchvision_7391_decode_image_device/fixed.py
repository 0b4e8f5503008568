import ctypes

import torch


def _decode_kernel(data):
    # The C++ kernel's view: a raw pointer, read as host memory (on CUDA, a crash or garbage).
    raw = (ctypes.c_uint8 * data.numel()).from_address(data.data_ptr())
    height, width = raw[0], raw[1]
    image = torch.empty(3, height, width, dtype=torch.uint8)
    image.copy_(torch.tensor(list(raw[2:2 + 3 * height * width]), dtype=torch.uint8).view(3, height, width))
    return image


def decode_image(input):
    if input.device != torch.device("cpu"):
        raise RuntimeError("Input tensor should be on CPU")
    return _decode_kernel(input)
