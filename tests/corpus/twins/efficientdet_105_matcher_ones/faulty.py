import torch


def iou(boxes1, boxes2):
    lt = torch.max(boxes1[:, None, :2], boxes2[None, :, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area1 = (boxes1[:, 2:] - boxes1[:, :2]).prod(-1)
    area2 = (boxes2[:, 2:] - boxes2[:, :2]).prod(-1)
    return inter / (area1[:, None] + area2[None, :] - inter)


class ArgMaxMatcher:
    def match(self, boxes, anchors):
        similarity_matrix = iou(boxes, anchors)
        if similarity_matrix.shape[0] == 0:
            return -1 * torch.ones(similarity_matrix.shape[1], dtype=torch.long)
        return similarity_matrix.argmax(0)
