"""DALI #361: the PyTorch plugin's iterator allocated its output tensors with the device type alone,
on the current device, while its pipeline ran on `device_id`; with several GPUs in one process the
batches landed on the wrong one. Fixed by allocating inside `torch.cuda.device(device_id)`."""

BUG = {"id": "dali-361", "project": "DALI", "issue": "https://github.com/NVIDIA/DALI/issues/361",
       "fix": "https://github.com/NVIDIA/DALI/issues/361 (the thread)", "file": "dali/python/nvidia/dali/plugin/pytorch.py",
       "title": "the iterator's outputs go to the current device, not the pipeline's",
       "class": "wrong index: the current device", "apis": ["trace"], "expect": ["device_without_index"]}


def scenario(lib, device):
    if device.type == "cpu":
        return None
    batch = lib.DALIGenericIterator(device_id=device.index, shape=(2, 3, 4, 4)).next_batch()
    return batch["data"]
