"""The real rows shipped with the project produce exactly the documented findings and nothing else:
the 17 failed BurstGPT requests flagged (none quarantined), the Kalos README rows following ``end − submit``
(Seren's following ``end − start``), and cluster_summary's counts differing from the job rows present."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.families.registry import FAMILIES
from pipelines.settings import Settings, load_settings
from pipelines.validate.outcomes import FamilyValidation
from tests.conftest import REAL_DIR
from tests.support.validation import (
    REAL_FILES,
    assert_reconciled,
    lake_quarantine,
    load_path,
    validate,
    view_quarantine,
)

EXPECTED_FINDINGS = {
    "burstgpt__requests": {"request_not_failed": 17},
    "acme__kalos_jobs": {"duration_is_end_minus_start": 2},
    "acme__cluster_summary": {"summary_job_counts_match_job_files": 2},
}
FILE_1 = "github/HPMLL/BurstGPT/releases/download/v1.1/BurstGPT_1.csv"


def load_real_rows(settings: Settings) -> None:
    for name, real in REAL_FILES.items():
        load_path(settings, name, REAL_DIR / real, origin="real")


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """One warehouse for the module: the real rows are loaded and validated once."""
    return load_settings({"WAREHOUSE_DIR": str(tmp_path_factory.mktemp("real") / "warehouse")})


@pytest.fixture(scope="module")
def validated(warehouse: Settings) -> dict[str, FamilyValidation]:
    load_real_rows(warehouse)
    return {fam.key: validate(warehouse, fam.key, docs=fam.key == "acme__kalos_jobs") for fam in FAMILIES}


def test_exactly_the_documented_findings(validated: dict[str, FamilyValidation]) -> None:
    found = {family: r.findings() for family, r in validated.items() if r.findings()}
    assert found == EXPECTED_FINDINGS
    for r in validated.values():
        assert all(not o.errors and not o.blocked for o in r.outcomes.values())


def test_nothing_quarantined_and_reconciled(
    warehouse: Settings, validated: dict[str, FamilyValidation]
) -> None:
    counts = {f: (r.loaded, r.passed, r.quarantined) for f, r in validated.items() if r.partitions}
    assert counts == {
        "burstgpt__requests": (400, 400, 0),
        "acme__kalos_jobs": (2, 2, 0),
        "acme__seren_jobs": (2, 2, 0),
        "acme__cluster_summary": (5, 5, 0),
    }
    for family, result in validated.items():
        assert_reconciled(result)
        if result.partitions:
            assert lake_quarantine(warehouse, family) == []  # nothing quarantined: no quarantine file
        assert view_quarantine(warehouse, family) == []  # an empty typed view for every family


def test_failed_requests_counted_per_file(validated: dict[str, FamilyValidation]) -> None:
    failed = validated["burstgpt__requests"].outcomes["request_not_failed"]
    assert failed.by_file == {FILE_1: 17} and failed.evaluated == 400
    assert failed.samples[0] == {
        "_source_file": FILE_1,
        "_row_number": "22",
        "_partition": "0000",
        "details": "request_tokens=0 response_tokens=0 total_tokens=0",
    }


def test_duration_rule_per_cluster(validated: dict[str, FamilyValidation]) -> None:
    kalos = validated["acme__kalos_jobs"].outcomes["duration_is_end_minus_start"]
    seren = validated["acme__seren_jobs"].outcomes["duration_is_end_minus_start"]
    assert kalos.breakdown == {"end_minus_submit": 2} and not kalos.passed
    assert seren.breakdown == {"end_minus_start": 2} and seren.passed and seren.count == 0
    assert [s["_row_number"] for s in kalos.samples] == ["2", "3"]


def test_summary_counts_beside_job_rows(validated: dict[str, FamilyValidation]) -> None:
    summary = validated["acme__cluster_summary"].outcomes["summary_job_counts_match_job_files"]
    assert [s["details"] for s in summary.samples] == [
        "cluster=Seren job_num=1031550 job_rows=2 gpu_job_num=663813 gpu_job_rows=2",
        "cluster=Kalos job_num=62413 job_rows=2 gpu_job_num=19907 gpu_job_rows=2",
    ]
    assert summary.evaluated == 2  # Philly, Helios and PAI have no job files here: not compared


def test_data_docs_published(warehouse: Settings, validated: dict[str, FamilyValidation]) -> None:
    kalos = validated["acme__kalos_jobs"]
    index = warehouse.docs_dir / "gx" / "index.html"
    assert kalos.docs_error is None and kalos.docs_index == index.as_uri()
    assert "acme__kalos_jobs.rows" in index.read_text(encoding="utf-8")
    page = Path(kalos.docs_pages["acme__kalos_jobs.rows"].removeprefix("file://"))
    assert "duration_is_end_minus_start" in page.read_text(encoding="utf-8")
