"""detectron2 #1528: with no ground truth in an image the proposals' classes came from a match
matrix made on the CPU, `torch.zeros_like(matched_idxs) + num_classes`, and concatenating the
images' classes then mixed devices. The root cause the maintainers pointed to: the Matcher's
output must be on its input's device."""

BUG = {"id": "detectron2-1528", "project": "detectron2", "issue": "https://github.com/facebookresearch/detectron2/pull/1528",
       "fix": "https://github.com/facebookresearch/detectron2/pull/1528 (review: fix the Matcher)",
       "file": "detectron2/modeling/matcher.py", "title": "an empty image's match matrix made on the CPU",
       "class": "device-less factory on a rare path", "apis": ["trace"],
       "expect": ["implicit_device_factory", "foreign_device_input", "device_mismatch_error"]}


def scenario(lib, device):
    import torch

    proposals = [torch.rand(4, 4).to(device), torch.rand(3, 4).to(device)]
    gt_boxes = [torch.rand(2, 4).to(device), torch.zeros(0, 4).to(device)]
    classes = torch.cat([lib.label_proposals(p, g, num_classes=5) for p, g in zip(proposals, gt_boxes)])
    assert classes.shape == (7,)
    return classes
