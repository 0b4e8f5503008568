"""Seeded placement faults written in Python, each with its clean twin (tests/python/test_trace.py).

Each faulty module marks the line its finding must name with `# FAULT: <kind>`: the line that
made the stray tensor (an attribute's assignment, a factory) or used it wrongly.
"""

import torch

from devparity import host_handover as devparity_host_handover


class PlainAttributeGain(torch.nn.Module):
    """State kept as a plain attribute: .to() leaves it on the CPU."""

    def __init__(self):
        super().__init__()
        self.gain = torch.tensor([0.9, 1.0, 1.1]).view(1, 3, 1, 1)  # FAULT: unregistered_tensor_state

    def forward(self, x):
        return x * self.gain


class BufferGain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("gain", torch.tensor([0.9, 1.0, 1.1]).view(1, 3, 1, 1))

    def forward(self, x):
        return x * self.gain


class DevicelessRamp(torch.nn.Module):
    """A factory with no device meets the input."""

    def forward(self, x):
        ramp = torch.linspace(0, 1, x.shape[-1])  # FAULT: implicit_device_factory
        return x + ramp


class DeviceRamp(torch.nn.Module):
    def forward(self, x):
        ramp = torch.linspace(0, 1, x.shape[-1], device=x.device, dtype=x.dtype)
        return x + ramp


class HostMatrix(torch.nn.Module):
    """A non-scalar CPU tensor multiplies device data."""

    def forward(self, x):
        weights = x.new_tensor([0.299, 0.587, 0.114]).cpu().view(1, 3, 1, 1)
        return (x * weights).sum(1, keepdim=True)  # FAULT: foreign_device_input


class DeviceMatrix(torch.nn.Module):
    def forward(self, x):
        weights = x.new_tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1)
        return (x * weights).sum(1, keepdim=True)


class IndexlessMove(torch.nn.Module):
    """Moves its state with device="vdev" (the type without an index): it lands on the current device,
    which is not the data's where another index is current."""

    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.full((1, 3, 1, 1), 0.1))

    def forward(self, x):
        bias = self.bias.to(x.device.type)  # FAULT: device_without_index
        return x + bias


class IndexedMove(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.full((1, 3, 1, 1), 0.1))

    def forward(self, x):
        return x + self.bias.to(x.device)


TWINS = [(PlainAttributeGain, BufferGain), (DevicelessRamp, DeviceRamp), (HostMatrix, DeviceMatrix),
         (IndexlessMove, IndexedMove)]


# Python-only twins (tests/python/test_trace.py).

