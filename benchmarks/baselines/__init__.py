"""Baselines run in the same benchmark: DuckDB's bare ``read_csv`` (the ceiling) and the pandas notebook
(what users do today). Both are stage functions, measured like the pipeline's stages."""
