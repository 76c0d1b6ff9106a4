"""The family registry is the one source: the dbt sources, the suites, the files and the pending facts all
agree with it."""

from __future__ import annotations

import re

import pytest
import yaml

from expectations import suite_for
from pipelines.families.registry import FAMILIES, family, files_for, fixed_files, upstream_file
from pipelines.lake import quarantine
from pipelines.settings import PROJECT_ROOT
from pipelines.warehouse import dbt_sources as generated_sources

SOURCES_YML = generated_sources.SOURCES_PATH
# A model that replaces the partitions it is given, with or without options.
REPLACES_PARTITIONS = re.compile(r"\{\{ config\(\*\*partition_replace_config\([^)]*\)\) \}\}")
DBT_TYPES = {"BIGINT": "bigint", "VARCHAR": "string", "DOUBLE": "double", "TIMESTAMP": "timestamp"}


def test_dbt_sources_are_generated_from_the_registry() -> None:
    """_raw__sources.yml is what ``python -m pipelines.warehouse.dbt_sources`` writes from the registry, the
    schemas and the suites; the tests below check what it says against them."""
    assert SOURCES_YML.read_text(encoding="utf-8") == generated_sources.render(), (
        f"{SOURCES_YML.relative_to(PROJECT_ROOT)} differs from what pipelines/warehouse/dbt_sources.py writes: "
        f"run {generated_sources.COMMAND}"
    )


def dbt_sources() -> dict[str, dict[str, dict[str, str]]]:
    """Source name → table → column → data_type, from ``_raw__sources.yml``."""
    doc = yaml.safe_load(SOURCES_YML.read_text(encoding="utf-8"))
    return {
        source["name"]: {
            table["name"]: {c["name"]: c.get("data_type") for c in table.get("columns", [])}
            for table in source["tables"]
        }
        for source in doc["sources"]
    }


def test_dbt_sources_list_exactly_the_families() -> None:
    keys = sorted(f.key for f in FAMILIES)
    sources = dbt_sources()
    assert sorted(sources["raw"]) == keys
    assert sorted(sources["quarantine"]) == keys


@pytest.mark.parametrize("fam", FAMILIES, ids=lambda f: f.key)
def test_raw_source_columns_are_the_suites_expected_columns(fam) -> None:
    documented = dbt_sources()["raw"][fam.key]
    expected = {name: DBT_TYPES[t] for name, t in suite_for(fam.key).columns.items()}
    assert {n: documented.get(n) for n in expected} == expected
    extra = set(documented) - set(expected) - {"_partition"}
    if fam.schema.unknown == "error":
        assert extra == set()  # a fixed layout: the source lists no column the loader does not write
    else:  # header-driven: columns beyond the schema are carried as the schema's unknown type
        assert {documented[n] for n in extra} <= {DBT_TYPES[fam.schema.unknown.upper()]}


@pytest.mark.parametrize("fam", FAMILIES, ids=lambda f: f.key)
def test_quarantine_source_columns_are_the_quarantine_schema(fam) -> None:
    documented = dbt_sources()["quarantine"][fam.key]
    expected = {f.name: "bigint" if f.name == "_row_number" else "string" for f in quarantine.schema(fam.key)}
    assert {n: documented.get(n) for n in expected} == expected
    assert suite_for(fam.key).row_index == fam.row_key


def test_every_fixed_file_belongs_to_its_family_and_is_found_by_its_path() -> None:
    for f in fixed_files():
        assert f in family(f.family).files
        assert upstream_file(f.mirror_path) == f
    assert files_for(["acme__gpu_metrics"]) == []  # discovered: nothing without a listing
    listed = files_for(["acme__gpu_metrics"], ["data/utilization/kalos/GPU_UTIL.csv"])
    assert [f.mirror_path.rsplit("/", 2)[-2:] for f in listed] == [["kalos", "GPU_UTIL.csv"]]


def test_partition_models_are_dbt_models() -> None:
    models = {p.stem for p in (PROJECT_ROOT / "dbt_project" / "models").rglob("*.sql")}
    partitioned = {m for f in FAMILIES for m in f.partition_models}
    assert partitioned <= models
    assert partitioned == {
        "fct_job", "fct_request", "fct_server_power",
        "int_node_metric_lines", "int_node_metric_series", "int_node_metric_repeats", "int_utilization_hour_bins",
        "utilization_hourly", "utilization_histogram",
    }  # fmt: skip
    for name in partitioned:  # each replaces the partitions it is given
        (path,) = (PROJECT_ROOT / "dbt_project" / "models").rglob(f"{name}.sql")
        assert REPLACES_PARTITIONS.search(path.read_text()), name
