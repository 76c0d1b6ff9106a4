"""The ``README.txt`` at the root of a generated mirror: it says loudly that the data is synthetic."""

from __future__ import annotations

from collections.abc import Mapping

from pipelines.sample.params import SampleParams
from pipelines.sources.mirror_manifest import MirrorEntry

README_NAME = "README.txt"


def readme_text(params: SampleParams, files: Mapping[str, MirrorEntry]) -> str:
    real = []
    for path, entry in sorted(files.items()):
        if entry.origin == "real":
            real.append(f"  {path}: the whole file")
        elif entry.origin == "mixed":
            spans = ", ".join(f"lines {a}-{b}" for a, b in entry.real_lines)
            real.append(f"  {path}: {spans} (line 1 is the header)")
    return "\n".join(
        [
            "*** SYNTHETIC DATA — THIS IS NOT THE REAL ACMETRACE OR BURSTGPT TRACES ***",
            "",
            "Every row in this folder was generated at random by pipelines.sample "
            f"(seed={params.seed}, scale={params.scale}, util_nodes={params.util_nodes}, "
            f"util_days={params.util_days}, gpu_util_days={params.gpu_util_window_days}), "
            "EXCEPT these real upstream lines (CC-BY-4.0, see "
            "pipelines/sample/real/README.md for attribution):",
            *real,
            "",
            "Layouts follow the upstream files where they are documented; files marked unverified_layout",
            "in MANIFEST.json have assumed headers. Numbers only roughly follow published statistics.",
            "Never report a number computed from this folder as a fact about the real clusters or service.",
            "MANIFEST.json lists every file with its bytes, sha256, origin (real | synthetic | mixed) and",
            "real line ranges.",
            "",
        ]
    )
