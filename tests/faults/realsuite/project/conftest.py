# A library's conftest in Kornia's idiom: --device and --dtype, a TEST_DEVICES dict.
import pytest
import torch

TEST_DEVICES = {"cpu": torch.device("cpu")}


def pytest_addoption(parser):
    parser.addoption("--device", default="cpu")
    parser.addoption("--dtype", default="float32")


def pytest_generate_tests(metafunc):
    if "device_name" in metafunc.fixturenames:
        metafunc.parametrize("device_name", metafunc.config.getoption("--device").split(","))


@pytest.fixture
def device(device_name):
    return TEST_DEVICES[device_name]
