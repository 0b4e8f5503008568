"""Half precision and autocast on the simulated device (docs/half-precision.md): CUDA's autocast
policy on 2.x, conformant with the table made on a real GPU (Note [Autocast on the virtual device]);
CUDA's half kernels where the CPU has none (Note [Half precision on the virtual device])."""

import copy
import json
import os
import sys

import pytest

import devparity

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
CUDA_TABLE = os.path.join(HERE, "..", "data", "autocast", "cuda-2.11.json")


def _autocasts(vdev):
    import torch

    try:
        with torch.autocast(vdev.type):
            torch.ones(2, 2, device=vdev) @ torch.ones(2, 2, device=vdev)
    except devparity.UnsupportedOnSimulatedDevice:
        return False
    return True


@pytest.fixture(scope="module")
def autocasting(vdev):
    if not _autocasts(vdev):
        pytest.skip("this torch has no autocast for the simulated device (torch 1.13 takes 'cuda' and 'cpu' only): "
                    "the plugin skips autocast tests on vdev with this reason")
    return vdev


@pytest.fixture(scope="module")
def tables(autocasting):
    import autocast_table

    with open(CUDA_TABLE) as f:
        cuda = json.load(f)
    return autocast_table.make(str(autocasting)), cuda


def test_autocast_follows_cudas_table(tables):
    import autocast_table

    mine, cuda = tables
    rows = autocast_table.compare(mine, cuda)
    assert len(rows) >= 200, "PyTorch's CUDA autocast lists are the table's rows"
    runs = {(e["list"], e["op"]): not isinstance(e["eager"], dict) for e in mine["entries"]}
    # Where the op runs on the device at all, autocast gives CUDA's dtypes; the others are ops
    # with CUDA-only kernels (cuDNN's convolutions, the fused RNN cells), which fail without
    # autocast too.
    differing = [r for r in rows if not r[5]]
    assert all(not runs[(lst, op)] for lst, op, *_ in differing), differing
    assert len(differing) <= 8, differing
    # CUDA's registered set of this torch: the simulated device's is the same but for cuDNN's ops.
    cuda_here = {op for op in mine["cuda_ops_with_kernel"] if "cudnn" not in op}
    assert cuda_here <= set(mine["ops_with_kernel"])


def test_a_wrong_policy_is_caught(tables):
    # The comparison's twin: a table where mm stayed float32 under autocast differs from CUDA's.
    import autocast_table

    mine, cuda = tables
    wrong = copy.deepcopy(mine)
    for e in wrong["entries"]:
        if e["op"] == "mm":
            e["float16"] = ["float32"]
    differing = [r for r in autocast_table.compare(wrong, cuda) if not r[5]]
    assert any(op == "mm" and low == "float16" for _, op, low, *_ in differing), differing


def test_device_less_queries_answer_for_the_device_inside_its_autocast(autocasting):
    # torch.is_autocast_enabled() answers for CUDA, the GPU vdev stands for (Kornia casts its
    # augmentations' output back when it is true).
    import torch

    assert not torch.is_autocast_enabled()
    with torch.autocast(autocasting.type, dtype=torch.bfloat16):
        assert torch.is_autocast_enabled()
        assert torch.get_autocast_gpu_dtype() == torch.bfloat16
        y = torch.ones(2, 2, device=autocasting) @ torch.ones(2, 2, device=autocasting)
        assert y.dtype == torch.bfloat16 and y.device == autocasting
    assert not torch.is_autocast_enabled()
    with torch.autocast("cpu"):
        assert not torch.is_autocast_enabled()  # the CPU's autocast is not the GPU's
        assert torch.is_autocast_enabled("cpu")


def test_binary_cross_entropy_is_refused_as_on_cuda(autocasting):
    import torch

    p = torch.rand(4, device=autocasting)
    with torch.autocast(autocasting.type), pytest.raises(RuntimeError, match="unsafe to autocast"):
        torch.nn.functional.binary_cross_entropy(p, p)


def test_a_half_kernel_the_cpu_lacks_runs_through_float32(vdev):
    # Antialiased bilinear interpolation has no float16 CPU kernel (1.13 and 2.6); CUDA has one,
    # so the device runs it, in float32, rounded: within a unit of float16 of the float32 result.
    import torch

    x = torch.rand(1, 3, 12, 10)
    with pytest.raises(RuntimeError, match="not implemented for 'Half'"):
        torch.nn.functional.interpolate(x.half(), size=(5, 4), mode="bilinear", antialias=True)
    y = torch.nn.functional.interpolate(x.half().to(vdev), size=(5, 4), mode="bilinear", antialias=True)
    want = torch.nn.functional.interpolate(x.half().float(), size=(5, 4), mode="bilinear", antialias=True)
    assert y.dtype == torch.float16 and y.device == vdev
    assert torch.equal(y.cpu(), want.half())


def test_a_half_kernel_cuda_lacks_too_fails_as_on_cuda(vdev):
    # Twin: linalg_inv has no float16 kernel on CUDA either (PyTorch's OpInfo database,
    # tools/cuda_half_gaps.py): the device raises, as a GPU does.
    import torch

    a = (torch.eye(3) * 2).half().to(vdev)
    with pytest.raises(RuntimeError, match="Half"):
        torch.linalg.inv(a)


