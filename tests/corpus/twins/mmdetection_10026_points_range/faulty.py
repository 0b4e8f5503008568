import torch


def assign(points, gt_bboxes, scale=4):
    points_lvl = points[:, 2].long()
    lvl_min, lvl_max = int(points_lvl.min()), int(points_lvl.max())
    points_range = torch.arange(points.shape[0])
    gt_bboxes_wh = (gt_bboxes[:, 2:] - gt_bboxes[:, :2]).clamp(min=1e-6)
    gt_bboxes_lvl = (torch.log2(gt_bboxes_wh[:, 0] / scale) + torch.log2(gt_bboxes_wh[:, 1] / scale)) / 2
    gt_bboxes_lvl = gt_bboxes_lvl.long().clamp(min=lvl_min, max=lvl_max)
    lvl_idx = gt_bboxes_lvl[0] == points_lvl
    return points_range[lvl_idx]
