"""What ``trace.duckdb`` shows after a Spark build: a view over each table Spark wrote, and the engine.

:func:`publish_spark_build` is the Spark half of :func:`pipelines.warehouse.dbt_build.after_build`;
``python -m pipelines.warehouse.spark_views`` runs it after a bare ``dbt build --target spark``. Where the
Spark tables are and how DuckDB reads them is :mod:`pipelines.spark.tables`'.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import duckdb

from pipelines.settings import Settings, load_settings
from pipelines.spark.tables import publish_duckdb_views, spark_warehouse_dir
from pipelines.warehouse.db import writer
from pipelines.warehouse.views import record_engine


def publish_spark_build(
    con: duckdb.DuckDBPyConnection, settings: Settings, manifest: Mapping | None = None
) -> list[str]:
    """Replace each Spark table's relation in ``con`` (the writer's) by a view over its Parquet (empty
    partitioned tables typed from ``manifest``'s contracts) and record ``spark`` in ``meta.dbt_engine``;
    returns the views' names."""
    published = publish_duckdb_views(con, settings, manifest)
    record_engine(con, "spark", spark_warehouse_dir(settings))
    return published


def main() -> int:
    """``python -m pipelines.warehouse.spark_views``: publish the views after a bare ``dbt build --target
    spark``."""
    settings = load_settings()
    with writer(settings) as con:
        names = publish_spark_build(con, settings)
    print(
        f"{settings.duckdb_path}: {len(names)} view(s) over {spark_warehouse_dir(settings)}", file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
