"""torch's Python layer on the simulated device (Note [Python layer]): what a GPU tensor can do
works on vdev, and what torch has no way for is UnsupportedOnSimulatedDevice (a skip in the plugin)."""

import copy
import io
import pickle

import pytest

import devparity


def test_save_and_load_land_on_the_device(vdev):
    import torch

    t = torch.arange(6.0).to(vdev)
    z = torch.randn(3, dtype=torch.complex64).to(vdev).conj()
    buffer = io.BytesIO()
    torch.save({"t": t, "slice": t[2:4], "z": z, "p": torch.nn.Parameter(t.clone())}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    for name, original in (("t", t), ("slice", t[2:4]), ("z", z)):
        assert loaded[name].device == vdev, name
        assert torch.equal(loaded[name].cpu(), original.cpu()), name
    assert isinstance(loaded["p"], torch.nn.Parameter) and loaded["p"].device == vdev
    assert pickle.loads(pickle.dumps(t)).device == vdev


def test_deepcopy_copies_on_the_device_and_keeps_views_together(vdev):
    import torch

    t = torch.arange(6.0).to(vdev)
    copied = copy.deepcopy({"t": t, "view": t[2:4]})
    assert copied["t"].device == vdev and torch.equal(copied["t"].cpu(), t.cpu())
    copied["view"][0] = -1  # one copy of the storage, as torch's own deepcopy keeps it
    assert copied["t"][2].item() == -1 and t[2].item() == 2
    leaf = torch.ones(2, device=vdev, requires_grad=True)
    assert copy.deepcopy(leaf).requires_grad
    module = copy.deepcopy(torch.nn.Linear(2, 2).to(vdev))
    assert module.weight.device == vdev
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(leaf * 2)


def test_dlpack_is_named_unsupported(vdev):
    import torch
    import torch.utils.dlpack

    t = torch.arange(3.0).to(vdev)
    try:
        torch.utils.dlpack.to_dlpack(t)
    except devparity.UnsupportedOnSimulatedDevice as e:
        assert "DLPack" in str(e)
    assert torch.utils.dlpack.to_dlpack(torch.arange(3.0)) is not None  # the CPU's is untouched


def test_autocast_runs_or_is_named_unsupported(vdev):
    import torch

    a = torch.ones(2, 2, device=vdev)
    try:
        with torch.autocast(vdev.type):
            out = a @ a
    except devparity.UnsupportedOnSimulatedDevice as e:
        assert "autocast" in str(e)
    else:
        assert out.device == vdev
    with torch.autocast("cpu"):  # other devices' autocast is untouched
        torch.ones(2, 2) @ torch.ones(2, 2)


def test_nvfuser_is_named_unsupported_where_torch_refuses_it(vdev):
    # Issue 57: torchvision's test_jit asks for nvFuser on its GPU rows; a torch built without CUDA
    # refuses it, which is the simulator's gap (a named skip), not the suite's failure.
    import torch

    if not hasattr(torch.jit, "fuser"):
        pytest.skip("this torch has no torch.jit.fuser")
    try:
        with torch.jit.fuser("fuser2"):
            pass
    except devparity.UnsupportedOnSimulatedDevice as e:
        assert "nvFuser" in str(e) and not torch.cuda.is_available()
    with torch.jit.fuser("fuser1"):  # the other fusers are untouched
        pass


def test_a_scripted_module_saved_on_the_device_loads_back_there_or_is_named_unsupported(vdev):
    # torchvision's test_models saves and loads every scripted model on its GPU rows; torch 1.13's
    # TorchScript loader refuses tensors saved on a PrivateUse1 device, the simulator's gap (a named skip).
    import torch

    def round_trip(module):
        buffer = io.BytesIO()
        torch.jit.save(torch.jit.script(module), buffer)
        buffer.seek(0)
        return torch.jit.load(buffer)

    try:
        loaded = round_trip(torch.nn.Linear(2, 2).to(vdev))
    except devparity.UnsupportedOnSimulatedDevice as e:
        assert "TorchScript loader" in str(e) and isinstance(e.__cause__, RuntimeError)
    else:
        assert loaded.weight.device == vdev
    assert round_trip(torch.nn.Linear(2, 2)).weight.device.type == "cpu"  # the CPU's is untouched
    with pytest.raises(RuntimeError) as other:  # and the loader's other errors stay its own
        torch.jit.load(io.BytesIO(b"not an archive"))
    assert not isinstance(other.value, devparity.UnsupportedOnSimulatedDevice)
