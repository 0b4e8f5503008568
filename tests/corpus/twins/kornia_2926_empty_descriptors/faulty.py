import warnings

import torch


class LAFDescriptor(torch.nn.Module):
    def forward(self, img, lafs):
        if lafs.shape[1] == 0:
            warnings.warn(f"LAF contains no keypoints {lafs.shape}, returning empty tensor")
            return torch.empty(lafs.shape[0], lafs.shape[1], 128)
        patches = img.mean((-1, -2), keepdim=True).expand(-1, lafs.shape[1], 128)
        return torch.nn.functional.normalize(patches, dim=-1)
