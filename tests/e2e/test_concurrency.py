"""One writer, many readers: concurrent runs wait for each other; readers are answered while a run writes."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
from filelock import FileLock

from pipelines.settings import load_settings
from tests.e2e.cli import PROJECT_ROOT, query, run_cli

BURSTGPT_RAW = 'key:"landing/burstgpt__requests" or key:"raw/burstgpt__requests"'
WAITING = "another run is writing this warehouse; waiting"


def _env(root: Path) -> dict[str, str]:
    return {"WAREHOUSE_DIR": str(root / "warehouse"), "DAGSTER_HOME": str(root / "warehouse" / ".dagster")}


def _wait_for_line(stream, needle: str, seen: list[str]) -> None:
    """Read ``stream`` (a run's stderr) until a line holds ``needle``; keep what was read in ``seen``."""
    for line in stream:
        seen.append(line)
        if needle in line:
            return
    raise AssertionError(f"the run ended without saying {needle!r}:\n{''.join(seen)[-3000:]}")


def test_two_runs_started_together_both_finish(tmp_path: Path) -> None:
    """Both runs find the warehouse taken (the test holds the writer lock), wait, and then run one after the
    other: whatever the machine's load, neither can start before the lock is released."""
    settings = load_settings(_env(tmp_path))
    settings.warehouse_dir.mkdir(parents=True)
    env = {**os.environ, **_env(tmp_path)}
    cmd = [sys.executable, "-m", "pipelines.cli", "run", "--all", "--select", BURSTGPT_RAW]
    held = FileLock(str(settings.lock_path))
    held.acquire()
    procs: list[subprocess.Popen[str]] = []
    seen: list[list[str]] = [[], []]
    try:
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    cmd, cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                )
            )
        for proc, lines in zip(procs, seen, strict=True):
            _wait_for_line(proc.stderr, WAITING, lines)
    finally:
        held.release()
    with ThreadPoolExecutor(
        2
    ) as pool:  # both pipes drained at once: a full pipe must not stall the lock holder
        outputs = list(pool.map(lambda p: p.communicate(timeout=1800), procs))
    errors = ["".join(lines) + err for lines, (_, err) in zip(seen, outputs, strict=True)]
    assert [p.returncode for p in procs] == [0, 0], [e[-2000:] for e in errors]
    assert all("lock" not in out.lower() or "0 failed" in out for out, _ in outputs)
    (n,) = query(tmp_path / "warehouse", "select count(*) from raw.burstgpt__requests")[0]
    assert n > 400  # loaded once, not twice: the second run found every file unchanged
    loads = query(
        tmp_path / "warehouse", "select count(*) from meta.file_loads where family = 'burstgpt__requests'"
    )
    assert loads == [(3,)]
    landed = query(tmp_path / "warehouse", "select count(*) from meta.landed_files where changed")
    assert landed == [(0,)]  # the second run's landing is the last word: it found nothing new


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
