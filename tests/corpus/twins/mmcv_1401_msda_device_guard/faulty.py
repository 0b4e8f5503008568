import torch

from twins._accel import accel


def ms_deform_attn(value, attention_weights):
    if value.device.type == "cpu":  # the CPU kernel
        return (value * attention_weights[..., None]).sum(1)
    # The extension's forward: its output buffer for "the" device, then the kernel writes it.
    output = torch.zeros(value.shape[0], value.shape[2], dtype=value.dtype, device=accel())
    output.copy_((value * attention_weights[..., None]).sum(1))
    return output
