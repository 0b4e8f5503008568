import torch


def _blend_by_prob(transformed, not_transformed, to_apply):
    mask = to_apply.to(transformed.device).view(-1, *([1] * (transformed.dim() - 1)))
    return torch.where(mask, transformed, not_transformed)


class RandomInvert(torch.nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, input):
        to_apply = torch.rand(input.shape[0]) < self.p  # sampled on the CPU by design
        return _blend_by_prob(1.0 - input, input, to_apply)
