"""DALI #2396: a CPU-only pipeline (device_id=None) still pinned its host buffers, which needs the
CUDA runtime: "no CUDA-capable device is detected" for users without a GPU, never on a GPU
machine. Fixed by pinning only when the pipeline has a device."""

BUG = {"id": "dali-2396", "project": "DALI", "issue": "https://github.com/NVIDIA/DALI/issues/2396",
       "fix": "https://github.com/NVIDIA/DALI/pull/2165 (CPU-only mode; the thread)",
       "file": "dali/pipeline/executor/executor.h", "title": "a CPU-only pipeline pins its host memory",
       "class": "accelerator runtime on the CPU path", "apis": ["plugin"], "expect": ["accelerator_runtime"]}


def scenario(lib, device):
    if device.type != "cpu":
        return None  # the CPU-only mode's test runs on the CPU rows
    pipe = lib.Pipeline(batch_size=2, device_id=None)
    out = pipe.run()
    assert out.shape == (2, 3, 4, 4) and out.device.type == "cpu"
    return out
