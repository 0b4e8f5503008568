"""torchvision #5146: the GPU VideoReader refused a device given without an index ("Invalid cuda
device!"), the spelling most users write (`device="cuda"`). Fixed in #5505: the index-less device is
the current one (a device guard reads it)."""

BUG = {"id": "torchvision-5146", "project": "torchvision", "issue": "https://github.com/pytorch/vision/issues/5146",
       "fix": "https://github.com/pytorch/vision/pull/5505", "file": "torchvision/io/__init__.py",
       "title": "the GPU VideoReader rejects an accelerator device without an index",
       "class": "index-less device spelling", "apis": ["plugin"], "expect": ["RuntimeError"]}


def scenario(lib, device):
    import torch

    reader = lib.VideoReader("clip.mp4", device=str(device))
    frame = next(reader)
    assert frame["data"].device.type == torch.device(device).type
    assert frame["data"].shape == (3, 4, 6)
