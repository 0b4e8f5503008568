"""devparity.trace(): real torchvision code passes, seeded Python faults are caught at their line."""

import json

import pytest

import devparity
from conftest import current_device, fault_line
from placement_twins import TWINS


def image(device, dtype=None):
    import torch

    g = torch.Generator().manual_seed(5)
    x = torch.rand(2, 3, 23, 17, generator=g)
    if dtype is not None and not dtype.is_floating_point:
        x = (x * 255).round().to(dtype)
    return x.to(device)


def torchvision_calls():
    import torchvision.transforms as T
    import torchvision.transforms.functional as F

    return {
        "resize": lambda x: F.resize(x, [11, 9]),
        "resize_nearest": lambda x: F.resize(x, [31, 12], interpolation=T.InterpolationMode.NEAREST),
        "center_crop": lambda x: F.center_crop(x, [9, 7]),
        "pad_reflect": lambda x: F.pad(x, [2, 3], padding_mode="reflect"),
        "rotate": lambda x: F.rotate(x, -45.0, expand=True, fill=[0.5]),
        "affine": lambda x: F.affine(x, angle=10.0, translate=[2, 1], scale=1.1, shear=[3.0]),
        "perspective": lambda x: F.perspective(x, [[0, 0], [16, 0], [16, 22], [0, 22]],
                                               [[1, 2], [15, 0], [14, 21], [0, 20]]),
        "gaussian_blur": lambda x: F.gaussian_blur(x, [5, 3], [1.5, 0.8]),
        "adjust_hue": lambda x: F.adjust_hue(x, 0.2),
        "adjust_saturation": lambda x: F.adjust_saturation(x, 1.5),
        "adjust_contrast": lambda x: F.adjust_contrast(x, 0.7),
        "rgb_to_grayscale": lambda x: F.rgb_to_grayscale(x, 3),
        "invert": F.invert,
        "posterize_uint8": None,
        "erase": lambda x: F.erase(x, 2, 3, 5, 4, v=x.new_zeros(3, 5, 4)),
        "normalize": lambda x: F.normalize(x.float(), [0.5, 0.4, 0.3], [0.2, 0.2, 0.2]),
        "elastic": lambda x: T.ElasticTransform(alpha=20.0, sigma=2.0)(x),
        "color_jitter": lambda x: T.ColorJitter(0.3, 0.3, 0.3, 0.1)(x),
        "random_resized_crop": lambda x: T.RandomResizedCrop([13, 13])(x),
    }


@pytest.mark.parametrize("name", sorted(torchvision_calls()))
def test_torchvision_runs_on_vdev_without_errors(vdev, name):
    import torch

    call = torchvision_calls()[name]
    if call is None:
        import torchvision.transforms.functional as F

        call, dtype = (lambda x: F.posterize(x, 3)), torch.uint8
    else:
        dtype = torch.float32
    if name == "elastic" and not hasattr(__import__("torchvision.transforms", fromlist=["T"]), "ElasticTransform"):
        pytest.skip("this torchvision has no ElasticTransform")
    x = image(vdev, dtype)
    ops = devparity._devices.ops()
    ops.cuda_arithmetic_take()
    torch.manual_seed(0)
    with devparity.trace() as t:
        out = t.returned(call(x))
    moved = json.loads(ops.cuda_arithmetic_take())["moved"]
    assert out.device == vdev
    assert t.target_name in ("vdev:1", "privateuseone:1")
    assert [str(f) for f in t.errors] == []
    torch.manual_seed(0)
    expected = call(x.cpu())
    if moved:  # CUDA's arithmetic (its resampling): within float32's rounding of the CPU's
        assert set(moved) <= {"cuda_interpolate", "cuda_grid_sample", "sgemm_fma"}, moved
        torch.testing.assert_close(out.cpu(), expected)
    else:  # otherwise vdev computes with the CPU's kernels
        assert torch.equal(out.cpu(), expected)
    if name in ("resize", "perspective"):
        assert moved, "torchvision's resize and perspective run interpolate and grid_sample, which vdev models"



