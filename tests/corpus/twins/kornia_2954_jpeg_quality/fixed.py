import torch


def _jpeg_quality_to_scale(quality):
    return torch.where(quality < 50, 5000.0 / quality, 200.0 - 2.0 * quality)


def jpeg_quantize(image, jpeg_quality):
    # One 8x8 luma table, made where the image is, scaled by each sample's quality.
    table = torch.full((8, 8), 16.0, device=image.device, dtype=image.dtype)
    q = (table[None] * _jpeg_quality_to_scale(jpeg_quality)[:, None, None] / 100.0).clamp(min=1.0)
    blocks = image.unfold(2, 8, 8).unfold(3, 8, 8)  # B, C, H/8, W/8, 8, 8
    return ((blocks * 255.0 / q[:, None, None, None]).round() * q[:, None, None, None] / 255.0).mean((-1, -2))


class RandomJPEG(torch.nn.Module):
    def __init__(self, quality=(1.0, 50.0)):
        super().__init__()
        self.quality = quality

    def forward(self, input):
        jpeg_quality = torch.empty(input.shape[0]).uniform_(*self.quality)
        return jpeg_quantize(input, jpeg_quality.to(input.device, input.dtype))
