"""devparity from Python: the simulated accelerator (vdev) for a library's own tests.

Importing this package changes nothing in the process: it does not import torch and loads
no library. `install()` loads devparity's op library (built against one torch version,
checked first) and installs the simulated device; on torch 2.x the device is then `vdev:K`
to torch itself, on 1.13 `privateuseone:K`. `trace()` traces a block for placement findings,
`audit()` audits a callable as `devparity run` audits a transform, `compare()` gives parity
statistics, `load_report()` reads a report file back, `host_handover()` declares code that hands data to the host on purpose, `vdev_async()` runs a block on the asynchronous simulated device with a race detector, `register_cuda_model()` gives vdev a model of a custom op's CUDA kernel. The pytest plugin is devparity.pytest_plugin (docs/python.md).
"""

from devparity._audit import AuditResult, audit, compare, load_report
from devparity._cuda_models import register_cuda_model
from devparity._devices import DevparityError, DevparityTypeError, DevparityValueError, device, device_name, device_type, install, installed_count
from devparity._findings import Finding
from devparity._handover import host_handover
from devparity._no_accelerator import NoAcceleratorError, without_accelerator
from devparity._python_layer import UnsupportedOnSimulatedDevice
from devparity._sources import add_scaffolding
from devparity._streams import AsyncRun, Race, vdev_async
from devparity._trace import Trace, trace

__all__ = ["AsyncRun", "AuditResult", "DevparityError", "DevparityTypeError", "DevparityValueError", "Finding", "NoAcceleratorError", "Race", "Trace", "add_scaffolding", "audit",
           "compare", "device", "device_name", "device_type", "host_handover", "install", "installed_count", "load_report", "register_cuda_model", "trace",
           "UnsupportedOnSimulatedDevice", "vdev_async", "without_accelerator"]
