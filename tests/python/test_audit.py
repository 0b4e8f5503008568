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
    expected = verdicts(devparity.load_report(cli_report))
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
    # A bad argument is also the TypeError or ValueError Python's own functions raise (issue 37).
    with pytest.raises(TypeError, match="expected a callable") as raised:
        devparity.audit(42, [(1, 3, 4, 4)])
    assert isinstance(raised.value, devparity.DevparityError)
    with pytest.raises(TypeError, match="NCHW"):
        devparity.audit(lambda x: x, ["not an input"])
    with pytest.raises(ValueError, match="unknown dtype"):
        devparity.audit(lambda x: x, [(1, 3, 4, 4)], dtypes=["int7"])
    with pytest.raises(ValueError, match="placement"):
        devparity.audit(lambda x: x, [(1, 3, 4, 4)], placement="loud")
    with pytest.raises(TypeError, match="interleavings"):
        devparity.audit(lambda x: x, [(1, 3, 4, 4)], interleavings="2")
    with pytest.raises(TypeError, match="positional"):  # everything after the inputs is by keyword
        devparity.audit(lambda x: x, [(1, 3, 4, 4)], "cpu")
    with pytest.raises(TypeError, match="expected two tensors"):
        devparity.compare(1, 2)
    with pytest.raises(ValueError, match="unknown device"):
        devparity.device("gpu:0")
    with pytest.raises(ValueError, match="gpu"):
        devparity.audit(lambda x: x, [(1, 3, 4, 4)], devices="cpu,gpu:3")


@pytest.mark.parametrize("argument, value, error, words", [
    ("seed", -1, ValueError, "audit(seed): expected a whole number from 0 to"),
    ("seed", 2 ** 70, ValueError, "audit(seed): expected a whole number"),
    ("seed", 1.5, TypeError, "audit(seed)"),
    ("seed", "7", TypeError, "audit(seed)"),
    ("seed", True, TypeError, "audit(seed)"),
    ("junit", 123, TypeError, "audit(junit): expected a path"),
    ("report", b"r.json", TypeError, "audit(report): expected a path"),
    ("differentiable", "no", TypeError, "audit(differentiable): expected True or False"),
    ("random", 1, TypeError, "audit(random)"),
    ("quiet", "no", TypeError, "audit(quiet)"),
    ("name", 5, TypeError, "audit(name): expected a string"),
    ("checks", [1], TypeError, "audit(checks): expected a dict"),
    ("tolerance", 0.1, TypeError, "audit(tolerance): expected a dict"),
    ("devices", 5, TypeError, "audit(devices)"),
    ("dtypes", 5, TypeError, "audit(dtypes)"),
])
def test_every_argument_is_checked_where_it_enters(vdev, argument, value, error, words):
    # Issue 56: accepted silently, or failing later in another's words (nlohmann's, "unknown dtype 'f'").
    with pytest.raises(error) as raised:
        devparity.audit(lambda x: x, [(1, 3, 4, 4)], **{"devices": "cpu", argument: value})
    assert isinstance(raised.value, devparity.DevparityError) and words in str(raised.value), raised.value


def test_the_documented_forms_of_the_arguments_work(vdev, tmp_path):
    # The twins of the above: python.md's own tolerance example, a pathlib.Path, a dtype as a string.
    r = devparity.audit(lambda x: x * 0.5, [(1, 3, 8, 8)], devices="cpu,vdev:1", dtypes="float32", seed=2 ** 64 - 1,
                        tolerance={"atol": 1, "reason": "the docs' example"}, report=tmp_path / "r.json",
                        junit=tmp_path / "r.xml")
    assert r.passed and (tmp_path / "r.json").exists() and (tmp_path / "r.xml").exists()
    parity = [c for x in r.results if x["device"] == "vdev:1" for c in x["checks"] if c["name"] == "parity"]
    assert parity and parity[0]["stats"]["tolerance"]["atol"] == 1, parity
    assert {x["dtype"] for x in r.results} == {"float32"}
    both = devparity.audit(lambda x: x, [(1, 3, 4, 4)], devices="cpu", dtypes="float32,uint8", differentiable=False)
    assert {x["dtype"] for x in both.results} == {"float32", "uint8"}


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
    assert len(sweep["tried"]) > 1 and list(result.seeds) == sweep["seeds"] and not sweep["one_sided"], sweep
    assert not result.passed
    kinds = {f["kind"] for r in result.failures for c in r["checks"] for f in c.get("findings", [])}
    assert "implicit_device_factory" in kinds, kinds
    fixed = devparity.audit(RareGate(), [(1, 3, 4, 4)], devices="cpu,vdev:1", random=True, seeds=[0])
    assert fixed.seeds == (0,)


