import torch


def match(match_quality_matrix, num_proposals):
    if match_quality_matrix.numel() == 0:
        return torch.zeros(num_proposals, dtype=torch.int64)
    return match_quality_matrix.argmax(0)


def label_proposals(proposals, gt_boxes, num_classes):
    quality = (gt_boxes[:, None, :2] - proposals[None, :, :2]).abs().sum(-1).neg()
    matched_idxs = match(quality, proposals.shape[0])
    if gt_boxes.shape[0] == 0:
        return torch.zeros_like(matched_idxs) + num_classes
    return matched_idxs % num_classes
