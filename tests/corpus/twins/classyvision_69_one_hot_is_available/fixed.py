import torch


def convert_to_one_hot(targets, classes):
    assert targets.dim() == 2 and targets.size(1) == 1, "targets is expected to be (N, 1)"
    one_hot_targets = torch.zeros((targets.shape[0], classes), dtype=torch.long, device=targets.device)
    one_hot_targets.scatter_(1, targets.long(), 1)
    return one_hot_targets
