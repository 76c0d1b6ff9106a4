"""Models fitted to the marts: BurstGPT's arrival process and token lengths (``analysis.arrival_fits``,
``analysis.token_length_fits``, ``analysis.request_rate_scaling``). Plain numpy/scipy and DuckDB; the
Dagster asset that builds them is ``pipelines/defs/fits.py``."""
