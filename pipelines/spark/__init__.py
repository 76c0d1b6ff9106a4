"""Spark as a second dbt target: the Spark warehouse's tables seen from DuckDB, the local Thrift
server, and the side-by-side engine benchmark. The dbt side is in dbt_project/ (profiles.yml targets
``spark`` and ``spark_thrift``; engine-specific SQL in dbt_project/macros/platform/)."""
