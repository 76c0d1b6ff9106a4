"""Great Expectations suites in code: one module per file family (DESIGN §1, §5).

``suite_for(family)`` returns a family's ``Suite`` (``expectations/rules.py``). Suite modules are plain data
— importing them does not import Great Expectations.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from expectations.rules import Suite

# family → (module, attribute): the previous-work traces share one module.
SUITE_MODULES: dict[str, tuple[str, str]] = {
    "acme__seren_jobs": ("expectations.acme.seren_jobs", "SUITE"),
    "acme__kalos_jobs": ("expectations.acme.kalos_jobs", "SUITE"),
    "acme__cluster_summary": ("expectations.acme.cluster_summary", "SUITE"),
    "acme__helios_jobs": ("expectations.acme.previous_work", "HELIOS"),
    "acme__philly_jobs": ("expectations.acme.previous_work", "PHILLY"),
    "acme__pai_jobs": ("expectations.acme.previous_work", "PAI"),
    "acme__gpu_metrics": ("expectations.acme.gpu_metrics", "SUITE"),
    "acme__node_metrics": ("expectations.acme.node_metrics", "SUITE"),
    "acme__ipmi_power": ("expectations.acme.ipmi_power", "SUITE"),
    "burstgpt__requests": ("expectations.burstgpt.requests", "SUITE"),
    "burstgpt__requests_without_fails": ("expectations.burstgpt.requests_without_fails", "SUITE"),
}


def suite_for(family: str) -> Suite:
    try:
        module, attribute = SUITE_MODULES[family]
    except KeyError:
        raise KeyError(f"no validation suite for file family {family!r}") from None
    return getattr(import_module(module), attribute)