@pytest.mark.parametrize("faulty, clean", TWINS, ids=[f.__name__ for f, _ in TWINS])
def test_python_faults_are_caught_at_their_line(vdev, faulty, clean):
    file, line, kind = fault_line(faulty)
    x = image(vdev)
    with current_device(0), devparity.trace() as t:  # as the plugin runs vdev:1 (Note [Current device])
        try:
            faulty().to(vdev)(x)
        except RuntimeError as e:
            assert "same device" in str(e)
    caught = [f for f in t.errors if f.kind == kind]
    assert caught, f"{faulty.__name__}: no {kind} among {[str(f) for f in t.findings]}"
    assert (caught[0].file, caught[0].line) == (file, line), str(caught[0])
    with current_device(0), devparity.trace() as t:
        clean().to(vdev)(x)
    assert t.errors == [], [str(f) for f in t.errors]


def test_findings_are_objects(vdev):
    import torch

    x = image(vdev)
    with pytest.raises(RuntimeError, match="same device"):
        with devparity.trace(vdev) as t:
            x * torch.ones(1, 3, 1, 1)
    kinds = {f.kind for f in t.findings}
    assert {"foreign_device_input", "device_mismatch_error"} <= kinds
    f = next(f for f in t.findings if f.kind == "foreign_device_input")
    assert f.severity == "error" and f.op == "aten::mul.Tensor" and "cpu" in f.devices
    assert f.file.endswith("test_trace.py") and f.line is not None


def test_the_cpu_row_passes_clean_code():
    import torch

    x = image("cpu")
    for _, clean in TWINS:
        with devparity.trace("cpu") as t:
            clean()(x)
        assert t.errors == [], [str(f) for f in t.errors]
    with devparity.trace() as t:
        torch.ones(3) + torch.arange(3)
    assert t.findings == [] and t.target_name == "cpu"


def test_a_trace_sees_a_scripted_factory_on_every_call_and_puts_the_setting_back(vdev):
    # Note [Unoptimised subject calls]: under the trace TorchScript runs unoptimised, whatever the
    # thread's setting, which the trace leaves as it found it. Optimised, the executor folds the factory
    # into a constant after its profiled call: the trace then saw one op fewer and a host-to-device copy.
    import torch

    scaled = torch.jit.CompilationUnit("def scaled(x):\n    return x * torch.full([1], 2.0).to(x.device)\n").scaled
    x = image(vdev)
    before = torch._C._get_graph_executor_optimize()
    try:
        for setting in (True, False):
            torch._C._set_graph_executor_optimize(setting)
            seen = []
            for _ in range(4):
                with devparity.trace(vdev) as t:
                    scaled(x)
                seen.append((t.ops, sorted(f.kind for f in t.findings)))
                assert torch._C._get_graph_executor_optimize() is setting
            # The same ops on every call, none of them a finding (the count is the release's own).
            assert seen == [seen[0]] * 4 and seen[0][1] == [], (setting, seen)
    finally:
        torch._C._set_graph_executor_optimize(before)


def test_traces_do_not_nest(vdev):
    with devparity.trace():
        with pytest.raises(devparity.DevparityError, match="do not nest"):
            with devparity.trace():
                pass
    with devparity.trace() as t:  # the outer one ended cleanly
        pass
    assert t.findings == []


def test_a_device_query_in_library_code_is_reported_at_its_line(vdev):
    import torch

    from placement_twins import one_hot_where_cuda_is

    file, line, kind = fault_line(one_hot_where_cuda_is)
    targets = torch.tensor([[0], [2]]).to(vdev)
    with pytest.raises(RuntimeError, match="same device"):
        with devparity.trace(vdev) as t:
            one_hot_where_cuda_is(targets, 3)
    queried = [f for f in t.findings if f.kind == kind]
    assert queried and queried[0].severity == "warning" and (queried[0].file, queried[0].line) == (file, line)
    with devparity.trace("cpu") as t:
        torch.cuda.is_available()  # the test's own question is no finding
    assert t.findings == []


def test_a_cpu_result_of_cpu_input_is_clean_and_a_host_result_of_device_data_is_not():
    import torch

    from placement_twins import decode_bytes, decode_bytes_declared

    data = torch.frombuffer(bytearray(range(8)), dtype=torch.uint8)  # bytes: host data by nature
    with devparity.trace("cpu") as t:
        t.returned(decode_bytes(data))
    assert t.errors == [], [str(f) for f in t.errors]
    image = torch.rand(1, 3, 2, 2)
    file, line, kind = fault_line(decode_bytes)
    with devparity.trace("cpu") as t:
        t.inputs(image)  # the caller's image: device data on the cpu row (made outside, it is neutral)
        t.returned(decode_bytes(image))
    wrong = [f for f in t.errors if f.kind == kind]
    assert wrong and wrong[0].made_at == f"{file}:{line}", [str(f) for f in t.findings]
    with devparity.trace("cpu") as t:  # declared: a hand-over's host result is its purpose
        t.inputs(image)
        t.returned(decode_bytes_declared(image))
    assert t.errors == [], [str(f) for f in t.errors]


