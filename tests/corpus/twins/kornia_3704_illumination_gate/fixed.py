import torch


class GaussianIlluminationGenerator:
    def __init__(self, gain, p):
        self.gain, self.p = gain, p
        self.device = torch.device("cpu")  # set_rng_device_and_dtype's default, never changed

    def __call__(self, shape):
        batch, channels, height, width = shape
        to_apply = torch.rand(batch, device=self.device) < self.p
        n = int(to_apply.sum())
        ys = torch.linspace(-1, 1, height, device=self.device)
        xs = torch.linspace(-1, 1, width, device=self.device)
        gradient = self.gain * torch.exp(-(ys[:, None] ** 2 + xs[None, :] ** 2))
        return {"to_apply": to_apply, "gradient": gradient.expand(n, channels, height, width)}


class RandomGaussianIllumination(torch.nn.Module):
    def __init__(self, gain=0.1, p=0.5):
        super().__init__()
        self._param_generator = GaussianIlluminationGenerator(gain, p)

    def apply_transform(self, input, params):
        return input.add(params["gradient"].to(input)).clamp(0, 1)

    def forward(self, input):
        params = self._param_generator(input.shape)
        to_apply = params["to_apply"]
        if not to_apply.any():
            return input
        out = input.clone()
        out[to_apply] = self.apply_transform(input[to_apply], params)
        return out
