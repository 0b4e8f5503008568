import torch

from twins._accel import accel, accel_module


def planckian_coeffs():
    # A few of the blackbody table's (r, b) gains, made on the accelerator when there is one, as
    # get_cuda_or_mps_device_if_available() placed them: the current device, gpu 0.
    device = accel() if accel_module().is_available() else "cpu"
    return torch.tensor([[1.0, 0.5], [0.9, 0.6], [0.8, 0.75], [0.7, 0.9], [0.6, 1.0]], device=device)


class PlanckianJitter(torch.nn.Module):
    def __init__(self, select_from=None):
        super().__init__()
        pl = planckian_coeffs()
        if select_from is not None:
            self.pl = pl[select_from]
        else:
            self.pl = pl

    def forward(self, input):
        idx = torch.arange(input.shape[0]) % self.pl.shape[0]
        self.pl = self.pl.to(device=input.device)
        coeffs = self.pl[idx.tolist()]
        r = input[:, 0] * coeffs[:, 0, None, None]
        b = input[:, 2] * coeffs[:, 1, None, None]
        return torch.stack([r, input[:, 1], b], 1).clamp(max=1.0)
