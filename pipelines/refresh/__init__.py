"""Incremental refresh: what changed upstream, and which raw partitions still wait for dbt."""
