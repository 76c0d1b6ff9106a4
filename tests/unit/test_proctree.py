"""The benchmark's memory measure reports the stage's own peak, not the benchmark process's."""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path

from benchmarks.proctree import measure

MB = 1 << 20


def _run(code: str, tmp_path: Path, env: dict[str, str] | None = None) -> tuple[int, int]:
    run = measure(
        [sys.executable, "-c", code],
        env=env or dict(os.environ),
        cwd=tmp_path,
        log_path=tmp_path / "log",
        timeout_s=60,
    )
    assert run.returncode == 0, (tmp_path / "log").read_text()
    return run.peak_rss, run.max_process_rss


def test_a_small_stage_started_from_a_large_process_is_measured_small(tmp_path: Path) -> None:
    """Linux counts the image a child was forked from in its ru_maxrss: after the measuring process held
    800 MB, a stage of a few MB must not report 800 MB."""
    held = bytearray(800 * MB)
    held[::4096] = b"\x01" * len(held[::4096])  # every page touched: resident
    peak, exact = _run("import time; time.sleep(0.3)", tmp_path)
    assert peak < 200 * MB
    assert exact == 0 or exact < 200 * MB
    del held


def test_a_spawn_that_allocates_at_the_measuring_processs_peak_is_measured_small(tmp_path: Path) -> None:
    """The spawn itself allocates (here 1.5 MB of environment encoded for exec): with the measuring process at
    its peak, the child's inherited image is then a little above the peak read before the spawn, and must
    still not count as the stage's."""
    held = bytearray(800 * MB)
    held[::4096] = b"\x01" * len(held[::4096])
    env = dict(os.environ) | {f"PAD{k}": "x" * 100_000 for k in range(15)}
    for _ in range(5):
        peak, exact = _run("pass", tmp_path, env)
        assert peak < 200 * MB
        assert exact == 0 or exact < 200 * MB
    del held


def test_a_stage_that_outgrows_the_measuring_process_is_measured_exactly(tmp_path: Path) -> None:
    size = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 + 300 * MB  # beyond this process's peak
    code = f"b = bytearray({size}); b[::4096] = b'\\x01' * len(b[::4096]); import time; time.sleep(0.3)"
    peak, exact = _run(code, tmp_path)
    assert exact >= size
    assert peak >= exact
