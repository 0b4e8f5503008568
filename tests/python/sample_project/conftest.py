# A sample project's test setup, written the way real libraries write theirs: a module-level
# dict of devices, a --device option, and a `device` fixture parametrized from it. devparity
# adds its simulated devices to TEST_DEVICES (docs/python.md); nothing here names devparity.
import pytest
import torch

TEST_DEVICES = {"cpu": torch.device("cpu")}
if torch.cuda.is_available():
    TEST_DEVICES["cuda"] = torch.device("cuda")


def pytest_addoption(parser):
    parser.addoption("--device", action="store", default="cpu", help="cpu, cuda, ... or all")


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