# --- isolation, timeouts and Ctrl-C (issue 36) -------------------------------------------------

def _off_cpu(action):
    """x * 2, except off the CPU, where `action()` runs first (the audited code's misbehaviour)."""
    def fn(x):
        if x.device.type != "cpu":
            action()
        return x * 2
    return fn


def _sleep_forever():
    import time

    while True:
        time.sleep(0.05)


def _segfault():
    import ctypes

    ctypes.string_at(0)


@pytest.mark.parametrize("action, cause, words", [
    (lambda: os._exit(3), "worker", "exited with status 3"),
    (_segfault, "worker", "was killed by SIGSEGV"),
    (_sleep_forever, "timeout", "ran past 3 s"),
], ids=["os_exit", "segfault", "hang"])
def test_an_isolated_audit_survives_what_the_audited_code_does_to_its_process(vdev, tmp_path, action, cause, words):
    import time

    started = time.monotonic()
    result = devparity.audit(_off_cpu(action), [(1, 3, 8, 8)], devices="cpu,vdev:1", isolate=True, timeout_s=3,
                             report=str(tmp_path / "r.json"), junit=str(tmp_path / "r.xml"),
                             html=str(tmp_path / "r.html"))
    assert time.monotonic() - started < 60
    assert not result.passed
    assert result.interrupted["signal"] == cause, result.interrupted
    assert words in result.interrupted["message"], result.interrupted
    # The trials finished before are kept: the CPU rows ran before the worker ended.
    assert [r["status"] for r in result.results if r["device"] == "cpu"] == ["pass"]
    assert not [r for r in result.results if r["device"] == "vdev:1"]
    written = devparity.load_report(tmp_path / "r.json")
    assert written["summary"]["interrupted"]["signal"] == cause
    assert 'type="interrupted"' in (tmp_path / "r.xml").read_text()
    assert ">INTERRUPTED</span>" in (tmp_path / "r.html").read_text()
    assert not (tmp_path / "r.json.partial").exists()


def test_an_isolated_audit_of_clean_code_matches_the_audit_in_place(vdev):
    here = devparity.audit(lambda x: x * 2, [(1, 3, 8, 8)], devices="cpu,vdev:1")
    refused = devparity._devices.ops().forks_refuse_autograd()
    isolated = devparity.audit(lambda x: x * 2, [(1, 3, 8, 8)], devices="cpu,vdev:1", isolate=True)
    assert isolated.passed and isolated.interrupted is None
    if refused:  # PyTorch's own device threads (Debian 2.6's Vulkan, CUDA): a lambda's fork skips gradients, saying why
        assert "does not pickle" in isolated.report["run"]["isolation"]["gradient"]
        without_gradient = {key: (status, [c for c in failing if c != "gradient"])
                            for key, (status, failing) in verdicts(here.report).items()}
        assert verdicts(isolated.report) == without_gradient
        return
    # The audit in place ran a backward on vdev first; the fork checks gradients all the same (issue 55:
    # it once said "not checked", as PyTorch refuses autograd in forks of a process with device threads).
    assert "gradient" not in isolated.report["run"]["isolation"]
    assert verdicts(isolated.report) == verdicts(here.report)
    assert [c["status"] for r in isolated.results for c in r["checks"] if c["name"] == "gradient"] == ["pass", "pass"]
    with pytest.raises(ValueError, match="timeout_s"):
        devparity.audit(lambda x: x, [(1, 3, 8, 8)], timeout_s=0)
    # A misuse inside the worker is the same error as in place.
    with pytest.raises(devparity.DevparityTypeError, match="an NCHW shape or a recipe dict"):
        devparity.audit(lambda x: x, [(1, 3, 8)], isolate=True)


