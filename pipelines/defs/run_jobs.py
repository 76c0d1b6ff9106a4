"""The jobs of ``trace-warehouse run``, made with Dagster's public job API.

:func:`plan_runs` resolves a selection over the assets and their checks and defines one asset job per
partitions definition in it (``dg.define_asset_job``): a job cannot mix partitions definitions, and the
utilization families have file partitions while everything downstream of them has none. The partitioned jobs
run first over all of their partitions in one run each (a partition range, so every file partition gets its
own materialization and counts); their assets have only external upstreams (``upstream/*``), so running them
first keeps the graph's order. The :class:`RunPlan` also says which assets and checks each step holds, which
the run's records are read against (:mod:`pipelines.defs.run_events`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import dagster as dg

from pipelines.progress import layer_of

# Dagster's run tags of a partition range: one run over the range, each partition materialized in it — what
# `dagster asset materialize --partition-range START...END` and a single-run backfill set.
RANGE_START_TAG, RANGE_END_TAG = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"
JOB_PREFIX = "trace_warehouse_run"

Narrow = Callable[[Sequence[dg.AssetsDefinition], set[dg.AssetKey]], set[dg.AssetKey]]


@dataclass(frozen=True)
class RunPart:
    """One run of the plan: a job and the tags of its partition range (none for the unpartitioned rest)."""

    job: dg.JobDefinition
    tags: Mapping[str, str]


@dataclass(frozen=True)
class RunPlan:
    """What a run of the selection executes: its runs in order, each step's assets and checks (a step is one
    op: an asset, a multi-asset such as the dbt models, or a check), and how many assets (checks) each layer
    of the progress display has."""

    parts: tuple[RunPart, ...]
    step_assets: Mapping[str, tuple[str, ...]]
    step_checks: Mapping[str, tuple[str, ...]]
    totals: Mapping[str, int]

    @property
    def selected(self) -> set[str]:
        return {key for keys in self.step_assets.values() for key in keys}


def asset_definitions(assets: Iterable[dg.AssetsDefinition | dg.AssetSpec]) -> list[dg.AssetsDefinition]:
    """``assets`` with each external spec (``upstream/*``) made an assets definition, as a selection resolves
    over them."""
    return [a if isinstance(a, dg.AssetsDefinition) else dg.AssetsDefinition(specs=[a]) for a in assets]


def plan_runs(
    assets: Iterable[dg.AssetsDefinition | dg.AssetSpec],
    selection: dg.AssetSelection,
    resources: Mapping[str, object],
    narrow: Narrow | None = None,
    loggers: Mapping[str, dg.LoggerDefinition] | None = None,
) -> RunPlan | None:
    """The runs that materialize ``selection`` and the checks of its assets; None when nothing is selected.
    ``narrow(assets, keys)`` keeps only some of the selected assets (and their checks)."""
    defs = asset_definitions(assets)
    keys = set(selection.resolve(defs))
    if narrow is not None:
        keys = narrow(defs, keys)
    if not keys:
        return None
    checks = {check for d in defs for check in d.check_keys if check.asset_key in keys}
    partitions_of = {key: d.partitions_def for d in defs for key in d.keys}
    by_partitions: dict[object, tuple[set[dg.AssetKey], set[dg.AssetCheckKey]]] = {}
    step_assets: dict[str, tuple[str, ...]] = {}
    step_checks: dict[str, tuple[str, ...]] = {}
    for definition in defs:
        own_keys, own_checks = keys & definition.keys, checks & definition.check_keys
        if not (own_keys or own_checks) or definition.is_external:
            continue
        step = definition.node_def.name
        step_assets[step] = tuple(sorted(k.to_user_string() for k in own_keys))
        step_checks[step] = tuple(sorted(k.to_user_string() for k in own_checks))
        for key in own_keys:  # a check runs in the run of its asset
            by_partitions.setdefault(partitions_of[key], (set(), set()))[0].add(key)
        for check in own_checks:
            by_partitions.setdefault(partitions_of[check.asset_key], (set(), set()))[1].add(check)
    ordered = sorted(by_partitions.items(), key=lambda kv: kv[0] is None)  # the partitioned runs first
    jobs = [
        dg.define_asset_job(
            f"{JOB_PREFIX}_{i}",
            selection=dg.AssetSelection.assets(*part_keys).without_checks()
            | dg.AssetSelection.checks(*part_checks),
            partitions_def=partitions,
        )
        for i, (partitions, (part_keys, part_checks)) in enumerate(ordered)
    ]
    resolved = dg.Definitions(assets=list(assets), resources=resources, jobs=jobs, loggers=loggers)
    parts = tuple(
        RunPart(resolved.resolve_job_def(job.name), _range_tags(partitions))
        for job, (partitions, _) in zip(jobs, ordered, strict=True)
    )
    totals: dict[str, int] = {}
    for key in (k for keys_ in step_assets.values() for k in keys_):
        totals[layer_of(key)] = totals.get(layer_of(key), 0) + 1
    totals["checks"] = sum(len(c) for c in step_checks.values())
    return RunPlan(parts, step_assets, step_checks, totals)


def _range_tags(partitions: dg.PartitionsDefinition | None) -> dict[str, str]:
    if partitions is None:
        return {}
    every = partitions.get_partition_keys()
    return {RANGE_START_TAG: every[0], RANGE_END_TAG: every[-1]}