def test_in_place_and_out_forms_write_their_half_argument(vdev):
    # clamp has no float16 CPU kernel on 1.13 (2.6 has one): through float32, the in-place and
    # out= forms still write the tensor they were given and return it.
    import torch

    x = (torch.rand(10) * 3 - 1).half()
    want = x.float().clamp(0, 1).half()
    y = x.to(vdev)
    assert y.clamp_(0, 1) is y
    assert y.dtype == torch.float16 and torch.equal(y.cpu(), want)
    out = torch.empty(10, dtype=torch.float16, device=vdev)
    assert torch.clamp(x.to(vdev), 0, 1, out=out) is out
    assert torch.equal(out.cpu(), want)


# audit(autocast=...): Note [Autocast rows]. The rows that run under autocast are the CPU's (its
# own autocast) and, where torch has autocast for it, the simulated device's; meta skips.
def _twins():
    sys.path.insert(0, os.path.join(HERE, "..", "faults", "python"))
    import autocast_twins

    return autocast_twins


def _by_device(result):
    return {r["device"]: r for r in result.results}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_audit_under_autocast_catches_the_cancellation_and_passes_its_twin(vdev, dtype):
    import torch

    twins = _twins()
    image = torch.rand(2, 3, 9, 7)
    devices = "cpu,vdev:1,meta"
    fault = _by_device(devparity.audit(twins.one_pass_standardise, [image], devices=devices, autocast=dtype,
                                       differentiable=False))
    clean = _by_device(devparity.audit(twins.centred_standardise, [image], devices=devices, autocast=dtype,
                                       differentiable=False))
    ran = [d for d, r in clean.items() if r["status"] != "skip"]
    for device, row in clean.items():
        assert row["autocast"] == dtype
        assert row["status"] in ("pass", "skip"), row["message"]
        if device == "meta" or (device == "vdev:1" and not _autocasts(vdev)):
            assert row["status"] == "skip" and "no autocast" in row["message"], row["message"]
        if device in ran:
            assert fault[device]["status"] == "fail", fault[device]["message"]
            assert "parity" in fault[device]["message"] or "outside" in fault[device]["message"]
        else:
            assert fault[device]["status"] == "skip", fault[device]["message"]
    if dtype == "bfloat16":
        assert "cpu" in ran, "LibTorch's CPU has bfloat16 matmuls on both platforms"
    if _autocasts(vdev):
        assert "vdev:1" in ran
    # Without autocast the one-pass variance holds in float32: the rows catch an autocast bug.
    assert devparity.audit(twins.one_pass_standardise, [image], devices=devices, differentiable=False).passed


def test_audit_under_autocast_passes_torchvision(vdev):
    import torch

    functional = pytest.importorskip("torchvision.transforms.functional")

    def pipeline(x):
        x = functional.gaussian_blur(x, [5, 5], [1.2, 1.2])
        x = functional.adjust_contrast(x, 1.3)
        x = functional.rgb_to_grayscale(x, num_output_channels=3)
        return functional.normalize(x, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])

    def conv_head(x):  # what a model's stem does to the image: autocast's convolution
        weight = torch.linspace(-1, 1, 8 * 3 * 3 * 3, device=x.device).view(8, 3, 3, 3) / 9
        return torch.nn.functional.conv2d(x, weight, padding=1)[:, :3]

    image = torch.rand(2, 3, 16, 12)
    # LibTorch's own CPU bfloat16 convolution is wrong on some machines (trixie's 2.6 on an AMD EPYC
    # with avx512_bf16: oneDNN's kernel is 0.51 off where bfloat16's rounding gives 0.005): both
    # rows run that kernel, so the case is left out there, and the test says so.
    weight = torch.linspace(-1, 1, 8 * 3 * 3 * 3).view(8, 3, 3, 3) / 9
    reference = torch.nn.functional.conv2d(image, weight, padding=1)
    own = torch.nn.functional.conv2d(image.bfloat16(), weight.bfloat16(), padding=1)
    own_error = (own.float() - reference).abs().max().item()
    left_out = None
    for fn in (pipeline, conv_head):
        for dtype in ("bfloat16", "float16"):
            if fn is conv_head and dtype == "bfloat16" and own_error > 0.05:
                left_out = (f"LibTorch's CPU bfloat16 convolution is {own_error:.3f} off float32 on this machine "
                            f"(bfloat16's rounding: about 0.005); conv_head under bfloat16 autocast not judged")
                continue
            result = devparity.audit(fn, [image], devices="cpu,vdev:1,meta", autocast=dtype)
            assert not result.failures, [r["message"] for r in result.failures]
            # Where no device has autocast for it (1.13) nothing ran, and that is not a pass (issue 56).
            assert result.passed != result.ran_nowhere, result.not_run
            for row in result.results:
                for check in row["checks"]:
                    errors = [f for f in check.get("findings", []) if f.get("severity") == "error"]
                    assert not errors, (row["id"], errors)
            if _autocasts(vdev):
                assert _by_device(result)["vdev:1"]["status"] == "pass", _by_device(result)["vdev:1"]["message"]
    if left_out:
        pytest.skip(left_out)


def test_audit_autocast_arguments_are_checked(vdev):
    import torch

    image = torch.rand(1, 3, 4, 4)
    with pytest.raises(devparity.DevparityValueError, match="autocast"):
        devparity.audit(lambda x: x * 2, [image], devices="cpu", autocast="float64")
    with pytest.raises(devparity.DevparityTypeError, match="autocast"):
        devparity.audit(lambda x: x * 2, [image], devices="cpu", autocast=3)
    with pytest.raises(devparity.DevparityValueError, match="integer outputs"):
        devparity.audit(lambda x: x * 2, [(image * 255).to(torch.uint8)], devices="cpu", autocast=True)
    result = devparity.audit(lambda x: x * 2, [image], devices="cpu", autocast=torch.bfloat16)
    assert result.passed and result.results[0]["autocast"] == "bfloat16"
