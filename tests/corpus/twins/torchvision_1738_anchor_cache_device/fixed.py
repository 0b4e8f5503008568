import torch


class AnchorGenerator(torch.nn.Module):
    def __init__(self, size=4.0):
        super().__init__()
        self.size = size
        self._cache = {}

    def grid_anchors(self, height, width, device):
        ys = torch.arange(height, device=device, dtype=torch.float32)
        xs = torch.arange(width, device=device, dtype=torch.float32)
        centers = torch.stack(torch.meshgrid(ys, xs, indexing="ij"), -1).reshape(-1, 2)
        return torch.cat([centers - self.size / 2, centers + self.size / 2], 1)

    def cached_grid_anchors(self, height, width, device):
        key = (height, width, str(device))
        if key not in self._cache:
            self._cache[key] = self.grid_anchors(height, width, device)
        return self._cache[key]

    def forward(self, feature_map):
        height, width = feature_map.shape[-2:]
        anchors = self.cached_grid_anchors(height, width, feature_map.device)
        scale = feature_map.mean((0, 1)).reshape(-1, 1)
        return anchors * (1.0 + 0.0 * scale)
