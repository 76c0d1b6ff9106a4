"""Running a selection of the project's Dagster graph in this process, as ``trace-warehouse run --select``.

The selections are written in Dagster's selection syntax (the string a user would pass to ``--select``)
and recorded in the results. Groups are recognised by name, so assets added later (validation checks,
dbt models, reports) are picked up without changing the benchmark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipelines.settings import Settings

import contextlib
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

LANDING_GROUP = "landing"
EXPORT_GROUP = "exports"  # on-demand replay exports: not part of a build
REPORT_GROUP_WORDS = ("report", "figure", "docs")


@dataclass(frozen=True)
class GraphRun:
    exit_code: int
    summary: str  # run_pipeline's one-screen summary

    @property
    def failed_lines(self) -> list[str]:
        return [line.strip() for line in self.summary.splitlines() if " FAILED " in f" {line} "]


def asset_groups(settings: Settings) -> dict[str, list[str]]:
    """Group name → asset keys (``a/b``) of every asset in the project's definitions."""
    import dagster as dg

    from pipelines.definitions import all_assets

    groups: dict[str, list[str]] = {}
    for asset in all_assets(settings):
        if isinstance(asset, dg.AssetSpec):  # the external upstream/* assets: nothing to run
            continue
        for key in asset.keys:
            group = asset.group_names_by_key.get(key, "default")
            groups.setdefault(group, []).append(key.to_user_string())
    return groups


def is_report_group(group: str) -> bool:
    return any(word in group.lower() for word in REPORT_GROUP_WORDS)


def _keys(keys: Iterable[str]) -> list[str]:
    return [f'key:"{k}"' for k in sorted(keys)]


def pipeline_selection(groups: dict[str, list[str]], families: Sequence[str]) -> str:
    """Everything but landing, reports/docs, the exports and the raw assets of other families: the workload's
    raw assets, their checks, and every model downstream (dbt reads empty raw relations for the others)."""
    other_raw = [k for k in groups.get("raw", []) if k.removeprefix("raw/") not in families]
    excluded = [
        f'group:"{g}"' for g in sorted(groups) if g in (LANDING_GROUP, EXPORT_GROUP) or is_report_group(g)
    ]
    return " and ".join(f"not {term}" for term in [*excluded, *_keys(other_raw)])


def report_selection(groups: dict[str, list[str]]) -> str | None:
    """The report assets (groups named like report/figure), without the dbt docs; None when there are none."""
    keys = [k for g, ks in groups.items() if is_report_group(g) for k in ks if not k.startswith("docs/")]
    return " or ".join(_keys(keys)) if keys else None


def run_selection(settings: Settings, selection: str) -> GraphRun:
    """``run_pipeline`` on the selection (``--all``: the benchmark times the build, not a skip), capturing its
    summary."""
    from pipelines.run import run_pipeline

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = run_pipeline(settings, selection, everything=True)
    print(out.getvalue())
    return GraphRun(code, out.getvalue())