def test_without_an_accelerator_the_runtime_is_refused_and_reported(vdev):
    import torch

    from placement_twins import pinned_staging

    file, line, kind = fault_line(pinned_staging)
    with devparity.trace("cpu") as t, devparity.without_accelerator():
        assert not torch.cuda.is_available() and torch.cuda.device_count() == 0
        with pytest.raises(devparity.NoAcceleratorError, match="pin_memory"):
            pinned_staging((2, 2))
        with pytest.raises(devparity.NoAcceleratorError):
            torch.zeros(2, device=vdev)
    refused = [f for f in t.errors if f.kind == kind]
    assert refused and (refused[0].file, refused[0].line) == (file, line), [str(f) for f in t.findings]
    torch.zeros(2, device=vdev)  # the runtime is back after the block


def test_kept_state_of_a_module_never_moved(vdev):
    import torch

    from placement_twins import PlainAttributeGain

    class CopiesPerCall(torch.nn.Module):
        # Kornia's Normalize: host constants by design, copied to the data's device on each call.
        def __init__(self):
            super().__init__()
            self.mean = torch.tensor([0.5, 0.4, 0.3]).view(1, 3, 1, 1)

        def forward(self, x):
            return x - self.mean.to(x)

    x = image(vdev)
    with devparity.trace(vdev) as t:
        CopiesPerCall()(x)
    assert t.errors == [] and {f.kind for f in t.warnings} == {"host_to_device_copy"}, [str(f) for f in t.findings]
    # Never moved, used as it is: the table is left on the CPU all the same.
    file, line, kind = fault_line(PlainAttributeGain)
    with pytest.raises(RuntimeError, match="same device"):
        with devparity.trace(vdev) as t:
            PlainAttributeGain()(x)
    kept = [f for f in t.errors if f.kind == kind]
    assert kept and (kept[0].file, kept[0].line) == (file, line), [str(f) for f in t.findings]


def test_findings_in_backward_name_the_forward_line(vdev):
    # Note [Backward lines]: autograd runs backward on a thread with no Python frames.
    import inspect

    import torch

    x = torch.rand(4, device=vdev, requires_grad=True)
    picks = torch.tensor([0, 2])  # host indices: copied to the device in forward and in backward
    with devparity.trace(vdev) as t:
        line = inspect.currentframe().f_lineno + 1
        picked = x[picks]
        picked.sum().backward()
    copies = [f for f in t.findings if f.kind == "host_to_device_copy"]
    assert len(copies) >= 2, [str(f) for f in t.findings]  # the forward's and the backward's
    assert all(f.line == line for f in copies), [str(f) for f in t.findings]


def test_on_the_cpu_alone_nothing_is_off_a_device(vdev):
    # Issue 57: a trace of CPU-only code reported the test's data meeting data moved with
    # `.to("cpu")` (and that move as a copy onto the device). The same code on vdev:1 is caught.
    import torch

    from placement_twins import offset_from_home

    for target in (None, "cpu"):
        with devparity.trace(target) as t:
            x = torch.rand(2, 3).to("cpu")
            t.returned(offset_from_home(x) + torch.ones(3))
        assert t.findings == [], (target, [str(f) for f in t.findings])
    file, line, kind = fault_line(offset_from_home)
    with pytest.raises(RuntimeError, match="same device"), devparity.trace(vdev) as t:
        offset_from_home(torch.rand(2, 3, device=vdev))
    assert any(f.kind == kind and f.made_at == f"{file}:{line}" for f in t.errors), [str(f) for f in t.findings]


def test_a_library_op_whose_result_leaves_its_inputs_device_is_caught_at_the_op(vdev):
    # Issue 57: host indices from a library's op, used only to index device data, passed as a
    # host_to_device_copy warning (`x[idx]` works on a GPU); an op that allocates its result on the
    # current device was not caught. Each is the op's error, beside its clean twin.
    import torch

    from conftest import current_device
    from placement_twins import library_ops

    ops = library_ops()
    x = torch.rand(16, device=vdev)
    for faulty, clean, device in (("keep_host", "keep", "cpu"), ("scale_on_current", "scale", "vdev:0")):
        with current_device(0), devparity.trace(vdev) as t:
            result = getattr(ops, faulty)(x)
            if faulty == "keep_host":
                x[result]  # works on a GPU: index moves host indices
        wrong = [f for f in t.errors if f.kind == "wrong_device_output" and f.op == f"dp_twins::{faulty}"]
        assert wrong and wrong[0].devices == (device,), [str(f) for f in t.findings]
        assert wrong[0].file == __file__, wrong[0]
        with current_device(0), devparity.trace(vdev) as t:
            result = getattr(ops, clean)(x)
            x[result] if clean == "keep" else result
        assert t.errors == [], [str(f) for f in t.errors]


