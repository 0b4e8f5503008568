import torch
from torchvision.ops.boxes import batched_nms


def filter_boxes(boxes, iou_preds, box_nms_thresh=0.7):
    # _process_crop: NMS across the crop's masks, all in one category.
    return batched_nms(boxes.float(), iou_preds, torch.zeros_like(boxes[:, 0]), iou_threshold=box_nms_thresh)
