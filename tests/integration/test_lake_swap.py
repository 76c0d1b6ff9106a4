"""Two files of a family publish into the lake at once (a family loads files side by side): each swap creates
the partition folders it moves into and removes those it leaves empty, so without one swap at a time a
removal took a folder the other swap was moving into. Real folders; many rounds to meet the interleaving."""

from __future__ import annotations

import threading
from pathlib import Path

from pipelines.lake.relation import PARTITION_DIR_PREFIX
from pipelines.lake.state import SwapResult, partition_dir, publish
from pipelines.settings import Settings, load_settings

FAMILY = "acme__gpu_metrics"
KEYS = [f"{day:04d}" for day in range(40)]
ROUNDS = 25


def _stage(root: Path, stem: str) -> Path:
    """A staging folder with one file of ``stem`` in every partition of ``KEYS``."""
    staging = root / f".staging-{stem}"
    for key in KEYS:
        folder = staging / f"{PARTITION_DIR_PREFIX}{key}"
        folder.mkdir(parents=True)
        (folder / "data_0.parquet").write_bytes(stem.encode())
    return staging


def _publish_at_once(settings: Settings, stagings: dict[str, Path]) -> dict[str, SwapResult | BaseException]:
    """Each staged file's ``publish`` on its own thread, started together; each one's result or exception."""
    start = threading.Barrier(len(stagings))
    results: dict[str, SwapResult | BaseException] = {}

    def swap(stem: str) -> None:
        start.wait()
        try:
            results[stem] = publish(settings, FAMILY, stem, stagings[stem], dict.fromkeys(KEYS, stem), {})
        except BaseException as exc:
            results[stem] = exc

    threads = [threading.Thread(target=swap, args=(stem,)) for stem in stagings]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_two_files_publish_into_the_same_new_partitions_at_once(tmp_path: Path) -> None:
    stems = ("gpu-a", "gpu-b")
    for round_number in range(ROUNDS):
        settings = load_settings({"WAREHOUSE_DIR": str(tmp_path / f"wh-{round_number}")})
        stagings = {stem: _stage(settings.lake_dir, stem) for stem in stems}
        results = _publish_at_once(settings, stagings)
        failed = {stem: repr(r) for stem, r in results.items() if isinstance(r, BaseException)}
        assert not failed, f"round {round_number}: {failed}"
        assert all(isinstance(r, SwapResult) and r.written == KEYS for r in results.values())
        for key in KEYS:
            held = {p.name: p.read_bytes() for p in partition_dir(settings, FAMILY, key).iterdir()}
            assert held == {f"{stem}.parquet": stem.encode() for stem in stems}, (round_number, key)
        assert not any(staging.exists() for staging in stagings.values())
