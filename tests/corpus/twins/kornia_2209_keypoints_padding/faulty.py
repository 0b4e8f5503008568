import torch


def pad_keypoints(keypoints, padding):
    # padding: (left, right, top, bottom) per sample.
    padding_size = torch.tensor(padding, dtype=keypoints.dtype)
    return keypoints + padding_size[:, None, [0, 2]]
