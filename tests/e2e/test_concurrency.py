"""One writer, many readers: concurrent runs wait for each other; readers are answered while a run writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb

from tests.e2e.cli import PROJECT_ROOT, query, run_cli

BURSTGPT_RAW = 'key:"landing/burstgpt__requests" or key:"raw/burstgpt__requests"'


def _env(root: Path) -> dict[str, str]:
    return {"WAREHOUSE_DIR": str(root / "warehouse"), "DAGSTER_HOME": str(root / "warehouse" / ".dagster")}


def test_two_runs_started_together_both_finish(tmp_path: Path) -> None:
    env = {**os.environ, **_env(tmp_path)}
    cmd = [sys.executable, "-m", "pipelines.cli", "run", "--select", BURSTGPT_RAW]
    procs = [
        subprocess.Popen(
            cmd, cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _, err in outputs]
    assert sum("another run is writing this warehouse; waiting" in err for _, err in outputs) == 1
    assert all("lock" not in out.lower() or "0 failed" in out for out, _ in outputs)
    (n,) = query(tmp_path / "warehouse", "select count(*) from raw.burstgpt__requests")[0]
    assert n > 400  # loaded once, not twice: the second run found every file unchanged
    loads = query(
        tmp_path / "warehouse", "select count(*) from meta.file_loads where family = 'burstgpt__requests'"
    )
    assert loads == [(3,)]


def test_sql_answers_from_the_snapshot_while_a_writer_holds_the_file(tmp_path: Path) -> None:
    env = _env(tmp_path)
    built = run_cli("run", "--select", BURSTGPT_RAW, env=env)
    assert built.returncode == 0, built.stderr[-2000:]
    expected = query(tmp_path / "warehouse", "select count(*) from raw.burstgpt__requests")[0][0]

    writer = duckdb.connect(str(tmp_path / "warehouse" / "trace.duckdb"))  # a writer in another process
    try:
        answer = run_cli("sql", "select count(*) as n from raw.burstgpt__requests", env=env)
    finally:
        writer.close()
    assert answer.returncode == 0, answer.stderr
    assert f"{expected}" in answer.stdout.replace(",", "")
    assert "answering from the snapshot" in answer.stderr

    live = run_cli("sql", "select 1 as one", env=env)
    assert live.returncode == 0 and "snapshot" not in live.stderr
