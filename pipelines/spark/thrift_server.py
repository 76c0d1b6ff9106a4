"""``python -m pipelines.spark.thrift_server``: the Spark Thrift server that pyspark ships, on this warehouse.

Session mode (dbt target ``spark``) starts a JVM per dbt process, and its embedded Derby metastore admits one
process at a time. To run several builds at once — parallel Dagster runs — start one Thrift server
(``HiveThriftServer2``, in pyspark's jars) and point the warehouse at it with ``SPARK_THRIFT_HOST`` and
``SPARK_THRIFT_PORT``: dbt then uses target ``spark_thrift`` and every run shares the server's metastore.
The server gets the same warehouse and metastore folders as session mode (``$WAREHOUSE_DIR/spark/``), so a
warehouse built either way is the same warehouse — only one of the two may hold the metastore at a time.
It listens on 127.0.0.1 unless told otherwise. On a cluster, start the cluster's own Thrift server instead
(same settings: see ``server_settings``) and set the two variables.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pipelines.settings import Settings, child_environment, load_settings

THRIFT_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"


def spark_home() -> Path:
    """pyspark's installation: bin/spark-submit and the jars, HiveThriftServer2's among them."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


RUNTIME_DEFAULTS = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.timestampType": "TIMESTAMP_NTZ",
    "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
    "spark.sql.parquet.mergeSchema": "true",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
}


def server_settings(
    settings: Settings, host: str = "127.0.0.1", runtime_defaults: bool = True
) -> dict[str, str]:
    """The server's Spark settings: static ones (warehouse, metastore, addresses), and unless
    ``runtime_defaults`` is false, defaults for the runtime ones that dbt's spark_thrift target also sends
    with every session (for other clients, e.g. beeline)."""
    spark_dir = settings.spark_dir
    static = {
        "spark.master": settings.spark_master,
        "spark.sql.warehouse.dir": str(spark_dir / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={spark_dir / 'metastore_db'};create=true"
        ),
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={spark_dir}",
        "spark.driver.host": host,
        "spark.driver.bindAddress": host,
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.log.level": settings.spark_log_level or "WARN",
        "spark.sql.shuffle.partitions": str(settings.spark_shuffle_partitions),
        "spark.sql.hive.thriftServer.singleSession": "false",
    }
    return {**(RUNTIME_DEFAULTS if runtime_defaults else {}), **static}


def server_command(settings: Settings, host: str, port: int, runtime_defaults: bool = True) -> list[str]:
    command = [
        str(spark_home() / "bin" / "spark-submit"),
        "--class",
        THRIFT_CLASS,
        "--name",
        "trace-warehouse",
    ]
    command += ["--driver-memory", settings.spark_driver_memory]
    for key, value in server_settings(settings, host, runtime_defaults).items():
        command += ["--conf", f"{key}={value}"]
    command += ["spark-internal"]
    command += ["--hiveconf", f"hive.server2.thrift.bind.host={host}"]
    command += ["--hiveconf", f"hive.server2.thrift.port={port}"]
    return command


@dataclass
class ThriftServer:
    """A running server: its process (leader of its own process group), address and log file."""

    process: subprocess.Popen
    host: str
    port: int
    log_path: Path

    @property
    def env(self) -> dict[str, str]:
        """What the warehouse needs to use it (``SPARK_THRIFT_HOST``/``PORT``)."""
        return {"SPARK_THRIFT_HOST": self.host, "SPARK_THRIFT_PORT": str(self.port)}

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def group_alive(self) -> bool:
        """Whether any process of the server's process group is still there."""
        try:
            os.killpg(self.process.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def stop(self, timeout: float = 30) -> None:
        """Stop the server's whole process group (launcher scripts and JVM): SIGTERM, then SIGKILL."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + timeout
            while self.group_alive() and time.monotonic() < deadline:
                self.process.poll()  # reap the leader so that only live members count
                time.sleep(0.2)
            if not self.group_alive():
                break
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=timeout)


def _listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def start_thrift_server(
    settings: Settings,
    host: str = "127.0.0.1",
    port: int | None = None,
    *,
    timeout: float = 180,
    env: Mapping[str, str] | None = None,
    runtime_defaults: bool = True,
) -> ThriftServer:
    """Start the server in its own process group and wait until it accepts connections."""
    port = port or free_port(host)
    settings.spark_dir.mkdir(parents=True, exist_ok=True)
    log_path = settings.spark_dir / f"thrift-server-{port}.log"
    child_env = child_environment(settings, **(env or {}))
    child_env.update(
        SPARK_LOCAL_IP=host, HIVE_SERVER2_THRIFT_BIND_HOST=host, HIVE_SERVER2_THRIFT_PORT=str(port)
    )
    child_env.pop("PYSPARK_SUBMIT_ARGS", None)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            server_command(settings, host, port, runtime_defaults),
            cwd=settings.spark_dir,
            env=child_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    server = ThriftServer(process, host, port, log_path)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the Thrift server exited with {process.returncode}:\n{server.log_tail()}")
        if _listening(host, port):
            return server
        time.sleep(1)
    server.stop()
    raise TimeoutError(
        f"the Thrift server did not listen on {host}:{port} in {timeout:.0f}s:\n{server.log_tail()}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=10000, help="port (default 10000)")
    args = parser.parse_args(argv)
    settings = load_settings()
    server = start_thrift_server(settings, args.host, args.port)
    print(
        f"Spark Thrift server on {server.host}:{server.port} (log {server.log_path}); use it with\n"
        f"  export SPARK_THRIFT_HOST={server.host} SPARK_THRIFT_PORT={server.port} TRACE_ENGINE=spark\n"
        "Ctrl-C stops it.",
        file=sys.stderr,
    )
    try:
        server.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return server.process.returncode or 0


if __name__ == "__main__":
    sys.exit(main())