def test_host_data_whose_device_the_library_reads_through_a_view_is_its_own_business():
    # Issue 57: torchvision's gaussian_blur of a PIL image on the cpu row (pil_to_tensor's
    # as_tensor(array).view().permute(), a kernel made on img.device) was reported as host data
    # meeting device data. Its twin, a ramp made with no device for the test's image, is caught.
    import numpy as np
    import torch

    from placement_twins import weigh_array, weigh_with_a_host_ramp

    image = torch.rand(1, 3, 8, 8)
    with devparity.trace("cpu") as t:
        t.inputs(image)  # the test's own data: device data on the cpu row
        t.returned(weigh_array(np.random.default_rng(0).random((8, 8, 3), dtype=np.float32)))
    assert t.errors == [], [str(f) for f in t.errors]
    file, line, kind = fault_line(weigh_with_a_host_ramp)
    with devparity.trace("cpu") as t:
        t.inputs(image)
        t.returned(weigh_with_a_host_ramp(image))
    assert any(f.kind == kind and f.line == line for f in t.errors), [str(f) for f in t.findings]


def test_meta_holds_no_data_and_another_index_does(vdev):
    # Issue 57: torchvision 0.21's opcheck tests made meta tensors under the trace, each reported as a
    # factory asking for "another device".
    import torch

    from placement_twins import shape_on_meta, table_on_the_first_device

    x = torch.rand(2, 3, device=vdev)
    with devparity.trace(vdev) as t:
        assert shape_on_meta(x) == (3,)
    assert t.errors == [], [str(f) for f in t.errors]
    file, line, kind = fault_line(table_on_the_first_device)
    with pytest.raises(RuntimeError, match="same device"), devparity.trace(vdev) as t:
        table_on_the_first_device(x)
    assert any(f.kind == kind and f.line == line for f in t.errors), [str(f) for f in t.findings]


