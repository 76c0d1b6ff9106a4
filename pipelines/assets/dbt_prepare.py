"""``python -m pipelines.assets.dbt_prepare [--engine duckdb|spark]``: parse the dbt project into its manifest.

The Dagster definitions read ``dbt_project/target/<engine>/manifest.json``; this writes it with ``dbt parse``
(no database is opened, no Spark session started). The Makefile's install step runs it for each engine; run
it again after changing dbt files. ``--engine spark`` parses with target ``spark`` (``spark_thrift`` when
``SPARK_THRIFT_HOST`` is set: same adapter, same manifest) and needs the ``spark`` extra installed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pipelines.assets.dbt import dbt_environment, dbt_project, dbt_resource, target_dir
from pipelines.settings import ENGINES, load_settings


def prepare(engine: str | None = None) -> Path:
    """Run ``dbt parse`` for ``engine`` (default ``TRACE_ENGINE``); return the manifest's path."""
    settings = load_settings()
    engine = engine or settings.engine
    project = dbt_project(engine)
    with dbt_environment(settings):
        invocation = dbt_resource(engine).cli(["parse", "--quiet"], target_path=target_dir(project))
    invocation.wait()
    return project.manifest_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=ENGINES, help="dbt target (default: $TRACE_ENGINE or duckdb)")
    args = parser.parse_args(argv)
    path = prepare(args.engine)
    print(f"dbt manifest: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
