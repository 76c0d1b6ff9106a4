"""The refresh's declarative automation: which condition each asset carries, what the conditions request
when an upstream family is reported changed or the daily tick passes (Dagster's own evaluator on an
ephemeral instance), and the upstream sensor's report-once cursor."""

from __future__ import annotations

import datetime as dt

import dagster as dg
import pytest

from pipelines.defs.automation import AUTOMATED_GROUPS, RAW_FRESHNESS, upstream_events
from pipelines.families.registry import family_keys
from pipelines.sources.trace_source import UpstreamChange


@pytest.fixture(scope="module")
def defs(tmp_path_factory: pytest.TempPathFactory) -> dg.Definitions:
    from pipelines.definitions import build_definitions
    from pipelines.settings import load_settings

    wh = tmp_path_factory.mktemp("automation") / "warehouse"
    return build_definitions(load_settings({"WAREHOUSE_DIR": str(wh)}))


def _requested(result) -> set[str]:
    return {
        r.key.to_user_string()
        for r in result.results
        if isinstance(r.key, dg.AssetKey) and not r.true_subset.is_empty
    }


def test_every_refreshed_asset_carries_a_condition(defs: dg.Definitions) -> None:
    graph = defs.get_repository_def().asset_graph
    labels: dict[str, set[str | None]] = {}
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        condition = node.automation_condition
        labels.setdefault(node.group_name, set()).add(condition.get_label() if condition else None)
        if node.group_name == "raw":
            assert node.freshness_policy == RAW_FRESHNESS, key
    assert labels["landing"] == {"upstream changed, or daily at 03:00 UTC"}
    for group in AUTOMATED_GROUPS - {"landing"}:
        assert labels[group] == {"eager"}, group
    assert labels["upstream"] == {None}  # external: reported by the sensor, never run
    assert {g for g, found in labels.items() if None in found} <= {"upstream", "default", "exports"}


def test_a_reported_upstream_change_requests_its_lineage_and_nothing_else(defs: dg.Definitions) -> None:
    instance = dg.DagsterInstance.ephemeral()
    first = dg.evaluate_automation_conditions(defs=defs, instance=instance)
    assert _requested(first) == set()  # nothing missing is requested on the first tick
    instance.report_runless_asset_event(dg.AssetMaterialization(asset_key=["upstream", "burstgpt__requests"]))
    tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=first.cursor)
    wanted = _requested(tick)
    assert {k for k in wanted if k.startswith(("landing/", "raw/"))} == {
        "landing/burstgpt__requests",
        "raw/burstgpt__requests",
    }
    # its models (whose `quarantine` source is never materialized) follow in the same tick
    assert {"staging/stg_burstgpt__requests", "marts/fct_request"} <= wanted
    assert {"fits/arrival_fits", "fits/token_length_fits", "fits/request_rate_scaling"} <= wanted
    assert not any("acme" in k for k in wanted)


def test_the_daily_tick_requests_every_landing_asset(defs: dg.Definitions) -> None:
    instance = dg.DagsterInstance.ephemeral()
    before = dt.datetime(2026, 12, 1, 2, 59, tzinfo=dt.UTC)
    first = dg.evaluate_automation_conditions(defs=defs, instance=instance, evaluation_time=before)
    assert _requested(first) == set()
    tick = dg.evaluate_automation_conditions(
        defs=defs, instance=instance, cursor=first.cursor, evaluation_time=before + dt.timedelta(minutes=2)
    )
    assert {k for k in _requested(tick) if k.startswith("landing/")} == {
        f"landing/{f}" for f in family_keys()
    }
    later = dg.evaluate_automation_conditions(
        defs=defs, instance=instance, cursor=tick.cursor, evaluation_time=before + dt.timedelta(minutes=4)
    )
    assert not any(k.startswith("landing/") for k in _requested(later))  # once per tick


def _change(family: str, path: str, version: str) -> UpstreamChange:
    return UpstreamChange(family=family, mirror_path=path, reason="size changed", version=version)


def test_the_upstream_sensor_reports_a_change_once() -> None:
    changes = [
        _change("burstgpt__requests", "burstgpt/BurstGPT_2.csv", "10:1"),
        _change("acme__seren_jobs", "s.csv", "5:1"),
    ]
    events, cursor = upstream_events(changes, {})
    assert sorted(e.asset_key.to_user_string() for e in events) == [
        "upstream/acme__seren_jobs",
        "upstream/burstgpt__requests",
    ]
    assert upstream_events(changes, cursor)[0] == []  # not landed yet: not reported again
    grown = [_change("burstgpt__requests", "burstgpt/BurstGPT_2.csv", "12:2")]  # Seren landed, BurstGPT grew
    events, cursor = upstream_events(grown, cursor)
    assert [e.asset_key.to_user_string() for e in events] == ["upstream/burstgpt__requests"]
    assert set(cursor) == {"burstgpt__requests"}
    assert upstream_events([], cursor) == ([], {})


def _requested_partitions(result, key: str) -> set[str]:
    for r in result.results:
        if isinstance(r.key, dg.AssetKey) and r.key.to_user_string() == key and not r.true_subset.is_empty:
            return set(r.true_subset.expensively_compute_partition_keys())
    return set()


def test_a_changed_utilization_file_requests_its_partition_alone(defs: dg.Definitions) -> None:
    instance = dg.DagsterInstance.ephemeral()
    first = dg.evaluate_automation_conditions(defs=defs, instance=instance)
    path = "huggingface/datasets/Qinghao/AcmeTrace/data/utilization/kalos/GPU_UTIL-2023-07-01.csv"
    events, _ = upstream_events([_change("acme__gpu_metrics", path, "7:1")], {})
    assert [(e.asset_key.to_user_string(), e.partition) for e in events] == [
        ("upstream/acme__gpu_metrics", "kalos/GPU_UTIL")  # a piece of a split metric: the metric's partition
    ]
    instance.report_runless_asset_event(events[0])
    tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=first.cursor)
    assert _requested_partitions(tick, "landing/acme__gpu_metrics") == {"kalos/GPU_UTIL"}
    assert _requested_partitions(tick, "raw/acme__gpu_metrics") == {"kalos/GPU_UTIL"}
    assert not any(k.startswith(("landing/", "raw/")) and "gpu" not in k for k in _requested(tick))


def test_the_daily_tick_requests_every_file_partition(defs: dg.Definitions) -> None:
    from pipelines.families.upstream import file_partitions

    instance = dg.DagsterInstance.ephemeral()
    before = dt.datetime(2026, 12, 1, 2, 59, tzinfo=dt.UTC)
    first = dg.evaluate_automation_conditions(defs=defs, instance=instance, evaluation_time=before)
    tick = dg.evaluate_automation_conditions(
        defs=defs, instance=instance, cursor=first.cursor, evaluation_time=before + dt.timedelta(minutes=2)
    )
    for family in ("acme__gpu_metrics", "acme__node_metrics"):
        assert _requested_partitions(tick, f"landing/{family}") == set(file_partitions(family))


def test_every_sensor_finds_the_resources_it_names(defs: dg.Definitions) -> None:
    """A sensor names its resources by parameter; a name the definitions do not provide fails only when the
    sensor ticks, so it is checked here."""
    provided = set(defs.resources or {})
    for sensor in defs.sensors or []:
        assert sensor.required_resource_keys <= provided, (
            sensor.name,
            sensor.required_resource_keys - provided,
        )
