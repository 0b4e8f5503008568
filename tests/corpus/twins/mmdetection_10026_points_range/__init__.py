"""mmdetection #10026: RepPoints indexed `points_range`, made on the CPU, with `lvl_idx` computed on
the GPU: "indices should be either on cpu or on the same device as the indexed tensor". Fixed by
moving points_range to the boxes' device."""

BUG = {"id": "mmdetection-10026", "project": "mmdetection", "issue": "https://github.com/open-mmlab/mmdetection/pull/10026",
       "fix": "https://github.com/open-mmlab/mmdetection/pull/10026", "file": "mmdet/models/task_modules/assigners/point_assigner.py",
       "title": "a CPU range indexed with device level indices",
       "class": "backend semantics: indices on another device", "apis": ["trace"],
       "expect": ["foreign_device_input", "device_mismatch_error"]}


def scenario(lib, device):
    import torch

    points = torch.tensor([[1.0, 1.0, 0], [4.0, 4.0, 1], [6.0, 2.0, 1]]).to(device)
    gt_bboxes = torch.tensor([[0.0, 0.0, 8.0, 8.0]]).to(device)
    return lib.assign(points, gt_bboxes)
