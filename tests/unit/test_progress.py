"""The progress display of `trace-warehouse run`, fed plain events (no Dagster)."""

from __future__ import annotations

import io
import re

from pipelines.progress import (
    AssetFinished,
    BytesLanded,
    CheckFinished,
    LineDisplay,
    LiveDisplay,
    RunProgress,
    StepStarted,
    Warned,
    layer_of,
)
from tests.support.terminal import screen_lines

TOTALS = {"landing": 2, "raw": 2, "checks": 3, "dbt": 4, "reports": 1}
EVENTS = [
    StepStarted("landing/a", "landing"),
    BytesLanded("a.csv", 500),
    BytesLanded("a.csv", 1500),
    AssetFinished("landing/a", "ok"),
    AssetFinished("landing/b", "FAILED", None, "no upstream file found\nmore"),
    AssetFinished("raw/a", "ok", 1200),
    AssetFinished("raw/b", "skipped"),
    CheckFinished("raw/a:rule_one", True),
    CheckFinished("raw/a:rule_two", False),
    Warned("report: figures not rendered yet [x]"),
    AssetFinished("marts/fct_job", "ok", 7),
]


def test_layers() -> None:
    keys = (
        "landing/x",
        "raw/x",
        "staging/stg",
        "marts/f",
        "analysis/m",
        "fits/arrival_fits",
        "report/r",
        "docs/dbt",
    )
    assert [layer_of(k) for k in keys] == [
        "landing", "raw", "dbt", "dbt", "dbt", "fits", "reports", "reports",
    ]  # fmt: skip


def test_counts_per_layer() -> None:
    p = RunProgress(TOTALS)
    for e in EVENTS:
        p.handle(e)
    assert (p.layers["landing"].done, p.layers["landing"].failed) == (1, 1)
    raw = p.layers["raw"]
    assert (raw.done, raw.failed, raw.skipped, raw.rows) == (1, 0, 1, 1200)
    assert (p.layers["checks"].done, p.layers["checks"].failed) == (2, 1)
    assert p.layers["dbt"].done == 1 and p.landed_bytes == {"a.csv": 1500}
    assert p.warnings == 1 and p.current == "landing/a"


def test_a_pipe_gets_one_line_per_finished_asset() -> None:
    out = io.StringIO()
    with LineDisplay(RunProgress(TOTALS), out) as display:
        for e in EVENTS:
            display.handle(e)
    lines = out.getvalue().splitlines()
    assert len(lines) == 5  # assets only: no line for bytes, checks or warnings
    assert lines[0].startswith("[  0:00] ok      landing/a")
    assert "FAILED  landing/b  no upstream file found" in lines[1]
    assert lines[2].endswith("raw/a  1,200 rows")


def test_a_terminal_gets_a_few_lines_redrawn_in_place() -> None:
    out = io.StringIO()
    with LiveDisplay(RunProgress(TOTALS), out, width=100) as display:
        for e in EVENTS:
            display.handle(e)
            display._live.refresh()
    screen = screen_lines(out.getvalue())
    assert len(screen) <= 10, screen
    text = "\n".join(screen)
    assert "landing  1/2" in text and "1 failed" in text and "1.5 KB landed" in text
    assert "raw      1/2" in text and "1,200 rows" in text
    assert "checks   2/3" in text and "1 not passed" in text
    assert "dbt      1/4" in text and "reports  0/1" in text
    assert "1 warning(s) in the log: report: figures not rendered yet [x]" in text


def test_a_long_warning_or_step_never_squeezes_the_layer_names() -> None:
    out = io.StringIO()
    with LiveDisplay(RunProgress(TOTALS), out, width=60) as display:
        display.handle(StepStarted("dbt build (" + "x" * 200 + ")", "dbt"))
        display.handle(Warned("Logging an `AssetObservation` instead of " + "y" * 200))
        display._live.refresh()
    screen = screen_lines(out.getvalue())
    assert all(len(line) <= 60 for line in screen), screen
    text = "\n".join(screen)
    for name in ("landing", "raw", "checks", "dbt", "reports"):
        assert re.search(rf"\b{name}\s+\d+/\d+", text), text
    assert "1 warning(s) in the log: Logging an" in text
