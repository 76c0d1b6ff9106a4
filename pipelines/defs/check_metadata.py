"""What a check result shows in the Dagster UI: counts, rate, threshold, sample rows, reconciliation, docs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import dagster as dg

from pipelines.docs_server import link_for_file_url
from pipelines.settings import Settings
from pipelines.validate.outcomes import FamilyValidation, RuleOutcome

MAX_TABLE_ROWS = 50


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def md_table(header: Sequence[str], rows: Iterable[Sequence[object]], *, limit: int = MAX_TABLE_ROWS) -> str:
    rows = list(rows)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"| … {len(rows) - limit:,} more |" + " |" * (len(header) - 1))
    return "\n".join(lines)


def reconciliation_table(result: FamilyValidation) -> str:
    rows: list[Sequence[object]] = [
        (p.key, f"{p.loaded:,}", f"{p.passed:,}", f"{p.quarantined:,}") for p in result.partitions
    ]
    rows.append(("**all**", f"{result.loaded:,}", f"{result.passed:,}", f"{result.quarantined:,}"))
    return md_table(("partition", "loaded", "passed", "quarantined"), rows, limit=MAX_TABLE_ROWS + 1)


def samples_table(outcome: RuleOutcome) -> str:
    header = list(outcome.samples[0])
    return md_table(header, [[row.get(c, "") for c in header] for row in outcome.samples])


def check_metadata(settings: Settings, result: FamilyValidation, outcome: RuleOutcome) -> dict[str, object]:
    rule = outcome.rule
    docs = result.docs_pages.get(f"{result.family}.{rule.frame}") or result.docs_index
    meta: dict[str, object] = {
        "kind": rule.kind,
        "rule": dg.MetadataValue.text(rule.description),
        "count": outcome.count,
        "rate": round(outcome.rate, 8),
        "threshold": rule.threshold,
        "rows_evaluated": outcome.evaluated,
        "frame": rule.frame,
        "partitions": len(result.partitions),
        "units_validated": result.units_validated,
        "units_reused": result.units_reused,
        "partitions_with_findings": len(outcome.partitions),
        "loaded": result.loaded,
        "passed": result.passed,
        "quarantined": result.quarantined,
        "reconciliation": dg.MetadataValue.md(reconciliation_table(result)),
    }
    if outcome.samples:
        meta["sample_rows"] = dg.MetadataValue.md(samples_table(outcome))
    if outcome.by_file:
        meta["by_file"] = dg.MetadataValue.md(
            md_table(("source file", "rows"), sorted(outcome.by_file.items()))
        )
    if outcome.breakdown:
        meta["breakdown"] = dg.MetadataValue.md(
            md_table((rule.breakdown or "value", "rows"), outcome.breakdown.most_common())
        )
    if outcome.note:
        meta["note"] = outcome.note
    if outcome.errors:
        meta["errors"] = dg.MetadataValue.md("\n".join(f"- {e}" for e in outcome.errors[:10]))
    if docs:  # on the docs server: a browser opens no file:// link from the UI's http page
        meta["data_docs"] = dg.MetadataValue.url(link_for_file_url(settings, docs))
    if result.docs_index:
        meta["data_docs_index"] = dg.MetadataValue.url(link_for_file_url(settings, result.docs_index))
    if result.docs_error:
        meta["data_docs_error"] = result.docs_error
    return meta


def check_results(
    settings: Settings, result: FamilyValidation, asset_key: dg.AssetKey
) -> list[dg.AssetCheckResult]:
    """One Dagster check result per rule: structural failures and broken expectations are ERROR (they
    block downstream), every other finding above its threshold is WARN."""
    out = []
    for name, outcome in result.outcomes.items():
        error = outcome.rule.kind == "structural" or bool(outcome.errors)
        severity = dg.AssetCheckSeverity.ERROR if error else dg.AssetCheckSeverity.WARN
        if outcome.blocked:
            description = outcome.note
        elif outcome.passed:
            description = f"{outcome.count:,} of {outcome.evaluated:,} rows"
        else:
            description = (
                f"{outcome.count:,} of {outcome.evaluated:,} rows ({outcome.rate:.4%}) violate {name}, above the "
                f"threshold {outcome.rule.threshold:.4%}"
            )
        out.append(
            dg.AssetCheckResult(
                asset_key=asset_key,
                check_name=name,
                passed=outcome.passed,
                severity=severity,
                description=description,
                metadata=check_metadata(settings, result, outcome),
            )
        )
    return out
