"""Dagster partitions of the utilization families: one per cluster x metric (``kalos/GPU_UTIL``).

``upstream/``, ``landing/`` and ``raw/`` of ``acme__gpu_metrics`` and ``acme__node_metrics`` share their family's
:class:`~dagster.StaticPartitionsDefinition` (:func:`pipelines.families.upstream.file_partitions`), so a user
can fetch and load one metric of one cluster from the UI, backfill the rest, and see each partition's row
counts; the upstream sensor reports a changed file as its partition, and the automation loads that one.

A backfill of many partitions is one run over their range (``BackfillPolicy.single_run``); so is
``trace-warehouse run``, which runs each partitioned family over all its partitions
(:func:`pipelines.defs.run_jobs.plan_runs`: Dagster runs a partitioned asset whose upstream is partitioned
only with a partition). Either way each partition's materialization carries that partition's own counts and
files (:func:`partition_metadata`), and a partition no upstream file falls in records zero and says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import dagster as dg

from pipelines.families.registry import Family
from pipelines.families.upstream import file_partitions


def partitions_def(fam: Family) -> dg.StaticPartitionsDefinition | None:
    """The family's file partitions (utilization families only)."""
    return dg.StaticPartitionsDefinition(list(file_partitions(fam.key))) if fam.discovered else None


def backfill_policy(fam: Family) -> dg.BackfillPolicy | None:
    """A backfill of many file partitions is one run: each file is still loaded on its own, once."""
    return dg.BackfillPolicy.single_run() if fam.discovered else None


def selected_partitions(context: dg.AssetExecutionContext) -> frozenset[str] | None:
    """The file partitions this run covers; None for a run without a partition (every file)."""
    if context.has_partition_key or context.has_partition_key_range:
        return frozenset(context.partition_keys)
    return None


def partition_metadata(
    context: dg.AssetExecutionContext,
    chosen: frozenset[str] | None,
    items: Iterable[Any],
    partition_of: Callable[[Any], str | None],
    metadata: Callable[[list[Any]], Mapping[str, object]],
    empty: str,
) -> None:
    """In a run of the file partitions ``chosen`` (:func:`selected_partitions`), each partition's own
    metadata: ``metadata`` of the items (files, load results) in it; zero counts and the note ``empty`` for a
    partition with none. No-op in a run without partitions (``chosen`` None)."""
    if chosen is None:
        return
    by_partition: dict[str, list[Any]] = {}
    for item in items:
        by_partition.setdefault(partition_of(item) or "", []).append(item)
    for key in sorted(chosen):
        found = by_partition.get(key, [])
        meta = dict(metadata(found))
        if not found:
            meta["note"] = empty
        context.add_asset_metadata(meta, partition_key=key)
