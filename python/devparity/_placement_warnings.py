"""The placement warnings a traced test gives as pytest warnings (--devparity-trace)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Iterable, List, Set, Tuple

if TYPE_CHECKING:
    from devparity._findings import Finding

Site = Tuple[str, str, str]   # a warning's (kind, op, file:line)


class DevparityPlacementWarning(UserWarning):
    """A placement warning found while tracing a test (--devparity-trace)."""


def warn_placement(message: str, path: str, line: int) -> None:
    """Warns of a placement finding the way the test's own filters say, unless they say it of
    every warning alone: Note [Placement warnings under a suite's filters]."""
    named = any(category is not None and issubclass(category, DevparityPlacementWarning)
                for _, _, category, _, _ in warnings.filters)
    with warnings.catch_warnings():
        if not named:
            warnings.simplefilter("always", DevparityPlacementWarning)
        warnings.warn_explicit(message, DevparityPlacementWarning, path, line)


# Note [Placement warnings under a suite's filters]
# A suite that turns every warning into an error (torchvision's pytest.ini: `filterwarnings =
# error`) means its own code's warnings; a placement warning it never asked for would fail the
# test on vdev:1 alone, where a GPU run passes. So the plugin's warnings are shown, not raised,
# unless a filter names DevparityPlacementWarning (`-W error::...DevparityPlacementWarning`):
# a suite that asks for them as errors gets them so. (Inside pytest's record of the test's
# warnings they still reach its summary.)


def new_warnings(findings: Iterable[Finding], seen: Set[Site]) -> List[Finding]:
    """The warnings among `findings` whose site (kind, op, line) is not in `seen`, which learns them: a
    warning is about a line of code, not a test, so a session gives it once (--devparity-warnings)."""
    fresh = []
    for finding in findings:
        site = (finding.kind, finding.op, finding.source)
        if finding.severity == "warning" and site not in seen:
            seen.add(site)
            fresh.append(finding)
    return fresh
