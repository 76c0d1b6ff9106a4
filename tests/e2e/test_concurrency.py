"""One writer, many readers: concurrent runs wait for each other; readers are answered while a run writes."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
from filelock import FileLock

from pipelines.families.registry import fixed_files
from pipelines.sample import generate_sample
from pipelines.settings import load_settings
from pipelines.warehouse.db import reader
from tests.e2e.cli import PROJECT_ROOT, query, run_cli
from tests.support.mirror_publish import republish

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


BURSTGPT = 'tag:"source"="burstgpt" or key:"staging/stg_burstgpt__requests"'  # landing, raw, dbt
BY_PARTITION = {  # what a reader asks, per partition: each one must be old or new, never broken or half-done
    "raw": "select _partition, count(*), sum(request_tokens) from raw.burstgpt__requests group by all",
    "dbt": "select _partition, count(*), sum(request_tokens) from staging.stg_burstgpt__requests group by all",
}


def _answers(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, tuple]]:
    return {name: {r[0]: r[1:] for r in con.execute(sql).fetchall()} for name, sql in BY_PARTITION.items()}


def test_a_reader_gets_answers_throughout_a_refresh(tmp_path: Path) -> None:
    """A refresh (``trace-warehouse run``: a changed BurstGPT file landed, loaded, dbt's partitions replaced,
    the snapshot published) runs while a reader queries again and again through ``reader()`` (what
    ``trace-warehouse sql`` opens: the live file, or the published snapshot while the run writes). Every
    query answers, and every partition of its answer is the state before the refresh or the one after."""
    mirror = tmp_path / "mirror"
    generate_sample(mirror)
    env = {**_env(tmp_path), "TRACE_SOURCE": "mirror", "TRACE_MIRROR_DIR": str(mirror)}
    settings = load_settings(env)
    built = run_cli("run", "--select", BURSTGPT, env=env)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    con = reader(settings)
    try:
        old = _answers(con)
    finally:
        con.close()

    burst_2 = next(f for f in fixed_files() if f.file_name == "BurstGPT_2.csv")
    path = mirror / burst_2.mirror_path
    header, first, *rest = path.read_text().splitlines()
    ts, model, request, response, total, log = first.split(",")  # an existing day changes, a new day comes
    new_day = int(rest[-1].split(",", 1)[0]) // 86400 + 1
    changed = [
        header,
        f"{ts},{model},{int(request) + 5},{response},{int(total) + 5},{log}",
        *rest,
        f"{new_day * 86400},GPT-4,9,2,11,API log",
    ]
    path.write_text("\n".join(changed) + "\n")
    republish(mirror, burst_2.mirror_path)

    refresh = subprocess.Popen(
        [sys.executable, "-m", "pipelines.cli", "run", "--select", BURSTGPT],
        cwd=PROJECT_ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    seen: list[dict[str, dict[str, tuple]]] = []
    from_snapshot = 0
    try:
        while refresh.poll() is None:
            said = io.StringIO()
            with contextlib.redirect_stderr(said):
                con = reader(settings)
            try:
                seen.append(_answers(con))
            finally:
                con.close()
            from_snapshot += "answering from the snapshot" in said.getvalue()
            time.sleep(0.05)
    finally:
        output = refresh.communicate(timeout=600)[0]
    assert refresh.returncode == 0, output[-3000:]
    con = reader(settings)
    try:
        new = _answers(con)
    finally:
        con.close()

    day = f"{new_day:04d}"
    assert day not in old["dbt"] and new["dbt"][day] == (1, 9)
    assert {k: v for k, v in new["raw"].items() if old["raw"].get(k) != v}  # the refresh changed rows
    assert from_snapshot > 0 and len(seen) > from_snapshot, (len(seen), from_snapshot)
    for answer in seen:
        for name, partitions in answer.items():
            for key in {*old[name], *new[name]}:
                assert partitions.get(key) in (old[name].get(key), new[name].get(key)), (name, key)
