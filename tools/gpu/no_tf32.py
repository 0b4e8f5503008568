"""A pytest plugin for tools/gpu/cuda_arithmetic.sh: TF32 matmuls off once the conftest has set its
precision (its pytest_sessionstart runs first), so that the run is the suite's float32 arithmetic."""

import pytest


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    import torch

    torch.set_float32_matmul_precision("highest")
    print(f"no_tf32: float32 matmul precision {torch.get_float32_matmul_precision()}")
