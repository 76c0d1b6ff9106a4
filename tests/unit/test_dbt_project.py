"""The dbt project's conventions and the dbt wiring's small pieces, without running dbt."""

import inspect
import re
import subprocess
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import dagster_dbt.core.resource as dagster_dbt_resource
import jinja2
import pytest
import yaml
from dagster_dbt import DbtCliInvocation, DbtCliResource

from pipelines.defs import dbt as dbt_assets
from pipelines.defs.dbt import DbtManifestMissingError, manifest_path
from pipelines.settings import (
    SETTINGS_BY_VAR,
    child_environment,
    load_settings,
    settings_variables,
    with_settings,
)
from pipelines.warehouse import profiles
from pipelines.warehouse.dbt_build import (
    BUILD_COMMAND,
    DBT_PROJECT_DIR,
    PARTITION_KEYS_VARIABLE,
    dbt_executable,
    dbt_target,
    partition_keys_environment,
)

MODELS = DBT_PROJECT_DIR / "models"
LAYERS = ("staging", "intermediate", "marts", "analysis")


def model_yaml(layer: str) -> dict:
    return yaml.safe_load((MODELS / layer / f"_{layer}__models.yml").read_text())


def sql_without_jinja(path: Path) -> str:
    text = re.sub(r"\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}", " ", path.read_text(), flags=re.S)
    return re.sub(r"--[^\n]*", " ", text)


def test_dbt_env_passes_absolute_warehouse_and_start_date(tmp_path: Path) -> None:
    settings = load_settings({"WAREHOUSE_DIR": "warehouse", "BURSTGPT_START_DATE": "2023-01-01"})
    env = settings_variables(settings)
    assert Path(env["WAREHOUSE_DIR"]).is_absolute() and env["WAREHOUSE_DIR"].endswith("warehouse")
    assert env["BURSTGPT_START_DATE"] == date(2023, 1, 1).isoformat() and env["TRACE_ENGINE"] == "duckdb"
    assert "BURSTGPT_START_DATE" not in settings_variables(load_settings({"WAREHOUSE_DIR": str(tmp_path)}))


def test_a_child_gets_the_settings_in_place_of_what_it_inherits(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A setting the settings leave unset is not inherited either (dbt's profile falls back to its default);
    a secret is never copied into the variables, and passes through as it was."""
    for name, value in {"BURSTGPT_START_DATE": "2020-02-02", "HF_TOKEN": "hf_x", "OTHER": "kept"}.items():
        monkeypatch.setenv(name, value)
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path), "HF_TOKEN": "hf_y"})
    assert "HF_TOKEN" not in settings_variables(settings)
    env = child_environment(settings, EXTRA="1")
    assert "BURSTGPT_START_DATE" not in env and env["WAREHOUSE_DIR"] == str(tmp_path)
    assert (env["HF_TOKEN"], env["OTHER"], env["EXTRA"]) == ("hf_x", "kept", "1")
    assert with_settings({"TRACE_ENGINE": "spark", "PATH": "/bin"}, {}) == {"PATH": "/bin"}


def test_profiles_yml_is_generated_from_the_settings_table() -> None:
    """dbt_project/profiles.yml is what ``python -m pipelines.warehouse.profiles`` writes: each env_var's
    default is its setting's, from SETTINGS_TABLE."""
    assert profiles.PROFILES_PATH.read_text(encoding="utf-8") == profiles.render(), (
        f"dbt_project/profiles.yml differs from what pipelines/warehouse/profiles.py writes: run {profiles.COMMAND}"
    )
    read = re.findall(r"env_var\('(\w+)', '([^']*)'\)", profiles.PROFILES_PATH.read_text(encoding="utf-8"))
    defaults = {name: default for name, default in read if default}
    assert defaults["TRACE_DUCKDB_MEMORY_LIMIT"] == SETTINGS_BY_VAR["TRACE_DUCKDB_MEMORY_LIMIT"].default_text
    for name, default in defaults.items():
        setting = SETTINGS_BY_VAR[name]
        assert setting.default is None or default == setting.default_text, name


def test_the_profile_template_takes_no_default_of_its_own() -> None:
    with pytest.raises(profiles.ProfileTemplateError, match="defaults come from SETTINGS_TABLE"):
        profiles.render("memory_limit: \"{{ env_var('TRACE_DUCKDB_MEMORY_LIMIT', '1GB') }}\"\n")
    with pytest.raises(profiles.ProfileTemplateError, match="not in SETTINGS_TABLE"):
        profiles.render('x: "{{ $env(TRACE_NO_SUCH_SETTING) }}"\n')
    with pytest.raises(profiles.ProfileTemplateError, match="a default of its own"):
        profiles.render("x: \"{{ $env(SPARK_MASTER, 'local') }}\"\n")


def test_missing_manifest_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "target" / "spark" / "manifest.json"
    monkeypatch.setattr(
        dbt_assets, "dbt_project", lambda settings, engine=None: SimpleNamespace(manifest_path=missing)
    )
    with pytest.raises(DbtManifestMissingError, match=r"target/spark/manifest\.json.*make install"):
        manifest_path(load_settings({}), "spark")


def test_dbt_executable_is_the_venvs() -> None:
    assert Path(dbt_executable()).name == "dbt"


def test_the_dbt_resource_knows_the_installed_dbt_version_without_running_dbt(tmp_path: Path) -> None:
    """What dagster-dbt would learn from ``dbt --version`` (which asks PyPI), read from the package; another
    executable is still asked."""
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path)})
    printed = subprocess.run(
        [dbt_executable(), "--version"], capture_output=True, text=True, check=True
    ).stdout
    installed = re.search(r"installed:\s*(\S+)", printed)
    assert installed and str(dbt_assets.dbt_resource(settings)._cli_version) == installed.group(1)
    elsewhere = tmp_path / "bin" / "dbt"
    elsewhere.parent.mkdir()
    elsewhere.write_text("#!/bin/sh\necho 'Core:\n  - installed: 9.8.7'\n")
    elsewhere.chmod(0o755)
    other = dbt_assets.InstalledDbtCliResource(
        project_dir=str(DBT_PROJECT_DIR), dbt_executable=str(elsewhere)
    )
    assert str(other._cli_version) == "9.8.7"
    # the name overridden is dagster-dbt's, and its `cli` still asks it (an upgrade that renames it fails here)
    assert "self._cli_version" in inspect.getsource(DbtCliResource.cli)


