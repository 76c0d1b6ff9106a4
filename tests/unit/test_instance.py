"""The project's Dagster instance: one dagster.yaml, a local tool's settings (no telemetry, no onboarding)."""

from __future__ import annotations

from pipelines.defs.instance import dagster_yaml, ensure_dagster_home
from pipelines.settings import Settings


def test_the_instance_has_no_telemetry_and_no_first_visit_dialog(warehouse: Settings) -> None:
    import dagster as dg

    home = ensure_dagster_home(warehouse)
    with dg.DagsterInstance.from_config(home) as instance:
        assert instance.telemetry_enabled is False
        assert instance.nux_enabled is False


def test_an_older_dagster_yaml_of_ours_is_updated_a_users_own_is_kept(warehouse: Settings) -> None:
    config = warehouse.dagster_home / "dagster.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("# Written by trace-warehouse. One instance.\ntelemetry:\n  enabled: false\n")
    ensure_dagster_home(warehouse)
    assert config.read_text() == dagster_yaml(warehouse.dagster_home)

    own = "telemetry:\n  enabled: true\n"
    config.write_text(own)
    ensure_dagster_home(warehouse)
    assert config.read_text() == own
