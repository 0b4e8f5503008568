"""devparity.audit() and compare(): the runner's verdicts on Python callables."""

import json
import os
import subprocess

import pytest

import devparity
from placement_twins import BufferGain, PlainAttributeGain

DEVICES = "cpu,vdev:0,vdev:1,meta"


def verdicts(report):
    """(device, dtype) -> (status, failing checks) of a report."""
    out = {}
    for r in report["results"]:
        failing = sorted(c["name"] for c in r["checks"] if c["status"] in ("fail", "error"))
        out[(r["device"], r["dtype"])] = (r["status"], failing)
    return out


@pytest.mark.parametrize("module", [PlainAttributeGain, BufferGain], ids=lambda m: m.__name__)
def test_audit_gives_the_clis_verdicts_on_the_scripted_module(vdev, tmp_path, module):
    import torch

    cli = os.environ.get("DEVPARITY_CLI")
    if not cli:
        pytest.skip("DEVPARITY_CLI (the devparity executable) is not set: ctest sets it")
    archive = tmp_path / "module.pt"
    torch.jit.script(module()).save(str(archive))
    cli_report = tmp_path / "cli.json"
    run = subprocess.run([cli, "run", "--torchscript", str(archive), "--devices", DEVICES, "--dtypes", "float32",
                          "--shape", "2x3x17x11", "--report", str(cli_report), "-q"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    audited = devparity.audit(module(), [(2, 3, 17, 11)], devices=DEVICES, dtypes=["float32"],
                              report=str(tmp_path / "py.json"), differentiable=False)
    expected = verdicts(json.loads(cli_report.read_text()))
    assert verdicts(audited.report) == expected
    assert audited.passed == (run.returncode == 0)
    # The reports are the same schema: the CLI's diff reads both.
    diff = subprocess.run([cli, "diff", str(cli_report), str(tmp_path / "py.json")], capture_output=True,
                          text=True, timeout=120)
    assert diff.returncode in (0, 1), diff.stderr


def test_audit_names_the_python_line_and_writes_every_report(vdev, tmp_path):
    import inspect

    paths = {k: str(tmp_path / f"a.{k}") for k in ("json", "xml", "html")}
    result = devparity.audit(PlainAttributeGain(), [(1, 3, 9, 7)], devices="cpu,vdev:1", report=paths["json"],
                             junit=paths["xml"], html=paths["html"])
    assert not result.passed and all(os.path.getsize(p) > 0 for p in paths.values())
    findings = [f for r in result.failures for c in r["checks"] if c["name"] == "placement" for f in c["findings"]]
    kept = [f for f in findings if f["kind"] == "unregistered_tensor_state"]
    assert kept, findings
    source = inspect.getsourcefile(PlainAttributeGain)
    assert kept[0]["source"].startswith(source + ":"), kept[0]


def test_audit_of_a_function_with_tensor_inputs_and_random_draws(vdev):
    import torch

    def noisy_blur(x):
        noise = torch.rand(x.shape, device=x.device, dtype=x.dtype) * 0.01
        return torch.nn.functional.avg_pool2d(x + noise, 3, stride=1, padding=1)

    images = [torch.rand(2, 3, 11, 9), (torch.rand(1, 3, 8, 8) * 255).round().to(torch.uint8)]
    result = devparity.audit(noisy_blur, images, devices="cpu,vdev:1,meta", dtypes=["float32", "float64"],
                             random=True, seed=7)
    assert result.passed, [r["message"] for r in result.failures]
    ids = {r["id"] for r in result.results}
    assert any("/vdev:1/" in i and "float64" in i for i in ids) and len(ids) == 12


def test_compare_returns_the_parity_statistics():
    import torch

    ref = torch.zeros(1, 1, 4, 4, dtype=torch.uint8)
    out = ref.clone()
    out[0, 0, 1, 2] = 3
    stats = devparity.compare(out, ref, tolerance={"atol": 1})
    assert stats["max_abs"] == 3 and stats["mismatches"] == 1 and not stats["within"]
    assert devparity.compare(out, ref, tolerance={"atol": 3})["within"]
    with pytest.raises(devparity.DevparityError, match="shapes differ"):
        devparity.compare(out, ref[..., :2])


def test_audit_errors_are_clear(vdev):
    with pytest.raises(devparity.DevparityError, match="expected a callable"):
        devparity.audit(42, [(1, 3, 4, 4)])
    with pytest.raises(devparity.DevparityError, match="NCHW"):
        devparity.audit(lambda x: x, ["not an input"])
    with pytest.raises(devparity.DevparityError, match="unknown dtype"):
        devparity.audit(lambda x: x, [(1, 3, 4, 4)], dtypes=["int7"])
    with pytest.raises(devparity.DevparityError, match="gpu"):
        devparity.audit(lambda x: x, [(1, 3, 4, 4)], devices="cpu,gpu:3")


def test_audit_copies_a_module_that_holds_simulated_state(vdev):
    import torch

    class Tinted(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("tint", torch.full((1, 3, 1, 1), 0.5, device="cpu"))
            self.table = torch.ones(1, 3, 1, 1).to(devparity.device("vdev:0"))  # made on vdev:0

        def forward(self, x):
            return x * self.tint * self.table

    result = devparity.audit(Tinted().to(devparity.device("vdev:0")), [(1, 3, 4, 4)], devices="vdev:0,vdev:1")
    by_device = {r["device"]: r for r in result.results}
    assert by_device["vdev:0"]["status"] == "pass", by_device["vdev:0"]["message"]
    kept = [f for c in by_device["vdev:1"]["checks"] for f in c.get("findings", [])
            if f["kind"] == "unregistered_tensor_state"]
    assert kept and kept[0]["device"] == "vdev:0", by_device["vdev:1"]


def test_a_random_audit_sweeps_seeds_until_the_gate_went_both_ways(vdev):
    import torch

    class RareGate(torch.nn.Module):
        def forward(self, x):
            fire = torch.rand(x.shape[0]) < 0.25
            if not fire.any():
                return x
            ramp = torch.linspace(0, 1, x.shape[-1])  # made on the CPU, and only here
            return torch.where(fire.view(-1, 1, 1, 1).to(x.device), x + ramp, x)

    result = devparity.audit(RareGate(), [(1, 3, 4, 4)], devices="cpu,vdev:1", random=True)
    sweep = result.report["run"]["random_sweep"]
    assert len(sweep["tried"]) > 1 and result.seeds == sweep["seeds"] and not sweep["one_sided"], sweep
    assert not result.passed
    kinds = {f["kind"] for r in result.failures for c in r["checks"] for f in c.get("findings", [])}
    assert "implicit_device_factory" in kinds, kinds
    fixed = devparity.audit(RareGate(), [(1, 3, 4, 4)], devices="cpu,vdev:1", random=True, seeds=[0])
    assert fixed.seeds == [0]
