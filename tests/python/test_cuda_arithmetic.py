"""CUDA's arithmetic on vdev (Note [CUDA's arithmetic on vdev]) through the pytest plugin, on the
twins of tests/faults/python/cuda_arithmetic_twins.py, as a library's suite meets it: a test that
allows TF32 matmuls fails on vdev:1 where a GPU would and nowhere else; a library's model of its
own op's CUDA kernel (devparity.register_cuda_model) runs on vdev rows only."""

import json
import os
import subprocess
import sys

import pytest
from conftest import HERE, run_pytest

TWINS = os.path.join(HERE, "..", "faults", "python")

TF32_CONFTEST = """
import sys
import torch

sys.path.insert(0, {twins!r})

if {allow}:
    torch.set_float32_matmul_precision("high")  # as Kornia's conftest does on torch 2.x
"""

TF32_MODULE = """
import cuda_arithmetic_twins as twins


def test_tight(devparity_device):
    twins.assert_projection_tight(devparity_device)


def test_for_tf32(devparity_device):
    twins.assert_projection_for_tf32(devparity_device)
"""

MODEL_CONFTEST = """
import sys

sys.path.insert(0, {twins!r})

import devparity
import cuda_arithmetic_twins as twins

library = twins.define_to_levels()
devparity.register_cuda_model("twins::to_levels", twins.to_levels_cuda, name="to_levels_truncates",
                              doc="a float-to-int cast truncates")
"""

MODEL_MODULE = """
import cuda_arithmetic_twins as twins


def test_exact(devparity_device):
    twins.assert_levels_exact(devparity_device)


def test_within_one(devparity_device):
    twins.assert_levels_within_one(devparity_device)
"""


def _write(pytester, conftest, module, **values):
    pytester.makeconftest(conftest.format(twins=TWINS, **values))
    pytester.makepyfile(test_twins=module)


def _rows(outcomes, test):
    return outcomes[f"test_twins.py::{test}[cpu]"], outcomes[f"test_twins.py::{test}[vdev:1]"]


def test_allowed_tf32_fails_the_tight_test_on_vdev_and_names_the_setting(pytester):
    _write(pytester, TF32_CONFTEST, TF32_MODULE, allow=True)
    run, outcomes = run_pytest(pytester, "--devparity-devices=cpu,vdev:1")
    assert _rows(outcomes, "test_tight") == ("PASSED", "FAILED"), run.stdout[-3000:]
    assert _rows(outcomes, "test_for_tf32") == ("PASSED", "PASSED"), run.stdout[-3000:]
    assert ("vdev computed as CUDA would, and moved values: tf32_matmul in 1 op call "
            "(torch.backends.cuda.matmul.allow_tf32 is on)") in run.stdout, run.stdout[-3000:]
    # Off, the vdev row is the CPU's arithmetic: the test passes, as it does on the CPU.
    run, outcomes = run_pytest(pytester, "--devparity-devices=cpu,vdev:1", "--devparity-vdev-arithmetic=cpu")
    assert _rows(outcomes, "test_tight") == ("PASSED", "PASSED"), run.stdout[-3000:]


def test_without_tf32_the_tight_test_passes_on_vdev(pytester):
    _write(pytester, TF32_CONFTEST, TF32_MODULE, allow=False)
    run, outcomes = run_pytest(pytester, "--devparity-devices=cpu,vdev:1")
    assert run.returncode == 0, run.stdout[-3000:]
    assert _rows(outcomes, "test_tight") == ("PASSED", "PASSED"), run.stdout[-3000:]


@pytest.mark.parametrize("sync", [False, True])
def test_a_registered_model_runs_on_vdev_rows_only(pytester, sync):
    _write(pytester, MODEL_CONFTEST, MODEL_MODULE)
    run, outcomes = run_pytest(pytester, "--devparity-devices=cpu,vdev:1", *(["--devparity-vdev-sync"] if sync else []))
    assert _rows(outcomes, "test_exact") == ("PASSED", "FAILED"), run.stdout[-3000:]
    assert _rows(outcomes, "test_within_one") == ("PASSED", "PASSED"), run.stdout[-3000:]
    assert "moved values: to_levels_truncates in 1 op call" in run.stdout, run.stdout[-3000:]
    run, outcomes = run_pytest(pytester, "--devparity-devices=cpu,vdev:1", "--devparity-vdev-arithmetic=cpu")
    assert _rows(outcomes, "test_exact") == ("PASSED", "PASSED"), run.stdout[-3000:]


def test_register_cuda_model_refuses_what_it_cannot_model(vdev):
    import torch

    import devparity

    with pytest.raises(devparity.DevparityValueError, match="no op nowhere::op is registered"):
        devparity.register_cuda_model("nowhere::op", lambda x: x)
    with pytest.raises(devparity.DevparityValueError, match="expected 'namespace::name'"):
        devparity.register_cuda_model("not an op", lambda x: x)
    with pytest.raises(devparity.DevparityTypeError):
        devparity.register_cuda_model(torch.mm, lambda x: x)
    with pytest.raises(devparity.DevparityValueError, match="writes its argument"):
        devparity.register_cuda_model("aten::add_.Tensor", lambda x, y, alpha: x)
    with pytest.raises(devparity.DevparityValueError,
                       match="aten::grid_sampler_2d already has the model 'cuda_grid_sample'"):
        devparity.register_cuda_model("aten::grid_sampler_2d", lambda x, g, mode, padding, align: x)
    library = torch.library.Library("refusals", "DEF")
    library.define("twice(Tensor x) -> Tensor")
    library.impl("twice", lambda x: x * 2, "CPU")
    devparity.register_cuda_model("refusals::twice", lambda x: x.to(vdev))
    with pytest.raises(RuntimeError, match="returned a tensor on"):
        torch.ops.refusals.twice(torch.ones(3, device=vdev)).cpu()
    devparity.register_cuda_model("refusals::twice", lambda x: x * 2 + 1, replace=True)
    assert torch.equal(torch.ops.refusals.twice(torch.ones(3, device=vdev)).cpu(), torch.full((3,), 3.0))
    assert torch.equal(torch.ops.refusals.twice(torch.ones(3)), torch.full((3,), 2.0))


INSTALL_ONLY = """
import json, torch, devparity
optimize = torch._C._get_graph_executor_optimize()
devparity.install(2)
vdev = devparity.device("vdev:1")
torch.backends.cuda.matmul.allow_tf32 = True
a = torch.rand(8, 8) * 100
moved = not torch.equal((a.to(vdev) @ a.to(vdev)).cpu(), a @ a)
print(json.dumps([optimize, torch._C._get_graph_executor_optimize(), moved]))
"""


def test_install_alone_brings_the_models_and_leaves_torchscript_alone():
    # A process that only installs vdev (the plugin without its trace) computes CUDA's arithmetic from
    # its first op, and keeps its own TorchScript settings: devparity's audit turns the graph
    # executor's optimisation off for its subjects, a library's tests must not inherit that.
    done = subprocess.run([sys.executable, "-c", INSTALL_ONLY], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    before, after, moved = json.loads(done.stdout.strip().splitlines()[-1])
    assert after == before, "install() changed the graph executor's optimisation"
    assert moved, "a float32 matmul on vdev did not read TF32 inputs while TF32 was allowed"
