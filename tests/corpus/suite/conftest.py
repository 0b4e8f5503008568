# The corpus's own test suite, written the way projects write theirs: a device dict, a --device
# option and a `device` fixture (devparity's plugin adds its devices to the dict). CORPUS_TWIN picks
# the faulty or the fixed twins.
import os

import pytest
import torch

TEST_DEVICES = {"cpu": torch.device("cpu")}


def pytest_addoption(parser):
    parser.addoption("--device", action="store", default="cpu", help="cpu, ... or all")


def pytest_generate_tests(metafunc):
    if "device_name" in metafunc.fixturenames:
        wanted = metafunc.config.getoption("--device")
        names = list(TEST_DEVICES) if wanted == "all" else wanted.split(",")
        metafunc.parametrize("device_name", names)


@pytest.fixture
def device(device_name):
    if device_name not in TEST_DEVICES:
        pytest.skip(f"device {device_name} is not available")
    return TEST_DEVICES[device_name]


@pytest.fixture
def twin():
    return os.environ.get("CORPUS_TWIN", "fixed")
