import torch


class Brightness(torch.nn.Module):
    def forward(self, input):
        return (input + 0.2).clamp(0, 1)


class OperationBase(torch.nn.Module):
    def __init__(self, op, p=0.5):
        super().__init__()
        self.op, self.p = op, p

    def forward_parameters(self, shape):
        return {"batch_prob": torch.bernoulli(torch.full((shape[0],), self.p))}

    def forward(self, input, params=None):
        if params is None:
            params = self.forward_parameters(input.shape)
        batch_prob = params["batch_prob"][(...,) + ((None,) * (len(input.shape) - 1))].to(device=input.device)
        return batch_prob * self.op(input) + (1 - batch_prob) * input
