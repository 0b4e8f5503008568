"""DALI #829: the iterator moved the labels with `.cuda()` (no index), onto the current device,
beside images placed on the pipeline's device_id; training on a second GPU mixed devices. Fixed by
moving them inside `torch.cuda.device(device_id)`."""

BUG = {"id": "dali-829", "project": "DALI", "issue": "https://github.com/NVIDIA/DALI/issues/829",
       "fix": "https://github.com/NVIDIA/DALI/issues/829 (the thread)", "file": "dali/python/nvidia/dali/plugin/pytorch.py",
       "title": "labels moved with the device type alone land on the current device",
       "class": "wrong index: the current device", "apis": ["trace", "plugin"], "expect": ["device_without_index"]}


def scenario(lib, device):
    if device.type == "cpu" or device.index is None:
        return None
    images, labels = lib.ClassificationIterator(device_id=device.index).next_batch()
    assert labels.device == images.device
    return images, labels
