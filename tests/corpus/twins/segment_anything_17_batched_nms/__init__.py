"""segment-anything #17: the automatic mask generator passes batched_nms category indices made with
`torch.zeros(len(boxes))`, on the CPU; past 20,000 coordinates on a GPU (4,000 on the CPU) torchvision takes its per-class path, which
indexes the CPU indices with the device's keep list ("Indices not moved to correct device in batched
NMS"). Fixed by making the categories with `torch.zeros_like(boxes[:, 0])`."""

BUG = {"id": "segment-anything-17", "project": "segment-anything",
       "issue": "https://github.com/facebookresearch/segment-anything/issues/17",
       "fix": "https://github.com/facebookresearch/segment-anything/issues/17 (the thread)",
       "file": "segment_anything/automatic_mask_generator.py",
       "title": "batched NMS categories made on the CPU",
       "class": "device-less factory meeting the input", "apis": ["trace", "plugin"],
       "expect": ["implicit_device_factory", "foreign_device_input", "device_mismatch_error"]}


def scenario(lib, device):
    import torch

    g = torch.Generator().manual_seed(3)
    xy = torch.rand(5200, 2, generator=g) * 100
    boxes = torch.cat([xy, xy + 5 + torch.rand(5200, 2, generator=g) * 10], 1).to(device)
    scores = torch.rand(5200, generator=g).to(device)
    keep = lib.filter_boxes(boxes, scores)
    assert keep.device == boxes.device and 0 < keep.numel() < 5200
    return keep
