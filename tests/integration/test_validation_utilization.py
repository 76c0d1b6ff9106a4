"""Utilization and IPMI rules on small wide files unpivoted by the real loader: column names (quarantine, per
cell), pod names, the 15 s grid, repeated Time rows, percentages, physical ranges, FB_USED + FB_FREE, and
the IPMI server type."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines.settings import Settings, load_settings
from pipelines.validate import validation
from tests.support.validation import (
    assert_reconciled,
    lake_quarantine,
    load_csv,
    validate,
    view_quarantine,
)

GPU = "acme__gpu_metrics"
NODE = "acme__node_metrics"
IPMI = "acme__ipmi_power"
T0 = "2023-07-19 08:00:00+08:00"
T15 = "2023-07-19 08:00:15+08:00"


def test_gpu_util_file_rules(warehouse: Settings, tmp_path: Path) -> None:
    text = (
        "Time,10.140.0.1-0,10.140.0.1-1,node_a\n"
        f"{T0},50,150,1\n"  # 150 % is not a percentage; node_a is no known column shape
        f"{T15},60,,2\n"
        "2023-07-19 08:00:07+08:00,70,,\n"  # off the 15 s grid
        f"{T15},61,,\n"  # a repeated Time row
    )
    load_csv(warehouse, tmp_path, "seren/GPU_UTIL.csv", text)
    result = validate(warehouse, GPU)
    assert result.findings() == {
        "series_name_known": 2,
        "percentage_within_0_100": 1,
        "time_on_15s_grid": 1,
        "time_not_duplicated": 1,
    }
    q = lake_quarantine(warehouse, GPU)
    assert [(r["_row_number"], r["series"], r["rule"]) for r in q] == [
        (2, "node_a", "series_name_known"),
        (3, "node_a", "series_name_known"),
    ]
    assert q[0]["details"] == "cluster=seren metric=GPU_UTIL series_kind=unknown"
    assert [(r["_row_number"], r["rule"]) for r in view_quarantine(warehouse, GPU)] == [
        (2, "series_name_known"),
        (3, "series_name_known"),
    ]
    assert [(p.key, p.loaded, p.passed, p.quarantined) for p in result.partitions] == [
        ("2023-07-19", 7, 5, 2)
    ]
    assert_reconciled(result)
    assert [s["_row_number"] for s in result.outcomes["time_not_duplicated"].samples] == ["5"]  # 2nd copy
    assert (
        result.outcomes["time_on_15s_grid"].samples[0]["details"]
        == "time=2023-07-19 00:00:07 seconds_off_grid=7.0"
    )


def test_pod_names_are_kalos_only(warehouse: Settings, tmp_path: Path) -> None:
    load_csv(
        warehouse, tmp_path, "kalos/SM_ACTIVE.csv", f"Time,lingjun-pod9-0016-3,10.130.0.5-0\n{T0},50,60\n"
    )
    load_csv(
        warehouse, tmp_path, "seren/SM_ACTIVE.csv", f"Time,lingjun-pod9-0016-3,10.140.0.5-0\n{T0},50,60\n"
    )
    result = validate(warehouse, GPU)
    assert result.findings() == {"series_not_pod_name": 1, "series_name_known": 1}
    assert result.outcomes["series_not_pod_name"].by_file == {
        "huggingface/datasets/Qinghao/AcmeTrace/data/utilization/kalos/SM_ACTIVE.csv": 1
    }
    (q,) = lake_quarantine(warehouse, GPU)
    assert q["_source_file"].endswith("seren/SM_ACTIVE.csv") and q["series"] == "lingjun-pod9-0016-3"
    assert (result.loaded, result.passed, result.quarantined) == (4, 3, 1)


def test_physical_ranges(warehouse: Settings, tmp_path: Path) -> None:
    for metric, bad, good in (("POWER_USAGE", 900, 250.5), ("GPU_TEMP", -5, 60), ("SM_CLOCK", 3000, 1410)):
        load_csv(
            warehouse, tmp_path, f"seren/{metric}.csv", f"Time,10.140.0.1-0,10.140.0.1-1\n{T0},{bad},{good}\n"
        )
    result = validate(warehouse, GPU)
    assert result.findings() == {
        "power_within_physical_range": 1,
        "temperature_within_physical_range": 1,
        "clock_within_physical_range": 1,
    }
    assert result.outcomes["power_within_physical_range"].samples[0]["details"] == (
        "metric=POWER_USAGE value=900.0 power_w=900.0"
    )
    assert result.quarantined == 0 and result.loaded == 6


def test_fb_used_plus_free(warehouse: Settings, tmp_path: Path) -> None:
    header = "Time,10.140.0.1-0,10.140.0.1-1\n"
    load_csv(warehouse, tmp_path, "seren/FB_USED.csv", f"{header}{T0},1000,1000\n{T15},0,5\n")
    load_csv(warehouse, tmp_path, "seren/FB_FREE.csv", f"{header}{T0},80920,70000\n{T15},81920,81915\n")
    result = validate(warehouse, GPU)
    assert result.findings() == {"fb_used_plus_free_is_80gib": 1}
    (sample,) = result.outcomes["fb_used_plus_free_is_80gib"].samples
    assert sample["series"] == "10.140.0.1-1" and sample["_row_number"] == "2"
    assert sample["details"].endswith("fb_used_mib=1000.0 fb_free_mib=70000.0 fb_total_delta_mib=10920.0")
    assert result.outcomes["fb_used_plus_free_is_80gib"].evaluated == 4  # GPU-samples compared
    assert result.quarantined == 0


def test_node_metrics_cpu_above_100_and_dot1_variant(warehouse: Settings, tmp_path: Path) -> None:
    load_csv(
        warehouse, tmp_path, "kalos/NODE_CPU_UTILIZATION.csv", f"Time,10.130.0.1,10.130.0.2\n{T0},238.9,50\n"
    )
    text = f"Time,10.140.0.131,10.140.0.131.1\n{T0},101,\n{T15},,20\n"
    load_csv(warehouse, tmp_path, "seren/NODE_MEMORY_UTILIZATION.csv", text)
    result = validate(warehouse, NODE)
    assert result.findings() == {"cpu_utilization_within_0_100": 1, "percentage_within_0_100": 1}
    (cpu,) = result.outcomes["cpu_utilization_within_0_100"].samples
    assert cpu["series"] == "10.130.0.1" and cpu["details"] == (
        "metric=NODE_CPU_UTILIZATION value=238.9 cpu_percent=238.9"
    )
    assert view_quarantine(warehouse, NODE) == []  # `<IP>.1` is a known column shape
    assert (result.loaded, result.passed) == (4, 4)


IPMI_HEADER = "Time,IP,Sys_Total_Power,CPU_Power,Memory_Power"


def test_ipmi_server_types(warehouse: Settings, tmp_path: Path) -> None:
    load_csv(
        warehouse,
        tmp_path,
        "GPU_AB_Power.csv",
        f"{IPMI_HEADER}\n{T0},10.140.0.1,3000,300,50\n{T0},10.140.0.2,2900,300,\n",
    )
    load_csv(warehouse, tmp_path, "GPU_C_Power.csv", f"{IPMI_HEADER}\n{T0},10.140.2.10,2500,300,40\n")
    load_csv(warehouse, tmp_path, "CPU_D_Power.csv", f"{IPMI_HEADER}\n{T0},10.140.3.10,20000,300,40\n")
    result = validate(warehouse, IPMI)
    assert result.findings() == {"power_within_physical_range": 1}  # 20 kW is no server's draw
    assert result.outcomes["server_type_derivable"].breakdown == {"A": 1, "B": 1, "C": 1, "D": 1}
    assert result.quarantined == 0 and result.loaded == 4


def test_ipmi_type_not_derivable_without_memory_power_column(warehouse: Settings, tmp_path: Path) -> None:
    load_csv(warehouse, tmp_path, "GPU_AB_Power.csv", f"Time,IP,Sys_Total_Power\n{T0},10.140.0.1,3000\n")
    result = validate(warehouse, IPMI)
    assert result.findings() == {"server_type_derivable": 1}
    assert result.outcomes["server_type_derivable"].breakdown == {"(null)": 1}


def test_duplicate_rule_on_repeated_lines_equals_its_join_to_every_row(
    warehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``time_not_duplicated``, ``time_on_15s_grid`` and the range rules run on the rows of repeated lines, of
    lines off the grid and outside a range alone (sparse lookups), counted against every row: each rule's
    count, rows evaluated, samples, per-file counts and partitions equal those of the copy number, the seconds
    off the grid and the ranged values joined to every row, over two files with repeats (a third copy; a series
    whose first line at a Time lacks it, so its first copy is on the second line), a line off the grid and a
    temperature above its range."""
    files = {
        "seren/GPU_UTIL.csv": (
            "Time,10.140.0.1-0,10.140.0.1-1\n"
            f"{T0},50,1\n{T15},60,\n{T15},61,2\n{T15},62,3\n"
            "2023-07-19 08:00:30+08:00,70,4\n"
        ),
        "seren/GPU_TEMP.csv": (
            f"Time,10.140.0.1-0,node_a\n{T0},40,1\n{T0},41,2\n{T15},42,3\n2023-07-19 08:00:37+08:00,130,4\n"
        ),
    }

    def outcomes(settings: Settings) -> tuple[dict, list]:
        for name, text in files.items():
            load_csv(settings, tmp_path / settings.warehouse_dir.name, name, text)
        result = validate(settings, GPU, docs=True)
        assert_reconciled(result)
        rules = {
            name: (o.count, o.evaluated, o.samples, dict(o.by_file), sorted(o.partitions))
            for name, o in result.outcomes.items()
        }
        stored = settings.docs_dir / "gx-context" / "gx" / "uncommitted" / "validations" / GPU / "rows"
        (page,) = [json.loads(p.read_text(encoding="utf-8")) for p in stored.rglob("*.json")]
        docs = {
            r["expectation_config"]["meta"]["rule"]: (
                r["result"]["element_count"],
                r["result"]["unexpected_count"],
                r["result"]["unexpected_percent"],
            )
            for r in page["results"]
        }
        docs["batches"] = page["meta"]["batch_parameters"]["batches"]
        return rules, [(p.key, p.loaded, p.quarantined) for p in result.partitions], docs

    sparse_frames = []
    real = validation.sparse_frame_sql

    def spy(name: str, *args: object) -> str:
        sparse_frames.append(name)
        return real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(validation, "sparse_frame_sql", spy)
    sparse = outcomes(warehouse)
    ranges = ["clock_mhz", "percent", "power_w", "temperature_c"]
    assert sorted(sparse_frames) == sorted([*ranges, "seconds_off_grid", "time_copy"])

    monkeypatch.setenv("WAREHOUSE_DIR", str(tmp_path / "joined"))
    monkeypatch.setattr(validation, "sparse_groups", lambda rules: (list(rules), {}))
    joined = outcomes(load_settings())
    assert sparse == joined
    docs_counts = sparse[2]["time_not_duplicated"]  # the Data Docs count every row
    assert docs_counts == (17, 5, pytest.approx(500 / 17))
    assert sparse[2]["batches"] == 1
    count, evaluated, samples, by_file, _ = sparse[0]["time_not_duplicated"]
    # GPU_UTIL: 61 and 62 of 10.140.0.1-0 at T15, 3 of -1 (its first copy is 2); GPU_TEMP: 41 and 2 at T0
    assert (count, evaluated) == (5, 17)
    assert sparse[0]["time_on_15s_grid"][:2] == (2, 17)  # GPU_TEMP's line at 08:00:37, both its cells
    assert sparse[0]["temperature_within_physical_range"][:2] == (1, 17)  # 130 °C on that line
    assert {Path(f).name: n for f, n in by_file.items()} == {"GPU_TEMP.csv": 2, "GPU_UTIL.csv": 3}
    assert [(s["_row_number"], s["series"]) for s in samples] == [
        ("3", "10.140.0.1-0"),
        ("3", "node_a"),
        ("4", "10.140.0.1-0"),
        ("5", "10.140.0.1-0"),
        ("5", "10.140.0.1-1"),
    ]
