import torch



class AdversarialLoss(torch.nn.Module):
    def get_target_tensor(self, input, target_is_real=True):
        filling = 1.0 if target_is_real else 0.0
        device = input.device
        return torch.full(input.shape, filling, device=device)

    def forward(self, input):
        target = self.get_target_tensor(input)
        return (input - target) ** 2
