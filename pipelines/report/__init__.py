"""The warehouse report: figures from the analysis marts and a one-page ``report.md``.

``queries`` holds the SQL the figures and the page read (and :func:`queries.fetch`, which runs it read-only),
``figures`` and ``notebook_figures`` draw one PNG per figure by the rules of ``plotting``, ``origin`` states
the real/synthetic rows behind a figure, ``page`` writes the markdown, and ``catalog`` ties each figure to its
query, the marts it reads and its drawing function. The Dagster assets live in :mod:`pipelines.defs.reports`.
"""
