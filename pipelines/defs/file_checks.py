"""Per-file outcome checks of the landing and raw assets: a bad file fails alone.

A family's files land and load one by one. When some of them cannot be landed (a Git LFS pointer in place
of ``BurstGPT_1.csv``, a checksum mismatch, a 404) or loaded (a header the schema does not know), the
healthy ones still go through, the broken file's previously published copy and partitions stay as they
were, and the asset materializes with a failed ``files_landed`` / ``files_loaded`` check (severity ERROR)
naming every broken file and its reason: in the UI, in the run summary of ``trace-warehouse run`` (which
then exits 1), and as metadata. Only when no file of the family goes through does the asset itself fail.
"""

from collections.abc import Iterable, Sequence
from typing import Any

import dagster as dg

FILES_LANDED = "files_landed"
FILES_LOADED = "files_loaded"
FILE_CHECKS = frozenset({FILES_LANDED, FILES_LOADED})
_DESCRIPTIONS = {
    FILES_LANDED: "every upstream file of the family was fetched and verified (the others land regardless)",
    FILES_LOADED: "every landed file of the family was loaded (the others load regardless)",
}


def failures_json(failures: Sequence[tuple[str, str]]) -> dg.MetadataValue:
    """``(file, reason)`` pairs as the JSON metadata the assets and their check show."""
    return dg.MetadataValue.json([{"file": f, "reason": r} for f, r in failures])


def file_check_spec(name: str, asset: dg.AssetKey) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(name, asset=asset, description=_DESCRIPTIONS[name])


def file_check_results(
    context: dg.AssetExecutionContext, name: str, files: int, failures: Sequence[tuple[str, str]]
) -> list[dg.AssetCheckResult]:
    """The check's result (when the run selected it): passed when no file failed, else ERROR with
    ``failures`` (``(file, reason)`` pairs) in its metadata."""
    if not any(key.name == name for key in context.selected_asset_check_keys):
        return []
    return [
        dg.AssetCheckResult(
            check_name=name,
            passed=not failures,
            severity=dg.AssetCheckSeverity.ERROR,
            metadata={
                "kind": "files",
                "count": len(failures),
                "rate": len(failures) / files if files else 0.0,
                "files": files,
                "failures": failures_json(failures),
            },
        )
    ]


def files_failed(evaluations: Iterable[Any]) -> bool:
    """Whether a per-file check failed in these check evaluations (``trace-warehouse run`` then exits 1)."""
    return any(not ev.passed and ev.check_name in FILE_CHECKS for ev in evaluations)
