"""One verdict whatever the process did before (Note [Autograd device threads]).

Each history runs in a fresh interpreter: what autograd's engine fixes at a process's first backward
is the point. Every history audits a clean callable and its faulty twin (a backward that makes a
CPU tensor, which fails the gradient check on vdev:1) and must give exactly the verdicts a fresh
process gives, the faulty twin's failure included: a history that broke autograd would turn the
clean audit's gradient rows into errors, and one that made a worker skip them would turn the twin's
failure into a skip.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

SUBJECTS = '''
import json, os, torch, devparity
from history_twins import clean, faulty

def verdicts(**options):
    found = {}
    for name, fn in (("clean", clean), ("faulty", faulty)):
        r = devparity.audit(fn, [torch.rand(1, 3, 8, 8)], devices="cpu,vdev:1", name=name, seed=3, **options)
        found[name] = {"passed": r.passed, "rows": sorted(
            [x["id"], x["status"], sorted([c["name"], c["status"]] for c in x["checks"])] for x in r.results)}
    return found
'''

HISTORIES = {
    "a backward on the CPU": "w = torch.ones(3, requires_grad=True); (w * 2).sum().backward()",
    "a backward on vdev": ("devparity.install(); v = torch.ones(3, device=devparity.device('vdev:1'), "
                           "requires_grad=True); (v * 2).sum().backward(); assert v.grad.sum().item() == 6"),
    "another audit": "devparity.audit(lambda x: x + 1, [torch.rand(1, 3, 5, 5)], devices='cpu,vdev:1')",
    "an isolated audit": ("devparity.audit(lambda x: x + 1, [torch.rand(1, 3, 5, 5)], devices='cpu,vdev:1', "
                          "isolate=True)"),
    "CUDA queries": "torch.cuda.is_available()\ntry:\n    torch.zeros(1, device='cuda')\nexcept Exception:\n    pass",
    "a raised index count": ("devparity.install(2); v = torch.ones(3, device=devparity.device('vdev:1'), "
                             "requires_grad=True); v.sum().backward(); devparity.install(4); "
                             "u = torch.ones(3, device=devparity.device('vdev:3'), requires_grad=True); "
                             "(u * 3).sum().backward(); assert u.grad.sum().item() == 9"),
}
AUDITS = {"in place": "", "isolated": "isolate=True", "with a time limit": "timeout_s=300"}


def run(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # conftest put the twins there
    out = subprocess.run([sys.executable, "-c", SUBJECTS + textwrap.dedent(code)], capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fresh():
    found = run("print(json.dumps(verdicts()))")
    # The twins: the clean callable passes everywhere, the faulty one fails its gradient on vdev:1 alone.
    assert found["clean"]["passed"]
    assert not found["faulty"]["passed"]
    failing = [row for row in found["faulty"]["rows"] if row[1] != "pass"]
    assert [row[0].split("/")[3] for row in failing] == ["vdev:1"], failing
    assert ["gradient", "error"] in failing[0][2] or ["gradient", "fail"] in failing[0][2], failing
    return found


@pytest.mark.parametrize("audit", list(AUDITS))
@pytest.mark.parametrize("history", list(HISTORIES))
def test_the_verdicts_do_not_depend_on_what_the_process_did_before(fresh, history, audit):
    found = run(f"{HISTORIES[history]}\nprint(json.dumps(verdicts({AUDITS[audit]})))")
    assert found == fresh, f"after {history}, audited {audit}"


def test_the_issues_snippets():
    # A backward before audit(); then isolate=True in a fresh process (its fork once probed autograd first).
    found = run("""
        w = torch.ones(3, requires_grad=True); (w * 2).sum().backward()
        r = devparity.audit(lambda x: x * 0.5, [torch.rand(1, 3, 8, 8)], devices="cpu,vdev:1")
        print(json.dumps(r.passed))""")
    assert found is True
    assert run("""
        r = devparity.audit(lambda x: x * 0.5, [torch.rand(1, 3, 8, 8)], devices="cpu,vdev:1", isolate=True)
        print(json.dumps([r.passed, [c["status"] for x in r.results for c in x["checks"] if c["name"] == "gradient"]]))
        """) == [True, ["pass", "pass"]]


def test_a_backward_before_install_left_no_thread_for_vdev_and_install_serves_it():
    # The cause, seen directly: PyTorch's pool after a CPU-only backward has no device thread at all,
    # so every later vdev backward met engine.cpp's assertion; install() serves vdev's indices.
    before, after, grad = run("""
        w = torch.ones(3, requires_grad=True); w.sum().backward()
        before = devparity._devices.ops().autograd_pool_size()
        devparity.install(3)
        after = devparity._devices.ops().autograd_pool_size()
        v = torch.ones(2, device=devparity.device("vdev:2"), requires_grad=True)
        (v * 4).sum().backward()
        print(json.dumps([before, after, v.grad.sum().item()]))""")
    # 0 threads on LibTorch 1.13; 1 on Debian's 2.6, whose Vulkan guard counts one device. Either way
    # none for vdev:2.
    assert before < 3 and after == 3 and grad == 8.0, (before, after, grad)


def test_an_audit_then_backward_passes_of_the_process_own():
    assert run("""
        devparity.audit(lambda x: x * 0.5, [torch.rand(1, 3, 8, 8)], devices="cpu,vdev:1")
        v = torch.ones(3, device=devparity.device("vdev:1"), requires_grad=True)
        (v * 2).sum().backward()
        w = torch.ones(3, requires_grad=True)
        (w * 3).sum().backward()
        print(json.dumps([v.grad.sum().item(), w.grad.sum().item()]))""") == [6.0, 9.0]


def test_a_traced_backward_after_a_backward_finds_nothing_on_clean_code():
    assert run("""
        w = torch.ones(3, requires_grad=True); w.sum().backward()
        devparity.install()
        x = torch.rand(1, 3, 4, 4, device=devparity.device("vdev:1"), requires_grad=True)
        with devparity.trace("vdev:1") as t:
            (x * 2).sum().backward()
        print(json.dumps([[str(f) for f in t.findings], x.grad.sum().item()]))""") == [[], 96.0]


def test_a_fork_runs_vdev_backward_after_the_parent_did():
    # The threads devparity starts do not survive fork(): the child's first vdev tensor starts them again.
    # Where PyTorch started device threads of its own it refuses autograd in any fork (its rule, for
    # CUDA's sake): the child then gets PyTorch's error at once, not a backward that waits forever.
    assert run("""
        devparity.install()
        v = torch.ones(3, device=devparity.device("vdev:1"), requires_grad=True)
        (v * 2).sum().backward()
        refused = devparity._devices.ops().forks_refuse_autograd()
        pid = os.fork()
        if pid == 0:
            u = torch.ones(3, device=devparity.device("vdev:1"), requires_grad=True)
            try:
                (u * 5).sum().backward()
            except RuntimeError as e:
                os._exit(0 if refused and "fork" in str(e) else 2)
            os._exit(0 if u.grad.sum().item() == 15 and not refused else 1)
        import time
        deadline = time.time() + 120
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                print(json.dumps(os.waitstatus_to_exitcode(status)))
                break
            if time.time() > deadline:  # its backward waits on a thread that does not exist
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                print(json.dumps("hung"))
                break
            time.sleep(0.05)
        """) == 0


def test_loading_devparity_registers_no_device_and_installing_makes_vdev_the_accelerator():
    # The H100's CUDA gradient rows asserted because libdevparity installed the simulated device when
    # it loaded, and torch 2.x then takes it for the process's accelerator, whose streams autograd asks
    # for every node (Note [One accelerator per process]). What a CPU can see of that: loading
    # registers nothing a process meets; installing registers the device and, on 2.x, the accelerator.
    found = run("""
        ops = devparity._devices.ops()
        api = getattr(getattr(torch, "accelerator", None), "current_accelerator", None)
        def state():
            try:
                current = api() if api else None
            except RuntimeError:  # 2.6: "Cannot access accelerator device when none is available"
                current = None
            return {"guard": not ops.device_absent("privateuseone:0"), "accelerator": current and current.type}
        loaded = state()
        devparity.install()
        print(json.dumps({"loaded": loaded, "installed": state(), "api": api is not None,
                          "name": devparity.device_type()}))""")
    assert not found["loaded"]["guard"] and found["installed"]["guard"], found
    assert found["loaded"]["accelerator"] not in ("vdev", "privateuseone"), found
    if found["api"]:  # torch 2.6+: the named backend is the process's accelerator once installed
        assert found["installed"]["accelerator"] == found["name"] == "vdev", found


def test_where_forks_refuse_autograd_an_isolated_audit_runs_in_a_fresh_interpreter():
    # PyTorch refuses autograd in forks of a process whose engine started device threads of its own
    # (Debian's LibTorch 2.6 counts a Vulkan device, so any backward does; CUDA on a GPU machine): the
    # worker is then a fresh interpreter given the audit pickled. A lambda cannot be, and its report
    # says why its gradients were not checked.
    found = run("""
        w = torch.ones(3, requires_grad=True); (w * 2).sum().backward()
        devparity.install()
        refused = devparity._devices.ops().forks_refuse_autograd()
        out = [refused]
        for fn in (clean, lambda x: x * 0.5):
            r = devparity.audit(fn, [torch.rand(1, 3, 8, 8)], devices="cpu,vdev:1", isolate=True)
            out.append([r.passed, r.report["run"]["isolation"],
                        sorted(c["status"] for x in r.results for c in x["checks"] if c["name"] == "gradient")])
        print(json.dumps(out))""")
    refused, module_level, lam = found
    assert module_level == [True, {"worker": "spawn" if refused else "fork"}, ["pass", "pass"]], found
    if refused:  # the gradient check is off in that fork, and the report says why
        assert lam[0] and "does not pickle" in lam[1]["gradient"] and lam[2] == [], found
    else:
        assert lam == [True, {"worker": "fork"}, ["pass", "pass"]], found
