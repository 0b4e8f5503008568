"""Each twin's scenario as the project's test, on every device of the run."""

import importlib

import pytest

from runners import bug_names, load

PLUGIN_BUGS = [b for b in bug_names() if "plugin" in load(b).BUG["apis"]]


@pytest.mark.parametrize("bug", PLUGIN_BUGS)
def test_scenario(bug, twin, device):
    package = load(bug)
    lib = importlib.import_module(f"twins.{bug}.{twin}")
    package.scenario(lib, device)


def test_torchnvjpeg_3_decoder_device_two_decoders(twin):
    # The multi-GPU test: one decoder per device, used in turn.
    import devparity

    if not devparity.installed_count():
        pytest.skip("needs two accelerator indices")
    bug = "torchnvjpeg_3_decoder_device"
    load(bug).two_decoders(importlib.import_module(f"twins.{bug}.{twin}"), devparity.installed_count())