@pytest.mark.parametrize("isolate", [False, True], ids=["in_place", "isolated"])
def test_ctrl_c_stops_the_audit_with_a_marked_report(vdev, tmp_path, isolate):
    import signal
    import threading

    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            devparity.audit(_off_cpu(_sleep_forever), [(1, 3, 8, 8)], devices="cpu,vdev:1", isolate=isolate,
                            report=str(tmp_path / "r.json"), junit=str(tmp_path / "r.xml"))
    finally:
        timer.cancel()
    written = devparity.load_report(tmp_path / "r.json")
    assert written["summary"]["interrupted"]["signal"] == "SIGINT", written["summary"]
    # Not the subject's failure: the trial Ctrl-C landed in is not reported at all.
    assert [r["status"] for r in written["results"] if r["device"] == "vdev:1"] == []
    assert [r["status"] for r in written["results"] if r["device"] == "cpu"] == ["pass"]
    assert 'type="interrupted"' in (tmp_path / "r.xml").read_text()
    # The next audit runs whole.
    assert devparity.audit(lambda x: x * 2, [(1, 3, 8, 8)], devices="cpu,vdev:1").passed


def test_perturbed_numerics_catch_a_tie_rule_and_name_the_switch(vdev):
    # pytorch/pytorch#16498: round() at exact halves follows one implementation's tie rule; the fix
    # names the rule (floor(x + 0.5)), which every arithmetic computes the same.
    import torch

    def faulty(img):
        return torch.round(torch.floor(img * 16) + 0.5)

    def fixed(img):
        return torch.floor(torch.floor(img * 16) + 0.5 + 0.5)

    plain = devparity.audit(faulty, [(1, 3, 16, 16)], devices="cpu,vdev:1", seed=2, differentiable=False)
    assert plain.passed, plain.failures
    caught = devparity.audit(faulty, [(1, 3, 16, 16)], devices="cpu,vdev:1", seed=2, differentiable=False,
                             perturb="all")
    assert not caught.passed
    row = next(r for r in caught.results if r["device"] == "vdev:1")
    assert row["perturbed"]["blamed"] == ["round_half_away"], row["perturbed"]
    assert caught.report["run"]["vdev_perturb"][0] == "round_half_away"
    clean = devparity.audit(fixed, [(1, 3, 16, 16)], devices="cpu,vdev:1", seed=2, differentiable=False,
                            perturb=["round_half_away", "reduction_order"])
    assert clean.passed, clean.failures
    with pytest.raises(devparity.DevparityError, match="unknown switch 'fast'"):
        devparity.audit(fixed, [(1, 3, 8, 8)], devices="cpu,vdev:1", perturb="fast")


