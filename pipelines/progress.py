"""What ``trace-warehouse run`` shows while it works: a few live lines on a terminal, one line per asset elsewhere.

Fed plain events (below) from the run's records (``pipelines/defs/run_events.py``); knows nothing of
Dagster. Per layer — landing, raw, checks, dbt, fits, reports — it counts what is done of what was selected, the
rows loaded, the bytes landed and their rate, and shows the step at work, the elapsed time and how many
warnings went to the log file.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TextIO

LAYERS = ("landing", "raw", "checks", "dbt", "fits", "reports")
_LAYER_OF_PREFIX = {
    "landing": "landing",
    "raw": "raw",
    "fits": "fits",
    "report": "reports",
    "docs": "reports",
    "export": "reports",
}


def layer_of(asset: str) -> str:
    """``landing/x`` → landing, ``raw/x`` → raw, ``fits/x`` (the fitted models) → fits, ``report/x``,
    ``docs/dbt`` and ``export/x`` → reports, dbt models → dbt."""
    return _LAYER_OF_PREFIX.get(asset.split("/", 1)[0], "dbt")


# --- events ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StepStarted:
    label: str  # what the step works on: an asset, "dbt build (45 models)", "checks of raw/x"
    layer: str


@dataclass(frozen=True)
class AssetFinished:
    asset: str
    status: str  # ok | FAILED | skipped
    rows: int | None = None
    error: str = ""


@dataclass(frozen=True)
class CheckFinished:
    check: str
    passed: bool


@dataclass(frozen=True)
class BytesLanded:
    file: str
    done: int  # bytes of this file so far


@dataclass(frozen=True)
class Warned:
    message: str


@dataclass(frozen=True)
class StageSkipped:
    """A stage (dbt, fits, reports) the run did not need to rebuild, and why."""

    stage: str
    reason: str


ProgressEvent = StepStarted | AssetFinished | CheckFinished | BytesLanded | Warned | StageSkipped


# --- state ----------------------------------------------------------------------------------------------
@dataclass
class LayerProgress:
    total: int
    done: int = 0
    failed: int = 0
    skipped: int = 0
    rows: int = 0
    started_at: float | None = None


@dataclass
class RunProgress:
    """Counts per layer; ``handle`` takes the events in order. ``totals``: selected assets (checks) per layer."""

    totals: Mapping[str, int]
    started_at: float = field(default_factory=time.monotonic)
    current: str = ""
    warnings: int = 0
    last_warning: str = ""
    landed_bytes: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # stage -> why it was not rebuilt
    last_landed_at: float | None = None
    layers: dict[str, LayerProgress] = field(init=False)

    def __post_init__(self) -> None:
        self.layers = {name: LayerProgress(self.totals.get(name, 0)) for name in LAYERS}

    def handle(self, event: ProgressEvent) -> None:
        if isinstance(event, StepStarted):
            self.current = event.label
            layer = self.layers[event.layer]
            layer.started_at = layer.started_at or time.monotonic()
        elif isinstance(event, AssetFinished):
            layer = self.layers[layer_of(event.asset)]
            layer.done += event.status == "ok"
            layer.failed += event.status not in ("ok", "skipped")
            layer.skipped += event.status == "skipped"
            layer.rows += event.rows or 0
        elif isinstance(event, CheckFinished):
            self.layers["checks"].done += 1
            self.layers["checks"].failed += not event.passed
        elif isinstance(event, BytesLanded):
            self.landed_bytes[event.file] = event.done
            self.last_landed_at = time.monotonic()
        elif isinstance(event, StageSkipped):
            self.skipped.setdefault(event.stage, event.reason)
        elif isinstance(event, Warned):
            self.warnings += 1
            self.last_warning = event.message.splitlines()[0][:120] if event.message else ""

    def elapsed(self) -> float:
        return time.monotonic() - self.started_at

    def landing_rate(self) -> float | None:
        """Bytes per second from the start of the landing layer to the last bytes landed, when any were."""
        started, last = self.layers["landing"].started_at, self.last_landed_at
        total = sum(self.landed_bytes.values())
        if not total or started is None or last is None:
            return None
        return total / max(last - started, 1e-3)


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n:,.1f} GB"  # not reached


def clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes:d}:{secs:02d}"


def layer_detail(progress: RunProgress, name: str) -> str:
    layer = progress.layers[name]
    parts = []
    if layer.rows:
        parts.append(f"{layer.rows:,} rows")
    if name == "landing" and progress.landed_bytes:
        rate = progress.landing_rate()
        landed = human_bytes(sum(progress.landed_bytes.values()))
        parts.append(f"{landed} landed" + (f" ({human_bytes(rate)}/s)" if rate else ""))
    if layer.failed:
        parts.append(f"{layer.failed} {'not passed' if name == 'checks' else 'failed'}")
    if layer.skipped:
        parts.append(f"{layer.skipped} skipped")
    return ", ".join(parts)


# --- displays -------------------------------------------------------------------------------------------
class LineDisplay:
    """Not a terminal (CI, a pipe): one plain line per finished asset, nothing redrawn."""

    def __init__(self, progress: RunProgress, out: TextIO) -> None:
        self.progress = progress
        self.out = out

    def __enter__(self) -> LineDisplay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.out.flush()

    def handle(self, event: ProgressEvent) -> None:
        self.progress.handle(event)
        if isinstance(event, AssetFinished):
            rows = f"  {event.rows:,} rows" if event.rows is not None else ""
            error = f"  {event.error.splitlines()[0]}" if event.error else ""
            line = f"[{clock(self.progress.elapsed()):>6}] {event.status:<7} {event.asset}{rows}{error}"
            print(line, file=self.out, flush=True)
        elif isinstance(event, StageSkipped):
            line = f"[{clock(self.progress.elapsed()):>6}] {event.stage}: skipped — {event.reason}"
            print(line, file=self.out, flush=True)


class LiveDisplay:
    """A terminal: a small table redrawn in place (rich), left on screen when the run ends."""

    def __init__(self, progress: RunProgress, out: TextIO, width: int | None = None) -> None:
        from rich.console import Console
        from rich.live import Live

        self.progress = progress
        self._lock = threading.Lock()
        console = Console(file=out, width=width, force_terminal=True)
        self._live = Live(
            get_renderable=self._render,
            console=console,
            refresh_per_second=4,
            redirect_stdout=False,
            redirect_stderr=False,
        )

    def __enter__(self) -> LiveDisplay:
        self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.progress.current = ""
        self._live.stop()

    def handle(self, event: ProgressEvent) -> None:
        with self._lock:
            self.progress.handle(event)

    def _render(self):  # -> rich.console.Group
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        with self._lock:
            p = self.progress
            table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
            table.add_column(style="bold", no_wrap=True, min_width=len("  landing"))
            table.add_column(justify="right", no_wrap=True)
            table.add_column(no_wrap=True, overflow="ellipsis")
            for name in LAYERS:
                layer = p.layers[name]
                if not layer.total:
                    continue
                mark = "[green]✓[/]" if layer.done + layer.failed + layer.skipped >= layer.total else " "
                table.add_row(f"{mark} {name}", f"{layer.done}/{layer.total}", layer_detail(p, name))
            # The lines below the table are as wide as the screen, never a column of it: a long step or
            # warning must not squeeze the layer names.
            lines = [Text(""), _line(f"{clock(p.elapsed())}  {p.current}".rstrip(), "dim")]
            lines += [_line(f"{stage}: skipped — {why}", "cyan") for stage, why in p.skipped.items()]
            if p.warnings:
                lines.append(_line(f"{p.warnings} warning(s) in the log: {p.last_warning}", "yellow"))
            return Group(table, *lines)


def _line(text: str, style: str):  # -> rich.text.Text
    from rich.text import Text

    return Text(text, style=style, no_wrap=True, overflow="ellipsis")


Display = LineDisplay | LiveDisplay


def make_display(progress: RunProgress, out: TextIO, live: bool, width: int | None = None) -> Display:
    return LiveDisplay(progress, out, width) if live else LineDisplay(progress, out)
