"""devparity's Python devices: install(), device(), the device module and their errors."""

import json
import os
import shutil
import subprocess
import sys

import pytest

import devparity


def run_python(code, env=None):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def test_importing_changes_nothing():
    r = run_python("import sys, devparity; print('torch' in sys.modules, 'devparity_py' in sys.modules)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]


def test_device_names(vdev):
    import torch

    assert vdev == torch.device(devparity.device_type(), 1)
    assert devparity.device_name(vdev) == "vdev:1"
    x = torch.arange(6.0).to(vdev)
    assert x.device == vdev and x.cpu().tolist() == list(range(6))
    assert devparity.device("cpu") == torch.device("cpu") and devparity.device("meta").type == "meta"
    mod = getattr(torch, devparity.device_type())
    assert mod.device_count() == 2 and mod.is_available() and mod.current_device() == 1
    with mod.device(0):
        assert mod.current_device() == 0
    assert mod.current_device() == 1


def test_torch_knows_the_name_on_2x(vdev):
    import torch

    if devparity.device_type() != "vdev":
        pytest.skip(f"torch {torch.__version__} has no backend renaming: the device is privateuseone")
    assert str(torch.device("vdev:1")) == "vdev:1"
    assert torch.ones(2).to("vdev:1").is_vdev
    assert torch.vdev.device_count() == 2
    torch.manual_seed(0)  # the device module answers what seeding asks for, without a warning


def test_mixing_devices_raises_cudas_error(vdev):
    import torch

    with pytest.raises(RuntimeError, match="same device"):
        torch.ones(3).to(vdev) + torch.ones(3)


@pytest.mark.parametrize("spec, words", [("vdev:x", "expected 'vdev'"), ("vdev:7", "only 2 simulated"),
                                         ("gpu:0", "unknown device"), (3, "expected a device name")])
def test_bad_device_names(vdev, spec, words):
    with pytest.raises(devparity.DevparityError, match=words):
        devparity.device(spec)


def test_the_index_less_spelling_is_the_current_device(vdev):
    import torch

    from conftest import current_device

    dev = devparity.device("vdev")
    assert dev.index is None and dev.type == vdev.type and devparity.device_name(dev) == "vdev"
    for index in (0, 1):
        with current_device(index):
            assert torch.zeros(2, device=dev).device.index == index
    assert devparity.device("cpu-only") == torch.device("cpu")


def test_bad_counts():
    for count in (0, 17, "2", True):
        with pytest.raises(devparity.DevparityError, match=r"\[1, 16\]"):
            devparity.install(count)


def test_a_torch_it_was_not_built_for_is_refused(tmp_path):
    package = os.path.dirname(devparity.__file__)
    copy = tmp_path / "devparity"
    shutil.copytree(package, copy)
    info = json.loads((copy / "_build.json").read_text())
    info["torch"] = "0.9.0"
    (copy / "_build.json").write_text(json.dumps(info))
    r = run_python("import devparity; devparity.install()", env={"PYTHONPATH": str(tmp_path)})
    assert r.returncode != 0
    assert "built against torch 0.9.0" in r.stderr and "rebuild devparity" in r.stderr, r.stderr
    assert "Segmentation" not in r.stderr


@pytest.mark.parametrize("entry", ["devparity.install()", "devparity.trace().__enter__()",
                                   "devparity.audit(lambda x: x, [(1, 3, 4, 4)])", "devparity.compare(1, 1)"])
def test_a_python_without_torch_is_told_which_interpreter_the_build_used(entry):
    # A Python that cannot import torch (a venv, another installation): no bare ModuleNotFoundError.
    code = f"import sys; sys.modules['torch'] = None; import devparity\ntry:\n  {entry}\n" \
           "except devparity.DevparityError as e:\n  print(e)"
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    recorded = json.loads(open(os.path.join(os.path.dirname(devparity.__file__), "_build.json")).read())["python"]
    assert f"this Python ({sys.executable}) cannot import it" in r.stdout, r.stdout
    assert f"built against torch" in r.stdout and recorded in r.stdout, r.stdout
    assert recorded.startswith("/"), "the build records the interpreter whose torch it is"


def test_an_op_with_a_cpu_kernel_alone_runs_on_vdev_outside_inference_mode(vdev):
    import torch
    import torchvision

    lib = torch.library.Library("devparity_test_cpu_only", "DEF")
    lib.define("double_it(Tensor x) -> Tensor")
    lib.impl("double_it", lambda x: x * 2, "CPU")
    x = torch.arange(3.0).to(vdev)
    out = torch.ops.devparity_test_cpu_only.double_it(x)  # autograd falls through to the kernel, as on CUDA
    assert out.device == vdev and out.cpu().tolist() == [0.0, 2.0, 4.0]
    boxes = torch.tensor([[0.0, 0.0, 4.0, 4.0], [0.5, 0.5, 4.0, 4.0], [5.0, 5.0, 9.0, 9.0]]).to(vdev)
    keep = torchvision.ops.nms(boxes, torch.tensor([0.9, 0.8, 0.7]).to(vdev), 0.5)
    assert keep.device == vdev and keep.cpu().tolist() == [0, 2]


def test_a_cpu_generator_is_refused_for_a_draw_on_vdev_as_cuda_refuses_it(vdev):
    import torch

    with pytest.raises(RuntimeError, match="device type for generator but found 'cpu'"):
        torch.randn(3, generator=torch.Generator().manual_seed(0), device=vdev)
    torch.manual_seed(0)
    assert torch.randn(3, device=vdev).device == vdev  # the default generator serves vdev
