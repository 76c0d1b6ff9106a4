"""A Spark Thrift server (pyspark's HiveThriftServer2) for a test: 127.0.0.1, a free port, its own process
group, stopped — the whole group — when the test is done."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pipelines.settings import Settings
from pipelines.spark.thrift_server import ThriftServer, start_thrift_server


@contextmanager
def thrift_server(settings: Settings, timeout: float = 240) -> Iterator[ThriftServer]:
    """Without the server-side defaults of the runtime settings: what the dbt profile sends must suffice,
    as on a cluster's own Thrift server."""
    server = start_thrift_server(settings, "127.0.0.1", timeout=timeout, runtime_defaults=False)
    try:
        yield server
    finally:
        server.stop()
