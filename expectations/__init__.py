"""Great Expectations suites in code: one module per file family
(docs/pages/ui.md, Validation).

``SUITES`` lists every suite; each names the family it validates (``Suite.family``, the family registry's
key), and ``suite_for(family)`` returns that family's. The dependency runs one way: the suites import the
registry's schemas (``pipelines/families/``), the registry knows nothing of the suites, and validation
(``pipelines/validate/``) imports the suites from here. ``tests/unit/test_rules_suites.py`` checks that every
family has exactly one suite. Suite modules are plain data — importing them does not import Great
Expectations.
"""

from __future__ import annotations

from expectations.acme import (
    cluster_summary,
    gpu_metrics,
    ipmi_power,
    kalos_jobs,
    node_metrics,
    previous_work,
    seren_jobs,
)
from expectations.burstgpt import requests, requests_without_fails
from expectations.rules import Suite

SUITES: tuple[Suite, ...] = (
    seren_jobs.SUITE,
    kalos_jobs.SUITE,
    cluster_summary.SUITE,
    previous_work.HELIOS,
    previous_work.PHILLY,
    previous_work.PAI,
    gpu_metrics.SUITE,
    node_metrics.SUITE,
    ipmi_power.SUITE,
    requests.SUITE,
    requests_without_fails.SUITE,
)


def suite_for(family: str) -> Suite:
    """The suite of ``family`` (a registry key), read from ``SUITES`` at call time."""
    for suite in SUITES:
        if suite.family == family:
            return suite
    raise KeyError(f"no validation suite for file family {family!r}")
