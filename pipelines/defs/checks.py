"""Dagster asset checks: one multi-asset check per raw asset, one check per rule of its suite.

The check names are the rule names; the structural rule's check is blocking (an ERROR result stops
downstream assets in the same run); cross-file rules declare the other raw assets as additional deps.
Nothing is read at import or definition time: a check gets the settings from the ``settings`` resource
and reads the data when it executes. (No
``from __future__ import annotations`` here: Dagster inspects the ``context`` annotation at definition.)
"""

from collections.abc import Iterator

import dagster as dg

from expectations import suite_for
from expectations.rules import Suite
from pipelines.defs.keys import SETTINGS, raw_key, settings_of
from pipelines.families.registry import Family, all_families
from pipelines.warehouse.db import writer
from pipelines.warehouse.views import refresh_views


def check_specs(family: str, suite: Suite) -> list[dg.AssetCheckSpec]:
    specs = []
    for rule in suite.all_rules:
        deps = suite.deps(rule)
        specs.append(
            dg.AssetCheckSpec(
                rule.name,
                asset=raw_key(family),
                description=f"[{rule.kind}] {rule.description}",
                blocking=rule.kind == "structural",
                additional_deps=[raw_key(d) for d in deps] or None,
                metadata={"kind": rule.kind, "threshold": rule.threshold, "frame": rule.frame},
            )
        )
    return specs


def _family_checks(fam: Family) -> dg.AssetChecksDefinition:
    suite = suite_for(fam.key)

    @dg.multi_asset_check(
        specs=check_specs(fam.key, suite),
        name=f"validate_{fam.key}",
        description=f"Great Expectations suite expectations/{fam.source}/… for raw.{fam.key}",
        required_resource_keys={SETTINGS},
    )
    def _checks(context: dg.AssetCheckExecutionContext) -> Iterator[dg.AssetCheckResult]:
        from pipelines.defs.check_metadata import check_results
        from pipelines.validate.validation import validate_family

        settings = settings_of(context)
        result = validate_family(settings, fam.key, log=context.log.info)
        with writer(settings) as con:
            refresh_views(con, settings, [fam.key])
        context.log.info(
            f"{fam.key}: {result.loaded:,} rows = {result.passed:,} passed + {result.quarantined:,} quarantined "
            f"in {len(result.partitions)} partition(s); {result.units_validated} unit(s) validated, "
            f"{result.units_reused} unchanged since their stored results, {result.seconds:.1f}s; "
            f"Data Docs: {result.docs_index}"
        )
        yield from check_results(settings, result, raw_key(fam.key))

    return _checks


def family_asset_checks() -> list[dg.AssetChecksDefinition]:
    """One checks definition per raw asset (add to ``dg.Definitions(asset_checks=...)``)."""
    return [_family_checks(fam) for fam in all_families()]
