"""The reliability figures of a test run: how many bad-input and fault cases were tried and how many held.

Counted from the test reports of the modules whose cases ``docs/pages/reliability.md`` tabulates, each
parametrized case once, and printed at the end of the run (``make test``'s last lines):
``reliability: <tried> cases tried, <held> held, <skipped> skipped``, then any case that broke. Under xdist
the controller counts the reports its workers send.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

MODULES = frozenset(
    {
        "tests/integration/test_load_dialects.py",
        "tests/integration/test_load_properties.py",
        "tests/integration/test_load_faults.py",
        "tests/e2e/test_concurrency.py",
    }
)


@dataclass
class Tally:
    held: set[str] = field(default_factory=set)
    broken: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)

    def add(self, report: pytest.TestReport) -> None:
        """One phase's report: a failed phase breaks the case, a skip skips it, a passed call holds."""
        if report.nodeid.split("::", 1)[0] not in MODULES:
            return
        if report.failed:
            self.broken.add(report.nodeid)
        elif report.skipped:
            self.skipped.add(report.nodeid)
        elif report.when == "call":
            self.held.add(report.nodeid)

    def lines(self) -> list[str]:
        held = self.held - self.broken
        tried = len(held) + len(self.broken)
        if not tried and not self.skipped:
            return []
        head = f"reliability: {tried} cases tried, {len(held)} held"
        head += f", {len(self.skipped)} skipped" if self.skipped else ""
        return [head, *(f"  broke: {nodeid}" for nodeid in sorted(self.broken))]
