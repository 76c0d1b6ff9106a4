"""Where a ``trace-warehouse run`` spent its time, read after it ended: Dagster's event log (the run's
instance, ``$DAGSTER_HOME``) for every step, dbt's ``run_results.json`` (``$WAREHOUSE_DIR/dbt/<target>/``)
for the models and tests inside the dbt step.

- **layers**: seconds per layer — ``landing``, ``raw``, ``checks`` (steps that only evaluate asset checks),
  the dbt nodes by folder (``seeds``, ``staging``, ``intermediate``, ``marts``, ``analysis`` — models and
  their generic tests —, ``tests`` for singular tests, ``hooks``; ``dbt other`` is the dbt step's time
  outside any node: parse, connection), ``fits``, ``reports``, ``docs``; ``other``: steps that neither
  materialized nor checked anything.
  Steps are summed, so a layer whose steps overlapped can exceed its share of the wall clock.
- **slowest**: the slowest nodes — Dagster steps outside dbt and dbt nodes, one list.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import dagster as dg

    from pipelines.settings import Settings

# First part of an asset key → its layer; any other key is a dbt model, split by its folder.
LAYER_OF_PREFIX = {
    "upstream": "upstream",
    "landing": "landing",
    "raw": "raw",
    "fits": "fits",
    "report": "reports",
    "docs": "docs",
    "export": "exports",
}
DBT = "dbt"
DBT_OTHER = "dbt other"
LAYER_ORDER = ("upstream", "landing", "raw", "checks", "seeds", "staging", "intermediate", "marts",
               "analysis", "tests", "hooks", DBT_OTHER, "fits", "reports", "docs", "exports", "other")  # fmt: skip
SLOWEST = 15


def run_ids(instance: dg.DagsterInstance) -> set[str]:
    return {r.run_id for r in instance.get_runs()}


def _layer_of_assets(keys: Iterable[str]) -> str:
    layers = {LAYER_OF_PREFIX.get(k.split("/", 1)[0], DBT) for k in keys}
    return DBT if DBT in layers else min(layers)


def _step_layers(instance: dg.DagsterInstance, run_id: str) -> dict[str, str]:
    """Step key → layer, from the assets each step materialized (a step with only check evaluations:
    ``checks``)."""
    import dagster as dg

    assets: dict[str, set[str]] = {}
    checks: set[str] = set()
    kinds = {dg.DagsterEventType.ASSET_MATERIALIZATION, dg.DagsterEventType.ASSET_CHECK_EVALUATION}
    for record in instance.all_logs(run_id, of_type=kinds):
        step = record.step_key or ""
        event = record.dagster_event
        if event is None:
            continue
        if event.event_type == dg.DagsterEventType.ASSET_MATERIALIZATION and event.asset_key is not None:
            assets.setdefault(step, set()).add(event.asset_key.to_user_string())
        else:
            checks.add(step)
    out = {step: _layer_of_assets(keys) for step, keys in assets.items()}
    return out | {step: "checks" for step in checks - set(out)}


def dagster_steps(instance: dg.DagsterInstance, new_runs: Iterable[str]) -> dict[str, Any]:
    """The runs' durations and every step's layer and seconds (``get_run_stats``, ``get_run_step_stats``)."""
    runs, steps = [], []
    for run_id in sorted(new_runs):
        stats = instance.get_run_stats(run_id)
        run = instance.get_run_by_id(run_id)
        seconds = (stats.end_time - stats.start_time) if stats.start_time and stats.end_time else None
        runs.append({"run_id": run_id, "status": run.status.value if run else None, "seconds": seconds})
        layers = _step_layers(instance, run_id)
        for step in instance.get_run_step_stats(run_id):
            if step.start_time is None or step.end_time is None:
                continue
            steps.append(
                {
                    "step": step.step_key,
                    "layer": layers.get(step.step_key, "other"),
                    "seconds": step.end_time - step.start_time,
                    "status": step.status.value if step.status else None,
                }
            )
    return {"runs": runs, "steps": steps}


def _dbt_folder(node: dict[str, Any]) -> str:
    """seeds, the model folder (staging, intermediate, marts, analysis) of a model or generic test, tests
    (singular tests, outside the model folders), hooks."""
    kind, fqn = node.get("resource_type"), node.get("fqn") or []
    if kind == "seed":
        return "seeds"
    if kind == "operation":
        return "hooks"
    if len(fqn) > 2:
        return fqn[1]
    return "tests" if kind == "test" else "other"


def dbt_nodes(settings: Settings) -> dict[str, Any]:
    """The nodes of the last dbt invocation under ``$WAREHOUSE_DIR/dbt``: seconds and folder of each."""
    found = sorted(settings.dbt_runs_dir.glob("*/run_results.json"), key=lambda p: p.stat().st_mtime)
    if not found:
        return {"run_results": None, "nodes": []}
    results_path = found[-1]
    manifest_path = results_path.with_name("manifest.json")
    manifest = json.loads(manifest_path.read_text("utf-8")) if manifest_path.is_file() else {}
    known = manifest.get("nodes", {})
    nodes = []
    for result in json.loads(results_path.read_text("utf-8")).get("results", []):
        uid = result["unique_id"]
        node = known.get(uid, {})
        kind, _, name = uid.partition(".")
        nodes.append(
            {
                "node": f"{kind} {node.get('name') or name.partition('.')[2] or name}",
                "layer": _dbt_folder(node) if node else "other",
                "seconds": result.get("execution_time") or 0.0,
                "status": result.get("status"),
            }
        )
    return {"run_results": str(results_path), "nodes": nodes}


def summarize(steps: list[dict[str, Any]], dbt: list[dict[str, Any]]) -> dict[str, Any]:
    """Seconds per layer (dbt's steps split by folder) and the slowest nodes."""
    layers: dict[str, float] = {}
    dbt_step_s = 0.0
    for step in steps:
        if step["layer"] == DBT:
            dbt_step_s += step["seconds"]
        else:
            layers[step["layer"]] = layers.get(step["layer"], 0.0) + step["seconds"]
    for node in dbt:
        layers[node["layer"]] = layers.get(node["layer"], 0.0) + node["seconds"]
    in_nodes = sum(n["seconds"] for n in dbt)
    if dbt_step_s:
        layers[DBT_OTHER] = max(dbt_step_s - in_nodes, 0.0)
    order = {name: i for i, name in enumerate(LAYER_ORDER)}
    ordered = dict(sorted(layers.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    nodes = [{"node": s["step"], "layer": s["layer"], "seconds": s["seconds"]} for s in steps
             if s["layer"] != DBT] + [{**n, "node": f"dbt {n['node']}"} for n in dbt]  # fmt: skip
    slowest = sorted(nodes, key=lambda n: -n["seconds"])[:SLOWEST]
    return {"layers": ordered, "dbt_step_s": dbt_step_s, "dbt_nodes_s": in_nodes, "slowest": slowest}


def collect(settings: Settings, before: set[str]) -> dict[str, Any]:
    """Everything above for the Dagster runs that are not in ``before`` (those the CLI just launched)."""
    from pipelines.defs.instance import open_instance

    with open_instance(settings) as instance:
        dagster = dagster_steps(instance, run_ids(instance) - before)
    dbt = dbt_nodes(settings) if any(s["layer"] == DBT for s in dagster["steps"]) else {"nodes": []}
    return {
        "dagster_runs": dagster["runs"],
        "dagster_run_s": sum(r["seconds"] or 0.0 for r in dagster["runs"]),
        "run_results": dbt.get("run_results"),
        **summarize(dagster["steps"], dbt["nodes"]),
    }


def disk_bytes(paths: Iterable[Path], seen: set[tuple[int, int]] | None = None) -> int:
    """Real bytes (allocated blocks) of every file under ``paths``, each inode once — a hard link to a file
    already counted (in ``seen``, shared between calls) adds nothing."""
    seen = set() if seen is None else seen
    total = 0
    for root in paths:
        files = [root] if root.is_file() else (p for p in root.rglob("*") if p.is_file())
        for path in files:
            st = path.lstat()
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total
