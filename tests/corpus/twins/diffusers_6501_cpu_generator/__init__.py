"""diffusers #6501: latents drawn with `torch.randn(shape, generator=generator, device=device)` where
the user's generator is a CPU one: CUDA refuses it ("Expected a 'cuda' device type for generator but
found 'cpu'"). The fix the maintainers give: draw with `randn_tensor`, which draws on the
generator's device and moves the result."""

BUG = {"id": "diffusers-6501", "project": "diffusers", "issue": "https://github.com/huggingface/diffusers/issues/6501",
       "fix": "https://github.com/huggingface/diffusers/issues/6501 (randn_tensor)", "file": "diffusers/utils/torch_utils.py",
       "title": "a CPU generator for a draw on the device", "class": "backend semantics: generator device",
       "apis": ["trace", "plugin"], "expect": ["device_mismatch_error"]}


def scenario(lib, device):
    import torch

    generator = torch.Generator().manual_seed(0)
    latents = lib.prepare_latents((1, 4, 8, 8), generator, device)
    assert latents.device.type == torch.device(device).type
    return latents
