"""Stage functions, one module per stage; ``benchmarks.stage`` runs them in their own process.

Each takes a :class:`~benchmarks.stage_protocol.StageContext`, imports what it needs, calls ``ready()``,
does the work, calls ``done()``, and returns the rows and bytes it processed. Settings come from the
environment the harness gives the process (``WAREHOUSE_DIR`` etc.), as for the CLI and Dagster.
"""
