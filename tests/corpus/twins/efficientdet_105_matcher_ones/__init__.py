"""efficientdet-pytorch #105: ArgMaxMatcher returned `-1 * torch.ones(similarity_matrix.shape[1])`,
on the CPU, when there were no ground-truth boxes; the matches then met device anchors. Fixed by
giving it the similarity matrix's device."""

BUG = {"id": "efficientdet-105", "project": "efficientdet-pytorch",
       "issue": "https://github.com/rwightman/efficientdet-pytorch/issues/105",
       "fix": "https://github.com/rwightman/efficientdet-pytorch/issues/105 (merged from the more_datasets branch)",
       "file": "effdet/object_detection/argmax_matcher.py", "title": "an empty image's matches made on the CPU",
       "class": "device-less factory on a rare path", "apis": ["trace", "plugin"],
       "expect": ["implicit_device_factory", "wrong_device_output", "foreign_device_input", "device_mismatch_error"]}


def scenario(lib, device):
    import torch

    anchors = torch.rand(5, 4).to(device)
    no_boxes = torch.zeros(0, 4).to(device)
    matches = lib.ArgMaxMatcher().match(no_boxes, anchors)
    labels = torch.where(matches >= 0, matches, torch.full_like(anchors[:, 0], -1).long())
    assert labels.shape == (5,)
    return labels
