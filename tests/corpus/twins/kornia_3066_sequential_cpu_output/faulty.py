import torch


class HorizontalFlip(torch.nn.Module):
    def forward(self, input):
        return input.flip(-1)


def _detach_tensor_to_cpu(output):
    if isinstance(output, torch.Tensor):
        return output.detach().cpu()
    return [_detach_tensor_to_cpu(o) for o in output]


class AugmentationSequential(torch.nn.Sequential):
    def __init__(self, *args, data_keys=("input",)):
        super().__init__(*args)
        self.data_keys = list(data_keys)

    def forward(self, *inputs):
        outputs = list(inputs)
        for module in self:
            outputs = [module(x) for x in outputs]
        if len(self.data_keys) > 1:
            outputs = _detach_tensor_to_cpu(outputs)
        return outputs if len(outputs) > 1 else outputs[0]
