"""The asynchronous simulated device from Python: devparity.vdev_async(), torch.Stream and
torch.Event on vdev (torch 2.x), non-blocking copies into pinned memory, torch.vdev.synchronize
and audit(vdev_async=True). Every fault here has a clean twin that must pass in every seed."""

import pytest

import devparity

SEEDS = range(12)


def torch_2x():
    import torch

    return int(torch.__version__.split(".")[0]) >= 2


needs_2x = pytest.mark.skipif("not torch_2x()", reason="torch 1.13 has no device-generic torch.Stream, "
                                                        "torch.Event or pinned copies for a PrivateUse1 "
                                                        "backend (torch 2.x does)")


def sites(run):
    return [r.later["site"] + " | " + r.earlier["site"] for r in run.races]


@needs_2x
def test_a_host_read_before_the_copy_lands_is_a_race_and_a_sync_orders_it(vdev):
    import torch

    x = torch.arange(1.0, 4097.0).to(vdev)
    want = (torch.arange(1.0, 4097.0) * 2).sum().item()
    for seed in SEEDS:
        with devparity.vdev_async(seed=seed) as run:
            y = (x * 2).to("cpu", non_blocking=True)
            assert y.is_pinned()
            y.sum().item()  # FAULT: the host reads y before its copy is known to have landed
        assert run.poison in (0xBE, 0x5A)
        assert any("pinned host memory" in r.memory and "host" in (r.earlier["stream"], r.later["stream"])
                   for r in run.races), (seed, run.races)
        assert any("test_streams.py:" in s for s in sites(run)), sites(run)
        with devparity.vdev_async(seed=seed) as run:
            y = (x * 2).to("cpu", non_blocking=True)
            torch.vdev.synchronize()
            assert y.sum().item() == want
        assert not run.races, (seed, run.races)


def test_a_copy_between_indices_and_its_frees_are_ordered_as_cuda_orders_them(vdev):
    # Issue 57: a table kept on vdev:0 and copied to vdev:1's data ran on vdev:1's stream, so freeing
    # the table (allocated on vdev:0's) read as a race no GPU has: CUDA copies on the source's current
    # stream, between events on both devices' streams.
    import torch

    from conftest import current_device

    zero, one = devparity.device("vdev:0"), devparity.device("vdev:1")
    for seed in SEEDS:
        with devparity.vdev_async(seed=seed) as run, current_device(0):
            table = torch.arange(4, device=zero)
            x = torch.rand(3, device=one)
            y = x + table.to(x.device)[0]
            del table
            z = torch.ones(2, device=one).to(zero) * 2
            del y
        assert not run.races, (seed, run.races)
        assert z.device == zero and z.cpu().tolist() == [2.0, 2.0]


def _side_stream_work(vdev, wait):
    import torch

    x = torch.arange(1.0, 1025.0).to(vdev)
    main = torch.accelerator.current_stream(vdev)
    side = torch.Stream(device=vdev)
    a = x * 3
    if wait:
        made = torch.Event(device=vdev)
        made.record(main)
        side.wait_event(made)
    torch.accelerator.set_stream(side)
    try:
        b = a + 1  # on the side stream: reads a, written on main
    finally:
        torch.accelerator.set_stream(main)
    main.wait_stream(side)
    return (b * 1).cpu(), torch.arange(1.0, 1025.0) * 3 + 1


@needs_2x
def test_torch_stream_work_without_a_wait_is_a_race_and_an_event_orders_it(vdev):
    import torch

    for seed in SEEDS:
        with devparity.vdev_async(seed=seed) as run:
            _side_stream_work(vdev, wait=False)
        assert run.races, seed
        assert any("stream" in r.earlier["stream"] and r.earlier["stream"] != r.later["stream"] for r in run.races)
        with devparity.vdev_async(seed=seed) as run:
            got, want = _side_stream_work(vdev, wait=True)
        assert not run.races, (seed, run.races)
        assert torch.equal(got, want)


@needs_2x
def test_events_and_streams_report_what_ran(vdev):
    import torch

    with devparity.vdev_async(seed=5):
        side = torch.Stream(device=vdev)
        assert side.device == vdev and side != torch.accelerator.current_stream(vdev)
        torch.accelerator.set_stream(side)
        try:
            y = torch.ones(256, device=vdev) * 7
            done = side.record_event()
        finally:
            torch.accelerator.set_stream(torch.accelerator.current_stream(vdev))
        done.synchronize()
        assert done.query() and side.query()
        torch.accelerator.synchronize(vdev)
        assert y.cpu().sum().item() == 7 * 256


def test_single_stream_code_has_no_race_and_the_same_values(vdev):
    import torch

    mod = getattr(torch, devparity.device_type())
    x = torch.linspace(-1, 1, 3 * 32 * 32).reshape(1, 3, 32, 32)
    want = torch.nn.functional.avg_pool2d(x.clamp(-0.5, 0.5) * 2, 3)
    for seed in SEEDS:
        with devparity.vdev_async(seed=seed) as run:
            y = torch.nn.functional.avg_pool2d(x.to(vdev).clamp(-0.5, 0.5) * 2, 3)
            mod.synchronize()
            got = y.cpu()
        assert not run.races, (seed, run.races)
        assert torch.equal(got, want)
    from devparity._devices import ops

    with devparity.vdev_async(seed=1):
        assert ops().async_enabled()
    assert not ops().async_enabled()


def test_vdev_async_refuses_bad_seeds_and_nesting(vdev):
    with pytest.raises(devparity.DevparityError, match="non-negative integer"):
        devparity.vdev_async(seed=-1)
    with pytest.raises(devparity.DevparityError, match="non-negative integer"):
        devparity.vdev_async(seed="3")
    with pytest.raises(devparity.DevparityError, match="'pooled' or 'eager'"):
        devparity.vdev_async(seed=1, pinned_release="later")
    with devparity.vdev_async(seed=1) as outer:
        with pytest.raises(devparity.DevparityError, match="already open on this thread"):
            with devparity.vdev_async(seed=2):
                pass
    assert outer.races == []


def test_torchvision_transforms_audit_clean_in_async_mode(vdev):
    import torch
    from torchvision.transforms import functional as F

    def pipeline(img):
        img = F.resize(img, [24, 20], antialias=True)
        img = F.adjust_contrast(F.adjust_brightness(img, 1.2), 0.8)
        return F.gaussian_blur(F.hflip(img), [5, 5], [1.1, 1.1])

    result = devparity.audit(pipeline, [(2, 3, 33, 29)], devices="cpu,vdev:1", vdev_async=True, interleavings=3,
                             seed=11)
    assert result.passed, result.failures
    assert result.report["run"]["vdev_async"] == {"interleavings": 3, "pinned_release": "pooled"}
    rows = [r for r in result.results if r["device"] == "vdev:1"]
    assert rows and all("interleaving_seed" in r for r in rows)
    found = [f for r in rows for c in r["checks"] for f in c.get("findings", [])
             if f.get("kind") == "unsynchronized_access"]
    assert not found, found


def test_audit_refuses_interleavings_without_async():
    with pytest.raises(devparity.DevparityError, match="leave vdev_async=True"):
        devparity.audit(lambda x: x, [(1, 1, 4, 4)], devices="cpu", vdev_async=False, interleavings=2)