def test_the_dbt_resource_gives_dbt_the_settings_through_dagster_dbts_seam(tmp_path: Path) -> None:
    """The ``dbt`` resource carries the settings' variables (no secret among them), and the seam it hands
    them through is still where dagster-dbt's ``cli`` starts dbt (an upgrade that moves it fails here; the
    dbt run itself is tests/integration/test_dbt_dagster.py's)."""
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path), "HF_TOKEN": "hf_secret"})
    resource = dbt_assets.dbt_resource(settings)
    assert resource.variables == settings_variables(settings) and "HF_TOKEN" not in resource.variables
    source = inspect.getsource(DbtCliResource.cli)
    assert "DbtCliInvocation.run(" in source and "env=env" in source
    assert dagster_dbt_resource.DbtCliInvocation is DbtCliInvocation  # restored after every call


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


# A fact that is a view over the lake takes its keys from small intermediate tables, whose data tests check
# them against the dimensions once per series or line (a test on the view would read every sample).
KEYS_TESTED_UPSTREAM = {"fct_node_metric": ("int_node_series", "int_node_metric_lines")}


def _relationship_columns(models: list[dict]) -> set[str]:
    return {
        column["name"]
        for model in models
        for column in model.get("columns", [])
        if any(isinstance(t, dict) and "relationships" in t for t in column.get("data_tests", []))
    }


def test_facts_and_dimensions_have_enforced_contracts_grain_and_relationships() -> None:
    intermediate = model_yaml("intermediate")["models"]
    for model in model_yaml("marts")["models"]:
        name = model["name"]
        assert model["config"]["contract"] == {"enforced": True}, name
        assert model["description"].startswith("Grain:"), name
        assert all(c.get("data_type") for c in model["columns"]), name
        final = (MODELS / "marts" / f"{name}.sql").read_text().split("final as")[-1].split("from ")[0]
        sql_columns = re.findall(r"^\s+(?:.*\bas )?(\w+)\s*,?\s*$", final, re.M)
        assert [c["name"] for c in model["columns"]] == [c for c in sql_columns if c != "select"], name
        if not name.startswith("fct_"):
            continue
        # the keys it points with: every *_key column but its own (the one tested unique)
        keys = {
            c["name"]
            for c in model["columns"]
            if c["name"].endswith("_key") and "unique" not in c.get("data_tests", [])
        }
        upstream = KEYS_TESTED_UPSTREAM.get(name)
        tested = _relationship_columns(
            [m for m in intermediate if m["name"] in upstream] if upstream else [model]
        )
        assert keys <= tested, f"{name}: {sorted(keys - tested)}"


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
    "quantile": "use percentiles_cont()",
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


# --- Spark target ---------------------------------------------------------------------------------------


def render_profile(value: str, env: dict[str, str]) -> str:
    environment = jinja2.Environment()
    environment.filters["as_number"] = int
    return (
        environment.from_string(value).render(env_var=lambda name, default="": env.get(name, default)).strip()
    )


def profile_outputs() -> dict:
    return yaml.safe_load((DBT_PROJECT_DIR / "profiles.yml").read_text())["trace_warehouse"]


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "duckdb"),
        ({"TRACE_ENGINE": "duckdb", "SPARK_THRIFT_HOST": "h"}, "duckdb"),
        ({"TRACE_ENGINE": "spark"}, "spark"),
        ({"TRACE_ENGINE": "spark", "SPARK_THRIFT_HOST": "127.0.0.1"}, "spark_thrift"),
    ],
)
def test_profile_target_follows_engine_and_thrift_host(env: dict[str, str], expected: str) -> None:
    assert render_profile(profile_outputs()["target"], env) == expected


