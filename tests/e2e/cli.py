"""Running the real `trace-warehouse` command in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, env: dict[str, str], timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args],
        cwd=PROJECT_ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def query(warehouse_dir: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(warehouse_dir / "trace.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()