def test_the_cpu_rows_watch_keeps_below_torchs_python_ops_and_the_codes_own_modes():
    # Issue 57: on torch 1.13 the cpu row's watch of Python code sits in torch's C++ slot (Note [A mode
    # set at the C++ level]). torch's Python-defined ops (`1 - x`) still run, a mode the code pushes
    # sees its calls, and host data made inside and after that mode is still seen.
    import torch
    from torch.overrides import TorchFunctionMode

    from placement_twins import weigh_array, weigh_with_a_host_ramp

    class Counting(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.calls += 1
            return func(*args, **(kwargs or {}))

    file, line, kind = fault_line(weigh_with_a_host_ramp)
    image = torch.rand(1, 3, 2, 4)
    counting = Counting()
    with devparity.trace("cpu") as t:
        t.inputs(image)
        flipped = 1 - image
        with counting:
            doubled = flipped * 2
        t.returned(weigh_with_a_host_ramp(image))
    assert counting.calls >= 1 and torch.equal(doubled, (1 - image) * 2)
    caught = [f for f in t.errors if f.kind == kind]
    assert caught and (caught[0].file, caught[0].line) == (file, line), [str(f) for f in t.findings]
    with devparity.trace("cpu") as t:  # its clean twin: nothing
        t.inputs(image)
        with Counting():
            t.returned(weigh_array((image.permute(0, 2, 3, 1)[0] * 255).byte().numpy()))
    assert t.errors == [], [str(f) for f in t.errors]


def test_the_cpu_rows_watch_hands_the_calls_it_does_not_look_at_on_in_c(monkeypatch):
    # Issue 57: the watch saw every torch call in Python (a pure-Python roi_align reference ran 14x
    # slower traced on the cpu row). Only the functions it looks at reach its Python handler now
    # (Note [A mode's pass-through in C]); the rest, an error raised included, pass straight on, and
    # host data is still seen. The twin: the Python-only watch hands every call to its handler.
    import types

    import torch

    from devparity import _host_data

    from placement_twins import weigh_with_a_host_ramp

    # The counting handler's frame must not be the test's: the watch charges a factory to its caller.
    namespace = {}
    exec(compile("def wrap(handler, seen):\n"
                 "    def counted(func, *args, **kwargs):\n"
                 "        seen.append(func)\n"
                 "        return handler(func, *args, **kwargs)\n"
                 "    return counted\n"
                 "def as_method(handler):\n"
                 "    return lambda mode, *args, **kwargs: handler(*args, **kwargs)\n", "<counting>", "exec"),
         namespace)

    def counted(install):
        seen = []

        def counting(target, handler, *rest):
            return install(target, namespace["wrap"](handler, seen), *rest)

        return seen, counting

    def run(install):
        seen, counting = counted(install)
        monkeypatch.setattr(_host_data, "_pass_through_in_c", counting)
        image = torch.rand(1, 3, 2, 4)
        with devparity.trace("cpu") as t:
            t.inputs(image)
            for _ in range(3):
                image.add(1)[0, 1].sum()
            with pytest.raises(RuntimeError):
                image.view(5)
            t.returned(weigh_with_a_host_ramp(image))
        return seen, t

    file, line, kind = fault_line(weigh_with_a_host_ramp)
    seen, t = run(_host_data._pass_through_in_c)
    assert torch.Tensor.add not in seen and torch.Tensor.view not in seen, seen
    assert torch.arange in seen or torch.linspace in seen, seen
    caught = [f for f in t.errors if f.kind == kind]
    assert caught and (caught[0].file, caught[0].line) == (file, line), [str(f) for f in t.findings]
    assert torch.ones(2).add(1).sum().item() == 4  # the watch is gone after the block

    def python_only(target, handler, *rest):
        # Where torch calls it: the instance's attribute, a method of the mode (2.x checks __self__).
        target.__torch_function__ = types.MethodType(namespace["as_method"](handler), target)

    seen, t = run(python_only)
    assert torch.Tensor.add in seen and [f for f in t.errors if f.kind == kind], seen


def test_a_convolution_with_a_host_kernel_is_caught_on_the_cpu_row_as_on_the_device(vdev):
    # Issue 57: on the cpu row conv2d reaches mkldnn's kernel, which has no CUDA rule: a host kernel
    # met device data unjudged. convolution itself is judged now (every backend CUDA picks takes one GPU).
    import torch

    from placement_twins import blur_with_a_host_kernel, blur_with_a_kernel_on_its_device

    file, line, kind = fault_line(blur_with_a_host_kernel)
    for target in ("cpu", vdev):
        image = torch.rand(1, 3, 8, 8, device=target)
        with devparity.trace(target) as t:
            t.inputs(image)
            try:
                t.returned(blur_with_a_host_kernel(image))
            except RuntimeError as e:
                assert target != "cpu" and "device" in str(e)
        made = [f for f in t.errors if f.kind == kind]
        assert made and (made[0].file, made[0].line) == (file, line), (target, [str(f) for f in t.findings])
        assert any(f.kind == "foreign_device_input" and f.op == "aten::conv2d" for f in t.errors), target
        with devparity.trace(target) as t:
            t.inputs(image)
            t.returned(blur_with_a_kernel_on_its_device(image))
        assert t.errors == [], (target, [str(f) for f in t.errors])


def test_host_data_blurred_on_its_own_device_then_moved_is_clean_on_every_row(vdev):
    # Issue 57: torchvision's ElasticTransform on the cpu row (test_elastic_transform_consistency): its
    # noise (`torch.rand(size) * 2 - 1`) is host data whose `.device` the blur reads for its kernel, so
    # the kernel is made on the host too; read as device data, their convolution was a false alarm.
    import torch

    from placement_twins import displaced, displaced_in_place

    for target in ("cpu", vdev):
        image = torch.rand(1, 1, 6, 5, device=target)
        with devparity.trace(target) as t:
            t.inputs(image)
            t.returned(displaced(image))
        assert t.errors == [], (target, [str(f) for f in t.errors])
    file, line, kind = fault_line(displaced_in_place)
    image = torch.rand(1, 1, 6, 5, device=vdev)
    with pytest.raises(RuntimeError, match="device"), devparity.trace(vdev) as t:
        t.inputs(image)
        displaced_in_place(image)
    assert any(f.kind == kind and (f.file, f.line) == (file, line) for f in t.errors), [str(f) for f in t.findings]
