import torch


def randn_tensor(shape, generator=None, device=None, dtype=None):
    # Draws on the generator's device (the CPU for a CPU generator), then moves the result.
    rand_device = generator.device if generator is not None else device
    return torch.randn(shape, generator=generator, device=rand_device, dtype=dtype).to(device)


def prepare_latents(shape, generator, device, dtype=torch.float32):
    return randn_tensor(shape, generator=generator, device=device, dtype=dtype)
