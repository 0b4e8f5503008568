"""The pytest plugin's options, read once from a run's config."""

from __future__ import annotations

import argparse
import dataclasses
import os
from typing import Any, List, Optional

import pytest


@dataclasses.dataclass(frozen=True)
class PluginOptions:
    """What a run asked of devparity (docs/python.md names each option)."""

    devices: List[str]
    vdev_count: Optional[int]
    trace: bool
    strict: bool                 # --devparity-placement=strict
    report: Optional[str]
    random_sweep: int
    scaffolding: List[str]
    vdev_sync: bool
    pinned_release: str
    perturb: Optional[str]
    cuda_arithmetic: bool        # --devparity-vdev-arithmetic=cuda
    shard: Optional[str]
    warnings_once: bool          # --devparity-warnings=once
    vdev_environment: bool       # DEVPARITY_VDEV=1
    vdev_count_environment: str  # DEVPARITY_VDEV_COUNT (default "2")

    @property
    def placement(self) -> str:
        return "strict" if self.strict else "warn"

    @property
    def warnings(self) -> str:
        return "once" if self.warnings_once else "each"

    @classmethod
    def of(cls, namespace: argparse.Namespace) -> PluginOptions:
        """The options of a run's arguments (its config's known_args_namespace, read before the first
        conftest is imported)."""
        def get(name: str) -> Any:
            return getattr(namespace, name)

        vdev_environment = os.environ.get("DEVPARITY_VDEV") == "1"
        devices = [d.strip() for d in (get("devparity_devices") or "").split(",") if d.strip()]
        if not devices and vdev_environment:
            devices = ["cpu", "vdev:1"]
        return cls(devices=devices, vdev_count=get("devparity_vdev_count"), trace=bool(get("devparity_trace")),
                   strict=get("devparity_placement") == "strict", report=get("devparity_report"),
                   random_sweep=int(get("devparity_random_sweep")), scaffolding=list(get("devparity_scaffolding") or []),
                   vdev_sync=bool(get("devparity_vdev_sync")), pinned_release=str(get("devparity_pinned_release")),
                   perturb=get("devparity_perturb"), cuda_arithmetic=get("devparity_vdev_arithmetic") == "cuda",
                   shard=get("devparity_shard"), warnings_once=get("devparity_warnings") == "once",
                   vdev_environment=vdev_environment,
                   vdev_count_environment=os.environ.get("DEVPARITY_VDEV_COUNT", "2"))

    @property
    def wants_vdev(self) -> bool:
        """The simulated device is installed: a device list that names it, a vdev count, or DEVPARITY_VDEV=1."""
        return any(n.startswith("vdev") for n in self.devices) or bool(self.vdev_count) or self.vdev_environment

    @property
    def installed_count(self) -> int:
        """--devparity-vdev-count, else DEVPARITY_VDEV_COUNT, else 2; a UsageError naming a bad value."""
        if self.vdev_count:
            return self.vdev_count
        text = self.vdev_count_environment
        if not text.strip().isdigit():
            raise pytest.UsageError(f"devparity: DEVPARITY_VDEV_COUNT={text!r}: expected a whole number of indices (1..16)")
        return int(text)

    @property
    def enabled(self) -> bool:
        """devparity does anything in this run (else the plugin stays out of its way)."""
        return bool(self.devices or self.trace or self.report or self.vdev_count or self.vdev_environment)
