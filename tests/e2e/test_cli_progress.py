"""What `trace-warehouse run` prints while it works: a few live lines on a terminal, one line per asset in a
pipe, and Dagster's and dbt's logs in ``logs/run-<time>.log`` — or, with ``--verbose``, as they come."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from tests.e2e.cli import PROJECT_ROOT, run_cli
from tests.e2e.conftest import BuiltSample
from tests.support.terminal import run_in_terminal, screen_lines

ASSET_LINE = re.compile(r"^\[\s*\d+:\d\d\] (ok|FAILED|skipped)\s+(\S+)", re.MULTILINE)
DBT_NODE_LINE = re.compile(r"\d+ of \d+ (START|OK created|PASS) ")  # dbt's per-node lines
LOG_LINE = re.compile(r"^full log \(Dagster and dbt\): (\S+)$", re.MULTILINE)
BURST_LINEAGE = 'tag:"source"="burstgpt"+'  # BurstGPT's landing and raw assets and all downstream of them
SUMMARY_HEADER = re.compile(r"^asset\s+status\s+files\s+rows\s+rejected")


def _log_of(output: str) -> Path:
    match = LOG_LINE.search(output)
    assert match, f"the summary names no log file:\n{output[-2000:]}"
    return Path(match.group(1))


def test_a_pipe_gets_one_line_per_finished_asset(built_sample: BuiltSample) -> None:
    out = built_sample.stdout
    assets = [m.group(2) for m in ASSET_LINE.finditer(out)]
    assert len(assets) == len(set(assets)), "an asset was reported twice"
    materialized = int(re.search(r"^(\d+) asset\(s\) materialized", out, re.MULTILINE).group(1))
    assert len(assets) == materialized
    for key in (
        "landing/burstgpt__requests",
        "raw/acme__seren_jobs",
        "marts/fct_job",
        "docs/dbt",
        "report/report",
    ):
        assert key in assets, key
    assert not DBT_NODE_LINE.search(out), "dbt's log lines belong in the log file"
    assert "\x1b[" not in out, "no terminal control sequences in a pipe"


def test_a_terminal_gets_a_few_live_lines_and_the_log_file_the_rest(built_sample: BuiltSample) -> None:
    """BurstGPT's lineage rebuilt (``--all``) on a terminal: every layer, from landing to the reports."""
    env = {**os.environ, **built_sample.env, "TERM": "xterm-256color", "COLUMNS": "120"}
    code, output = run_in_terminal(
        [sys.executable, "-m", "pipelines.cli", "run", "--all", "--select", BURST_LINEAGE],
        cwd=PROJECT_ROOT,
        env=env,
        columns=120,
        rows=40,
    )
    screen = screen_lines(output)
    assert code == 0, "\n".join(screen[-60:])
    header = next((i for i, line in enumerate(screen) if SUMMARY_HEADER.match(line)), None)
    assert header is not None, "\n".join(screen[-60:])
    assert header < 60, f"{header} lines before the summary:\n" + "\n".join(screen[:header])
    progress = "\n".join(screen[:header])
    for layer in ("landing", "raw", "checks", "dbt", "reports"):
        assert re.search(rf"\b{layer}\s+\d+/\d+", progress), f"no progress of {layer}:\n{progress}"
    assert not DBT_NODE_LINE.search(output), "dbt's log lines belong in the log file"

    log = _log_of("\n".join(screen))
    assert log.parent == built_sample.warehouse / "logs" and log.exists()
    text = log.read_text(encoding="utf-8", errors="replace")
    assert DBT_NODE_LINE.search(text), "the log file has dbt's per-node lines"
    assert "ASSET_MATERIALIZATION" in text and "STEP_SUCCESS" in text, "the log has Dagster's records"


def test_verbose_streams_the_logs_as_they_come(built_sample: BuiltSample) -> None:
    done = run_cli(
        "run", "--verbose", "--all", "--select", 'key:"staging/stg_burstgpt__requests"', env=built_sample.env
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    both = done.stdout + done.stderr
    assert DBT_NODE_LINE.search(both), both[-3000:]
    assert " - dagster - INFO - " in both, "Dagster's records"
    assert not LOG_LINE.search(done.stdout)
