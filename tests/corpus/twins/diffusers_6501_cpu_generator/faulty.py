import torch


def prepare_latents(shape, generator, device, dtype=torch.float32):
    return torch.randn(shape, generator=generator, device=device, dtype=dtype)