def test_cuda_arithmetic_fails_a_float32_matmul_while_tf32_is_allowed(vdev):
    # Note [CUDA's arithmetic on vdev]: the process allows TF32 matmuls, so a GPU's product reads TF32
    # inputs; the colour matrix judged at float32's tolerance fails on vdev, naming the model and the
    # setting; the product in float64 (the clean twin) passes; the CPU row keeps its arithmetic.
    import torch

    matrix = torch.tensor([[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]])

    def faulty(img):
        return torch.matmul(img.movedim(1, -1), matrix.to(img.device).t()).movedim(-1, 1)

    def fixed(img):
        return torch.matmul(img.movedim(1, -1).double(), matrix.to(img.device).t().double()).movedim(-1, 1).float()

    was = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = True
        caught = devparity.audit(faulty, [(1, 3, 16, 16)], devices="cpu,vdev:1", seed=2, differentiable=False)
        assert not caught.passed
        rows = {r["device"]: r for r in caught.results}
        assert rows["cpu"]["status"] == "pass" and "cuda_arithmetic" not in rows["cpu"], rows["cpu"]
        assert rows["vdev:1"]["status"] == "fail" and rows["vdev:1"]["cuda_arithmetic"]["tf32_matmul"] >= 1
        assert "(torch.backends.cuda.matmul.allow_tf32 is on)" in rows["vdev:1"]["message"], rows["vdev:1"]
        assert devparity.audit(fixed, [(1, 3, 16, 16)], devices="cpu,vdev:1", seed=2, differentiable=False).passed
        off = devparity.audit(faulty, [(1, 3, 16, 16)], devices="cpu,vdev:1", seed=2, differentiable=False,
                              vdev_arithmetic="cpu")
        assert off.passed and off.report["run"]["vdev_arithmetic"] == "cpu", off.failures
        with pytest.raises(devparity.DevparityValueError, match="vdev_arithmetic"):
            devparity.audit(fixed, [(1, 3, 8, 8)], devices="cpu,vdev:1", vdev_arithmetic="gpu")
    finally:
        torch.backends.cuda.matmul.allow_tf32 = was
    assert devparity.audit(faulty, [(1, 3, 16, 16)], devices="cpu,vdev:1", seed=2, differentiable=False).passed


def _forks_and_returns(x):
    """x * 2; off the CPU it forks first, and its copy returns too (issue 56: the copy ran the rest of the
    audit and its report replaced the worker's)."""
    out = x * 2
    if x.device.type != "cpu":
        os.fork()
    return out


def _starts_a_sleeper(marker):
    def fn(x):
        if x.device.type != "cpu":
            proc = subprocess.Popen(["sleep", "600"])
            with open(marker, "a") as f:
                f.write(f"{proc.pid}\n")
        return x * 2
    return fn


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("isolate", [False, True], ids=["in_place", "isolated"])
def test_a_subject_that_forks_does_not_write_the_reports_twice(vdev, tmp_path, isolate):
    import time

    result = devparity.audit(_forks_and_returns, [(1, 3, 8, 8)], devices="cpu,vdev:1", isolate=isolate,
                             report=str(tmp_path / "r.json"), differentiable=False)
    assert result.passed, result.failures
    time.sleep(0.5)  # a copy that went on would have rewritten the report by now
    written = devparity.load_report(tmp_path / "r.json")
    assert [r["id"] for r in written["results"]] == [r["id"] for r in result.results]
    assert written["run"]["started_at"] == result.report["run"]["started_at"]
    # The twin: a subject that does not fork, audited the same way.
    assert devparity.audit(lambda x: x * 2, [(1, 3, 8, 8)], devices="cpu,vdev:1", isolate=isolate,
                           differentiable=False).passed


def test_an_isolated_audit_ends_what_the_audited_code_started(vdev, tmp_path):
    marker = tmp_path / "pids"
    result = devparity.audit(_starts_a_sleeper(str(marker)), [(1, 3, 8, 8)], devices="cpu,vdev:1", isolate=True,
                             differentiable=False)
    assert result.passed, result.failures
    pids = [int(p) for p in marker.read_text().split()]
    assert pids
    import time

    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids), "orphans of the worker outlived the audit"


def test_an_audit_leaves_the_processs_torchscript_setting_as_it_was(vdev):
    # Note [Unoptimised subject calls]: TorchScript subjects run unoptimised for their calls alone; the
    # code that runs after an audit (a library's own tests) kept the executor's optimisation off before.
    import torch

    before = torch._C._get_graph_executor_optimize()
    for setting in (True, False):
        torch._C._set_graph_executor_optimize(setting)
        assert devparity.audit(lambda x: x * 2, [(1, 3, 8, 8)], devices="cpu").passed
        assert torch._C._get_graph_executor_optimize() is setting
    torch._C._set_graph_executor_optimize(before)


