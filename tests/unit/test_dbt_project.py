"""The dbt project's conventions and the dbt wiring's small pieces, without running dbt."""

import os
import re
from datetime import date
from pathlib import Path

import jinja2
import pytest
import yaml

from pipelines.assets.dbt import (
    DBT_PROJECT_DIR,
    DbtManifestMissingError,
    dbt_env,
    dbt_environment,
    dbt_executable,
    manifest_path,
)
from pipelines.settings import load_settings

MODELS = DBT_PROJECT_DIR / "models"
LAYERS = ("staging", "intermediate", "marts", "analysis")


def model_yaml(layer: str) -> dict:
    return yaml.safe_load((MODELS / layer / f"_{layer}__models.yml").read_text())


def sql_without_jinja(path: Path) -> str:
    text = re.sub(r"\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}", " ", path.read_text(), flags=re.S)
    return re.sub(r"--[^\n]*", " ", text)


def test_dbt_env_passes_absolute_warehouse_and_start_date(tmp_path: Path) -> None:
    settings = load_settings({"WAREHOUSE_DIR": "warehouse", "BURSTGPT_START_DATE": "2023-01-01"})
    env = dbt_env(settings)
    assert Path(env["WAREHOUSE_DIR"]).is_absolute() and env["WAREHOUSE_DIR"].endswith("warehouse")
    assert env["BURSTGPT_START_DATE"] == date(2023, 1, 1).isoformat() and env["TRACE_ENGINE"] == "duckdb"
    assert dbt_env(load_settings({"WAREHOUSE_DIR": str(tmp_path)}))["BURSTGPT_START_DATE"] == ""


def test_dbt_environment_is_restored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TRACE_ENGINE", "duckdb")
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path), "BURSTGPT_START_DATE": "2023-01-01"})
    with dbt_environment(settings):
        assert os.environ["WAREHOUSE_DIR"] == str(tmp_path)
        assert os.environ["BURSTGPT_START_DATE"] == "2023-01-01"
    assert "WAREHOUSE_DIR" not in os.environ and "BURSTGPT_START_DATE" not in os.environ
    assert os.environ["TRACE_ENGINE"] == "duckdb"


def test_missing_manifest_is_a_clear_error() -> None:
    with pytest.raises(DbtManifestMissingError, match=r"target/spark/manifest\.json.*make install"):
        manifest_path("spark")


def test_dbt_executable_is_the_venvs() -> None:
    assert Path(dbt_executable()).name == "dbt"


@pytest.mark.parametrize(
    ("configured", "expected"),
    [
        ("", "../warehouse/trace.duckdb"),
        ("warehouse", "../warehouse/trace.duckdb"),
        ("/w/h", "/w/h/trace.duckdb"),
    ],
)
def test_profile_path_resolves_like_settings(configured: str, expected: str) -> None:
    """Absolute WAREHOUSE_DIR as is; relative to the repository root (dbt runs in dbt_project/)."""
    profile = yaml.safe_load((DBT_PROJECT_DIR / "profiles.yml").read_text())
    template = profile["trace_warehouse"]["outputs"]["duckdb"]["path"]
    rendered = jinja2.Template(template).render(env_var=lambda name, default="": configured or default)
    assert rendered.strip() == expected


def test_one_models_file_per_folder() -> None:
    for layer in LAYERS:
        ymls = sorted(p.name for p in (MODELS / layer).glob("*.yml"))
        expected = [f"_{layer}__models.yml"] + (["_raw__sources.yml"] if layer == "staging" else [])
        assert ymls == sorted(expected), layer
        documented = {m["name"] for m in model_yaml(layer)["models"]}
        assert documented == {p.stem for p in (MODELS / layer).glob("*.sql")}, layer


def test_facts_and_dimensions_have_enforced_contracts_grain_and_relationships() -> None:
    for model in model_yaml("marts")["models"]:
        name = model["name"]
        assert model["config"]["contract"] == {"enforced": True}, name
        assert model["description"].startswith("Grain:"), name
        assert all(c.get("data_type") for c in model["columns"]), name
        sql_columns = re.findall(
            r"\bas (\w+)\s*,?\s*$", (MODELS / "marts" / f"{name}.sql").read_text().split("final as")[-1], re.M
        )
        assert [c["name"] for c in model["columns"]] == sql_columns, name
        if name.startswith("fct_"):
            for column in model["columns"]:
                if column["name"].endswith("_key") and column["name"] != model["columns"][0]["name"]:
                    tests = [t for t in column.get("data_tests", []) if isinstance(t, dict)]
                    assert any("relationships" in t for t in tests), f"{name}.{column['name']}"


def test_every_dimension_has_unique_surrogate_and_natural_keys() -> None:
    for model in model_yaml("marts")["models"]:
        if not model["name"].startswith("dim_"):
            continue
        key = model["columns"][0]
        assert key["name"].endswith("_key") and {"unique", "not_null"} <= set(key["data_tests"]), model[
            "name"
        ]
        assert any("Natural key" in c.get("description", "") for c in model["columns"]) or model.get(
            "data_tests"
        )


ENGINE_SPECIFIC = {
    "::": "a DuckDB/Postgres cast",
    '"': "a double-quoted identifier or string",
    "try_cast": "use dbt.safe_cast",
    "epoch(": "DuckDB only",
    "strftime(": "DuckDB only",
    "quantile": "use percentile_cont()",
    "read_parquet": "raw relations come from create_raw_relations()",
    " exclude": "Spark has no * EXCLUDE",
    "regexp_": "regular expressions only in macros/platform/",
}


@pytest.mark.parametrize("layer", LAYERS)
def test_models_use_portable_sql_only(layer: str) -> None:
    for path in sorted((MODELS / layer).glob("*.sql")):
        text = sql_without_jinja(path)
        for needle, why in ENGINE_SPECIFIC.items():
            assert needle not in text.lower(), f"{path.name}: {needle!r} ({why})"
        unquoted = re.sub(r"'[^']*'", "''", text)
        assert not re.search(r"[A-Z]", unquoted), f"{path.name}: SQL and identifiers are lower case"


def test_engine_specific_macros_live_in_platform() -> None:
    for path in (DBT_PROJECT_DIR / "macros").glob("*.sql"):
        text = path.read_text()
        assert not re.search(r"\b(duckdb|spark)__", text), (
            f"{path.name}: adapter-specific macro outside platform/"
        )