def one_hot_where_cuda_is(targets, classes):
    """Picks its device by asking what the machine has (ClassyVision #69's bug)."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # FAULT: device_dependent_code
    return torch.zeros(targets.shape[0], classes, device=device).scatter_(1, targets.long(), 1.0)


def decode_bytes(data):
    """A CPU decoder: host bytes in, a host image out, made with no device (torchvision #7391's kernel)."""
    if data.device.type != "cpu":
        raise RuntimeError("Input tensor should be on CPU")
    image = torch.empty(3, 2, 2, dtype=torch.uint8)  # FAULT: wrong_device_output
    return image.copy_(torch.tensor(list(range(12)), dtype=torch.uint8).view(3, 2, 2))


@devparity_host_handover()
def decode_bytes_declared(data):
    """The same decoder, declared a host hand-over: its host image is its purpose."""
    if data.device.type != "cpu":
        raise RuntimeError("Input tensor should be on CPU")
    image = torch.empty(3, 2, 2, dtype=torch.uint8)
    return image.copy_(torch.tensor(list(range(12)), dtype=torch.uint8).view(3, 2, 2))


def pinned_staging(shape):
    """A CPU path that pins its buffer (DALI #2396): it needs the accelerator runtime."""
    return torch.empty(shape).pin_memory()  # FAULT: accelerator_runtime


def offset_from_home(x):
    """Adds an offset it makes on the host and sends home by name: right on the CPU alone, a
    mixed-device op on an accelerator."""
    base = torch.zeros(x.shape[-1]).to("cpu")  # FAULT: foreign_device_input
    return x + base


_LIBRARY = {}


def library_ops():
    """torch.ops.dp_twins: ops a library registers as its own (torchvision::nms, a C++ extension's),
    each a fault and its clean twin: `keep_host` hands back host indices for device data, `keep` keeps
    them on the data's device; `scale_on_current` allocates its result on the current device instead
    of its input's, `scale` on its input's."""
    if not _LIBRARY:
        library = torch.library.Library("dp_twins", "DEF")
        for name in ("keep_host", "keep", "scale_on_current", "scale"):
            library.define(f"{name}(Tensor x) -> Tensor")
        library.impl("keep_host", _keep_host, "CompositeImplicitAutograd")
        library.impl("keep", _keep, "CompositeImplicitAutograd")
        library.impl("scale_on_current", _scale_on_current, "CompositeImplicitAutograd")
        library.impl("scale", _scale, "CompositeImplicitAutograd")
        _LIBRARY["library"] = library
    return torch.ops.dp_twins


def _keep_host(x):
    return torch.nonzero(x.cpu() > 0.5).flatten()  # FAULT: wrong_device_output


def _keep(x):
    return torch.nonzero(x > 0.5).flatten()


def _scale_on_current(x):
    from devparity._devices import ops

    out = torch.empty(x.shape, dtype=x.dtype, device=torch.device(x.device.type, ops().current_device()))
    return out.copy_(x.to(out.device) * 2)  # FAULT: wrong_device_output


def _scale(x):
    return x * 2


def weigh_array(array):
    """torchvision's PIL path: an image from an array (host data by nature, viewed and permuted), weighed
    with a ramp made on the image's device: host work throughout, right on every device."""
    image = torch.as_tensor(array).view(1, *array.shape).permute(0, 3, 1, 2)
    ramp = torch.linspace(0, 1, image.shape[-1]).to(image.device)  # (torchvision: a kernel .to(img.device))
    return image.float() * ramp


def weigh_with_a_host_ramp(image):
    ramp = torch.linspace(0, 1, image.shape[-1])  # FAULT: implicit_device_factory
    return image * ramp


def shape_on_meta(x):
    """Computes an output's shape on meta, as fake tensors do (torch.library.opcheck, AOT autograd)."""
    return torch.empty(x.shape, device="meta").sum(0).shape


def table_on_the_first_device(x):
    return x + torch.ones(x.shape[-1], device=torch.device(x.device.type, 0))  # FAULT: foreign_device_target


def blur_with_a_host_kernel(image):
    """A depthwise blur whose kernel is made with no device: the CPU convolves it with mkldnn, CUDA
    refuses it in every kernel it picks."""
    kernel = torch.ones(image.shape[1], 1, 3, 3) / 9  # FAULT: implicit_device_factory
    return torch.nn.functional.conv2d(image, kernel, padding=1, groups=image.shape[1])


def blur_with_a_kernel_on_its_device(image):
    kernel = torch.ones(image.shape[1], 1, 3, 3, device=image.device) / 9
    return torch.nn.functional.conv2d(image, kernel, padding=1, groups=image.shape[1])


def displaced(image):
    """torchvision's ElasticTransform: noise made on the host, blurred with a kernel moved to the noise's
    own device (gaussian_blur: `kernel.to(img.device)`), then moved to the image's: right on every device."""
    noise = torch.rand(1, 1, *image.shape[-2:]) * 2 - 1
    kernel = (torch.ones(1, 1, 3, 3) / 9).to(noise.device)
    field = torch.nn.functional.conv2d(noise, kernel, padding=1)
    return image + field.to(image.device)


def displaced_in_place(image):
    noise = torch.rand(1, 1, *image.shape[-2:]) * 2 - 1  # FAULT: implicit_device_factory
    kernel = (torch.ones(1, 1, 3, 3) / 9).to(noise.device)
    return image + torch.nn.functional.conv2d(noise, kernel, padding=1)
