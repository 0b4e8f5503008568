import torch


class HorizontalFlip(torch.nn.Module):
    def forward(self, input):
        return input.flip(-1)


class AugmentationSequential(torch.nn.Sequential):
    def __init__(self, *args, data_keys=("input",)):
        super().__init__(*args)
        self.data_keys = list(data_keys)

    def forward(self, *inputs):
        outputs = list(inputs)
        for module in self:
            outputs = [module(x) for x in outputs]
        return outputs if len(outputs) > 1 else outputs[0]