def test_an_audited_scripted_factory_is_traced_alike_in_every_trial(vdev):
    # Note [Unoptimised subject calls]: the callable's scripted code runs unoptimised in every trial, so
    # the optimising executor does not fold its factory into a constant after the first one.
    import torch

    scaled = torch.jit.CompilationUnit("def scaled(x):\n    return x * torch.full([1], 2.0).to(x.device)\n").scaled
    before = torch._C._get_graph_executor_optimize()
    torch._C._set_graph_executor_optimize(True)
    try:
        result = devparity.audit(lambda x: scaled(x), [(1, 3, 8, 8), (1, 3, 6, 6), (2, 3, 5, 5)],
                                 devices="cpu,vdev:1")
    finally:
        torch._C._set_graph_executor_optimize(before)
    traced = {}
    for r in result.results:
        for check in r["checks"]:
            if check["name"] == "placement":
                traced.setdefault(r["device"], set()).add((check["stats"]["ops_traced"], len(check["findings"])))
    assert set(traced) == {"cpu", "vdev:1"} and all(len(seen) == 1 for seen in traced.values()), traced
    assert result.passed


def test_an_audit_where_nothing_ran_did_not_pass(vdev, tmp_path):
    import torch

    cuda = torch.cuda.is_available()
    if cuda:
        pytest.skip("this machine has CUDA: cuda:0 rows run here")
    nowhere = devparity.audit(lambda x: x * 2, [(1, 3, 8, 8)], devices="cuda:0", report=str(tmp_path / "r.json"))
    assert nowhere.ran_nowhere and not nowhere.passed and not nowhere.failures
    assert nowhere.report["summary"]["coverage"]["ran_nowhere"]
    assert {g["device"] for g in nowhere.not_run} == {"cuda:0"}
    short = devparity.audit(lambda x: x * 2, [(1, 3, 8, 8)], devices="cpu,cuda:0")
    assert short.passed and not short.ran_nowhere and [g["device"] for g in short.not_run] == ["cuda:0"]
    required = devparity.audit(lambda x: x * 2, [(1, 3, 8, 8)], devices="cpu,cuda:0", require_all=True,
                               report=str(tmp_path / "q.json"))
    assert not required.passed
    assert devparity.load_report(tmp_path / "q.json")["summary"]["coverage"]["required"] is True
    # The twin: every device asked for ran.
    assert devparity.audit(lambda x: x * 2, [(1, 3, 8, 8)], devices="cpu,vdev:1", require_all=True).passed
    with pytest.raises(devparity.DevparityTypeError, match="require_all"):
        devparity.audit(lambda x: x, [(1, 3, 8, 8)], require_all="yes")


def test_a_callable_that_returns_a_list_gets_a_clear_error(vdev):
    result = devparity.audit(lambda x: [x, x], [(1, 3, 8, 8)], devices="cpu,vdev:1")
    assert not result.passed
    assert all("returned list, not a tensor" in r["message"] for r in result.failures), result.failures
    assert devparity.audit(lambda x: [x, x][0], [(1, 3, 8, 8)], devices="cpu,vdev:1").passed


def test_a_subject_with_no_gradient_skips_the_gradient_check_on_every_row(vdev):
    # Issue 57: a correct quantizer (its output does not require grad) failed the gradient check on
    # the vdev rows. Its differentiable twin is still compared.
    import torch

    def quantize(x):
        return (x * 4).round().detach() / 4

    def smooth(x):
        return torch.nn.functional.avg_pool2d(x, 3, stride=1, padding=1)

    image = torch.rand(1, 3, 8, 8)
    result = devparity.audit(quantize, image, devices="cpu,vdev:1")
    assert result.passed, [r["message"] for r in result.failures]
    gradient = [c for r in result.results for c in r["checks"] if c["name"] == "gradient"]
    assert len(gradient) == 2 and all(c["status"] == "skip" for c in gradient), gradient
    assert all("does not depend differentiably" in c["message"] for c in gradient), gradient
    twin = devparity.audit(smooth, image, devices="cpu,vdev:1")
    assert [c["status"] for r in twin.results for c in r["checks"] if c["name"] == "gradient"] == ["pass", "pass"]
