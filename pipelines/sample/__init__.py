"""The deterministic sample mirror: every upstream file, synthetic except the real rows we ship.

``generate_sample(out)`` writes, under ``out``, the catalog's mirror paths (GitHub, BurstGPT releases,
HuggingFace), ``MANIFEST.json`` (bytes, sha256, origin, real line ranges) and a ``README.txt`` saying the
data is synthetic. Target numbers live in ``calibration``. The generator (numpy and every file's writer) is
imported on first use of ``generate_sample``, not with the package: every CLI command imports ``SampleError``.
"""

from typing import Any

from pipelines.sample.calibration import DEFAULT_SCALE
from pipelines.sample.params import SampleError

__all__ = ["DEFAULT_SCALE", "SampleError", "generate_sample"]


def __getattr__(name: str) -> Any:
    if name == "generate_sample":
        from pipelines.sample.generator import generate_sample

        return generate_sample
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
