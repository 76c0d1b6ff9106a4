"""Sample mode's source, and the source of each ``TRACE_SOURCE`` mode.

``sample`` is the ``mirror`` mode over the generated mirror (``settings.mirror_dir``), which
:class:`SampleSource` generates on first use (:func:`pipelines.sample.generate_sample`). The mode table is
here, beside the generator it needs, because ``pipelines/sources/`` sits below the sample: the landing run
and the change detection there take the source they are given (``trace_source(settings)``).
"""

from __future__ import annotations

from pipelines.settings import Settings
from pipelines.sources import mirror_manifest as mm
from pipelines.sources.trace_source import MirrorSource, Progress, RemoteSource, TraceSource


class SampleSource(MirrorSource):
    def prepare(self, progress: Progress | None = None) -> None:
        """Generate the sample mirror unless its ``MANIFEST.json`` exists."""
        if (self.root / mm.MANIFEST_NAME).is_file():
            return
        from pipelines.sample import generate_sample  # numpy and every writer, on first use only

        if progress is not None:
            progress(f"generating the sample mirror in {self.root}")
        generate_sample(self.root, progress=progress)


SOURCES: dict[str, type[TraceSource]] = {
    "mirror": MirrorSource,
    "sample": SampleSource,
    "remote": RemoteSource,
}


def trace_source(settings: Settings) -> TraceSource:
    """The source ``settings.source`` names."""
    return SOURCES[settings.source](settings)