def test_dbt_target_makes_the_same_choice() -> None:
    assert dbt_target(load_settings({"SPARK_THRIFT_HOST": "h"}), "duckdb") == "duckdb"
    assert dbt_target(load_settings({}), "spark") == "spark"
    assert (
        dbt_target(load_settings({"SPARK_THRIFT_HOST": "h", "SPARK_THRIFT_PORT": "1"}), "spark")
        == "spark_thrift"
    )
    env = settings_variables(load_settings({"SPARK_THRIFT_HOST": "h", "SPARK_THRIFT_PORT": "10001"}))
    assert env["SPARK_THRIFT_HOST"] == "h" and env["SPARK_THRIFT_PORT"] == "10001"


def test_spark_session_keeps_its_state_under_the_warehouse() -> None:
    spark = profile_outputs()["outputs"]["spark"]
    assert spark["method"] == "session"
    params = {
        k: render_profile(str(v), {"WAREHOUSE_DIR": "/w/h"})
        for k, v in spark["server_side_parameters"].items()
    }
    assert params["spark.sql.warehouse.dir"] == "/w/h/spark/warehouse"
    assert params["spark.hadoop.javax.jdo.option.ConnectionURL"] == (
        "jdbc:derby:;databaseName=/w/h/spark/metastore_db;create=true"
    )
    assert params["spark.driver.extraJavaOptions"] == "-Dderby.system.home=/w/h/spark"
    assert params["spark.sql.session.timeZone"] == "UTC" and params["spark.ui.showConsoleProgress"] == "false"
    assert params["spark.sql.sources.partitionColumnTypeInference.enabled"] == "false"
    assert params["spark.driver.bindAddress"] == "127.0.0.1"


def test_thrift_sends_the_same_runtime_settings_and_no_static_ones() -> None:
    outputs = profile_outputs()["outputs"]
    thrift = outputs["spark_thrift"]
    assert thrift["method"] == "thrift"
    assert render_profile(thrift["port"], {"SPARK_THRIFT_PORT": "10001"}) == "10001"
    session = outputs["spark"]["server_side_parameters"]
    runtime = {k: v for k, v in session.items() if k.startswith("spark.sql.") and k not in STATIC_SQL_CONFS}
    sent = {k.removeprefix("set:hiveconf:"): v for k, v in thrift["server_side_parameters"].items()}
    assert sent == runtime
    assert all(k.startswith("set:hiveconf:") for k in thrift["server_side_parameters"])  # else ignored


STATIC_SQL_CONFS = {"spark.sql.warehouse.dir", "spark.sql.shuffle.partitions"}


def test_the_build_environment_carries_the_partition_window() -> None:
    assert partition_keys_environment() == {PARTITION_KEYS_VARIABLE: ""}  # every partition
    assert partition_keys_environment(["0002", "0001", "0002"]) == {
        PARTITION_KEYS_VARIABLE: '["0001", "0002"]'
    }
    # nothing changed: replace no partition (an empty list would mean "rebuild everything")
    assert partition_keys_environment([]) == {PARTITION_KEYS_VARIABLE: '["__none__"]'}
    assert BUILD_COMMAND[:3] == ["build", "--exclude-resource-type", "unit_test"]


def test_facts_replace_partitions_and_per_row_intermediates_are_views() -> None:
    for name in ("fct_job", "fct_request", "fct_server_power"):
        text = (MODELS / "marts" / f"{name}.sql").read_text()
        assert "{{ config(**partition_replace_config(" in text, name
        assert "where {{ partition_window() }}" in text, name
    # the utilization samples live once, in the raw lake: their fact and its keyed intermediate are views
    for path in (
        MODELS / "marts" / "fct_node_metric.sql",
        MODELS / "intermediate" / "int_node_metrics_keyed.sql",
    ):
        assert "{{ config(materialized='view') }}" in path.read_text(), path.name
    project = yaml.safe_load((DBT_PROJECT_DIR / "dbt_project.yml").read_text())
    intermediate = project["models"]["trace_warehouse"]["intermediate"]
    assert intermediate["int_requests_enriched"]["+materialized"] == "view"
    assert intermediate["int_server_power_typed"]["+materialized"] == "view"
    assert project["vars"]["partition_keys"] is None


def test_every_platform_macro_is_documented() -> None:
    platform = DBT_PROJECT_DIR / "macros" / "platform"
    documented = {
        m["name"] for m in yaml.safe_load((platform / "_platform__macros.yml").read_text())["macros"]
    }
    for path in platform.glob("*.sql"):
        for name in re.findall(r"\{%-?\s*macro\s+((?:duckdb|spark)__\w+)\(", path.read_text()):
            generic = name.split("__", 1)[1]
            assert name in documented or generic in documented, f"{path.name}: {name} is not documented"
