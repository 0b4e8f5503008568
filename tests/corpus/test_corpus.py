"""The corpus of real device bugs (tests/corpus/README.md), through devparity's public Python API:
every faulty twin fails with a finding of its kind, every fixed twin is clean; and the real Kornia
0.7.1 RandomPlanckianJitter fails with unregistered_tensor_state at its attribute's line."""

import os
import re
import tarfile

import pytest

import runners

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("DEVPARITY_SHARED", os.path.join(HERE, "..", "..", "..", "shared"))
CASES = [(bug, api) for bug in runners.bug_names() for api in runners.load(bug).BUG["apis"]]


@pytest.fixture(scope="module", autouse=True)
def simulated_device():
    runners.setup()


@pytest.mark.parametrize("bug, api", CASES, ids=[f"{b}-{a}" for b, a in CASES])
def test_the_bug_is_caught_and_its_fix_is_clean(bug, api):
    expect = set(runners.load(bug).BUG["expect"])
    faulty = runners.RUNNERS[api](bug, "faulty")
    assert faulty.failed, f"{bug} through {api}: the faulty twin passed"
    if api != "plugin":  # the plugin's verdict is the test's failure; its text is pytest's
        assert faulty.kinds & expect, f"{bug} through {api}: none of {sorted(expect)} in {sorted(faulty.kinds)}: {faulty.detail}"
    fixed = runners.RUNNERS[api](bug, "fixed")
    assert not fixed.failed, f"{bug} through {api}: the fixed twin failed: {fixed.detail}"


def test_every_bug_cites_its_record():
    for bug in runners.bug_names():
        record = runners.load(bug).BUG
        for key in ("id", "project", "issue", "fix", "file", "title", "class", "apis", "expect"):
            assert record.get(key), f"{bug}: BUG has no {key}"
        assert record["issue"].startswith("https://github.com/"), bug
        assert set(record["apis"]) <= set(runners.RUNNERS), bug
    assert len(runners.bug_names()) >= 30


@pytest.fixture(scope="module")
def kornia_071(tmp_path_factory):
    archive = os.path.join(SHARED, "kornia", "kornia-v0.7.1.tar.xz")
    if not os.path.exists(archive):
        if os.environ.get("CI"):
            pytest.fail(f"MISSING: {archive} (the shared Kornia releases)")
        pytest.skip(f"no {archive}: the real Kornia release is not here")
    root = tmp_path_factory.mktemp("kornia")
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name.split("/")[1:2] == ["kornia"]]
        tar.extractall(root, members=members)
    source = next(os.path.join(root, d) for d in os.listdir(root))
    import sys

    sys.path[:0] = [source, os.path.join(SHARED, "kornia", "kornia_rs_stub")]
    yield source
    sys.path.remove(source)


def test_the_real_kornia_planckian_jitter_is_caught_at_its_attribute(kornia_071):
    import torch

    import devparity

    import kornia.augmentation._2d.intensity.planckian_jitter as planckian
    from kornia.augmentation import RandomPlanckianJitter

    jitter_file = os.path.join(kornia_071, "kornia", "augmentation", "_2d", "intensity", "planckian_jitter.py")
    with open(jitter_file) as f:
        text = f.read().splitlines()
    lines = {i + 1 for i, line in enumerate(text) if "self.pl = _pl" in line}
    moved = next(i + 1 for i, line in enumerate(text) if "self.pl = self.pl.to(" in line)
    # On a GPU machine its table is made on gpu 0 (get_cuda_or_mps_device_if_available): so here.
    gpu0 = devparity.device("vdev:0")
    helper = planckian.get_cuda_or_mps_device_if_available
    planckian.get_cuda_or_mps_device_if_available = lambda: gpu0
    try:
        made_on_gpu0 = [RandomPlanckianJitter(p=1.0) for _ in range(2)]
    finally:
        planckian.get_cuda_or_mps_device_if_available = helper
    result = devparity.audit(made_on_gpu0[0], [torch.rand(2, 3, 8, 8)], devices="cpu,vdev:1", random=True, seeds=[0])
    assert not result.passed
    kept = [f for r in result.failures for c in r["checks"] for f in c.get("findings", [])
            if f["kind"] == "unregistered_tensor_state"]
    assert kept, result.failures
    file, _, line = kept[0]["source"].rpartition(":")
    assert os.path.samefile(file, jitter_file) and int(line) in lines, kept[0]
    dev = devparity.device("vdev:1")
    with devparity.trace(dev) as t:
        t.returned(made_on_gpu0[1].to(dev)(torch.rand(2, 3, 8, 8).to(dev)))
    assert [f.kind for f in t.errors] == ["unregistered_tensor_state"], [str(f) for f in t.errors]
    assert int(t.errors[0].line) in lines and t.errors[0].met_at.endswith(f":{moved}")


def test_the_corpus_page_lists_every_bug_and_no_other():
    with open(os.path.join(HERE, "..", "..", "docs", "corpus.md")) as f:
        page = f.read()
    listed = re.findall(r"^\| \[([a-z0-9_.-]+)\]\(", page, re.M)
    assert len(listed) == len(set(listed)), f"docs/corpus.md lists a bug twice: {sorted(listed)}"
    ids = {runners.load(b).BUG["id"] for b in runners.bug_names()}
    assert set(listed) == ids, (f"docs/corpus.md lacks {sorted(ids - set(listed))} and lists "
                                f"{sorted(set(listed) - ids)} that the corpus has not: rerun tools/corpus_table.py")
