# torchvision's idiom: tests parametrized with "cpu" and "cuda", the cuda rows marked and skipped
# without a GPU by the suite's own conftest.
import pytest
import torch


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_cuda: mark for tests that rely on a CUDA device")


def pytest_collection_modifyitems(items):
    for item in items:
        if item.get_closest_marker("needs_cuda") is not None and not torch.cuda.is_available():
            item.add_marker(pytest.mark.skip(reason="CUDA device not available"))


def cpu_and_gpu():
    return ("cpu", pytest.param("cuda", marks=pytest.mark.needs_cuda))
