"""Suite of ``burstgpt__requests`` (``BurstGPT_1.csv``, ``_2``, ``_3``: the facts).

Failed requests (``Response tokens = 0``) are real rows of these files — 25,443 in file 1 — so they are
flagged and counted per file, never quarantined.
"""

from __future__ import annotations

from expectations.burstgpt.common import COLUMNS, failed_request_rule, request_rules
from expectations.rules import Suite

SUITE = Suite(
    family="burstgpt__requests",
    columns=COLUMNS,
    rules=(
        *request_rules(),
        failed_request_rule(
            "request_not_failed",
            "A failed request has Response tokens = 0 (the real ones are 0,0,0): flagged and counted per file, "
            "kept.",
        ),
    ),
)
