import torch


def _extract_device_dtype(values):
    # Kornia's helper: the device of the first tensor among `values`, else the default (CPU).
    for v in values:
        if isinstance(v, torch.Tensor):
            return v.device, v.dtype
    return torch.device("cpu"), torch.get_default_dtype()


class LinearIlluminationGenerator(torch.nn.Module):
    def __init__(self, gain=(0.01, 0.2), sign=(-1.0, 1.0)):
        super().__init__()
        self.gain, self.sign = gain, sign
        self.make_samplers(torch.device("cpu"), torch.float32)

    def make_samplers(self, device, dtype):
        self.device, self.dtype = device, dtype
        low, high = torch.tensor(self.sign, device=device, dtype=dtype)
        self.sign_sampler = torch.distributions.Uniform(low, high)

    def forward(self, shape):
        _device, _dtype = _extract_device_dtype([self.gain, self.sign])
        batch, channels, height, width = shape
        sign = torch.where(self.sign_sampler.sample((batch, 1, 1, 1)) >= 0, 1.0, -1.0)
        gain_factor = torch.empty(batch, 1, 1, 1, device=_device, dtype=_dtype).uniform_(*self.gain)
        gradient = torch.linspace(0, 1, width, device=_device, dtype=_dtype).expand(batch, channels, height, width)
        return sign * gain_factor * gradient


class RandomLinearIllumination(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._param_generator = LinearIlluminationGenerator()

    def _apply(self, fn, *args, **kwargs):
        # set_rng_device_and_dtype: the samplers follow the module.
        out = super()._apply(fn, *args, **kwargs)
        probe = fn(torch.empty(0))
        self._param_generator.make_samplers(probe.device, torch.float32)
        return out

    def forward(self, input):
        return (input + self._param_generator(input.shape).to(input)).clamp(0, 1)
