"""``trace-warehouse sql``: read-only queries against ``trace.duckdb``, one-shot or interactive."""

from __future__ import annotations

import sys

import duckdb

from pipelines.settings import Settings
from pipelines.warehouse.db import reader

PROMPT, MORE = "trace> ", "  ...> "
HELP = """Statements end with ';'. Try:
  select table_schema, table_name from information_schema.tables order by 1, 2;
  select * from raw.burstgpt__requests limit 5;
  select * from raw.load_rejects;
.quit (or Ctrl-D) leaves."""


def _show(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    rel = con.sql(sql)
    if rel is not None:
        rel.show(max_rows=40, max_width=200)


def run_query(settings: Settings, sql: str) -> int:
    con = reader(settings)
    try:
        _show(con, sql)
    except duckdb.Error as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        con.close()
    return 0


def interactive(settings: Settings) -> int:
    con = reader(settings)
    print(f"{settings.duckdb_path} (read-only). {HELP}")
    buffer: list[str] = []
    try:
        while True:
            try:
                line = input(MORE if buffer else PROMPT)
            except EOFError:
                print()
                return 0
            if not buffer and line.strip() in (".quit", ".exit", "\\q"):
                return 0
            if not buffer and line.strip() in (".help", "help"):
                print(HELP)
                continue
            buffer.append(line)
            if line.rstrip().endswith(";"):
                try:
                    _show(con, "\n".join(buffer))
                except duckdb.Error as exc:
                    print(f"error: {exc}")
                buffer.clear()
    finally:
        con.close()
