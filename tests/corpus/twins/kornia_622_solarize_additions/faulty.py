import torch


def solarize(input, thresholds, additions):
    input = input + additions
    input = input.clamp(0.0, 1.0)
    return torch.where(input < thresholds, input, 1.0 - input)


class RandomSolarize(torch.nn.Module):
    def __init__(self, thresholds=0.1, additions=0.1):
        super().__init__()
        self.thresholds, self.additions = thresholds, additions

    def forward(self, input):
        batch = input.shape[0]
        thresholds = torch.empty(batch).uniform_(0.5 - self.thresholds, 0.5 + self.thresholds)
        additions = torch.empty(batch).uniform_(-self.additions, self.additions)
        return solarize(input, thresholds.view(-1, 1, 1, 1), additions.view(-1, 1, 1, 1))
