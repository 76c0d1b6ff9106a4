"""The derived columns the rules bound, evaluated by DuckDB on hand-made rows."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable

import duckdb
import pytest

from expectations.acme.ipmi_power import server_type_sql
from expectations.acme.jobs import DURATION_RULE_SQL, utc_offsets_sql
from expectations.acme.utilization import SECONDS_OFF_GRID_SQL, SERIES_KIND_SQL
from expectations.burstgpt.common import SESSION_ID_PROBLEM_SQL


def _eval(expr: str, rows: str, columns: str) -> list:
    return [r[0] for r in duckdb.sql(f"select {expr} from (values {rows}) t({columns})").fetchall()]


def test_duration_rule_classification() -> None:
    ts = "timestamp '2023-05-17 11:00:{:02d}'"
    rows = ", ".join(
        f"({duration}, {ts.format(s)}, {ts.format(st)}, {ts.format(e)})"
        for duration, s, st, e in [
            (8, 0, 10, 18),  # end − start = 8, end − submit = 18
            (18, 0, 10, 18),
            (8.5, 0, 10, 18),  # within 1 s of end − start
            (30, 0, 10, 18),
            (5, 5, 5, 10),  # submit = start: both rules hold
        ]
    )
    got = _eval(
        DURATION_RULE_SQL, rows + ", (null, null, null, null)", "duration, submit_time, start_time, end_time"
    )
    assert got == ["end_minus_start", "end_minus_submit", "end_minus_start", "neither", "both", None]


def test_utc_offsets_distinct_sorted() -> None:
    expr = utc_offsets_sql(["a", "b"])
    got = _eval(
        expr, "('+08:00', '+08:00'), ('+08:00', null), ('+08:00', '+00:00')", "a_utc_offset, b_utc_offset"
    )
    assert got == ["+08:00", "+08:00", "+00:00,+08:00"]


@pytest.mark.parametrize(
    ("cluster", "series", "kind"),
    [
        ("seren", "10.140.1.10", "ip"),
        ("seren", "10.140.1.10-7", "ip_index"),
        ("seren", "10.140.1.10-8", "unknown"),  # GPU index 0-7
        ("seren", "10.140.0.131.1", "ip_dot1"),
        ("kalos", "lingjun-pod9-0016-3", "pod"),
        ("kalos", "lingjun-pod9-0016", "pod"),
        ("seren", "lingjun-pod9-0016-3", "unknown"),  # pod names are Kalos only
        ("seren", "Time", "unknown"),
        ("seren", "10.140.1", "unknown"),
    ],
)
def test_series_kind(cluster: str, series: str, kind: str) -> None:
    assert _eval(SERIES_KIND_SQL, f"('{cluster}', '{series}')", "cluster, series") == [kind]


@pytest.mark.parametrize(
    ("time", "off"),
    [
        ("2023-07-19 00:00:00", 0.0),
        ("2023-07-19 00:00:15", 0.0),
        ("2023-07-19 00:00:07", 7.0),
        ("2023-07-19 00:00:29.5", 14.5),
        ("1969-12-31 23:59:53", 8.0),  # 7 s before a grid point: 8 s past the one before it
        ("1969-12-31 23:59:45", 0.0),
    ],
)
def test_seconds_off_grid(time: str, off: float) -> None:
    assert _eval(SECONDS_OFF_GRID_SQL, f"(timestamp '{time}')", "time") == [off]


def test_server_type() -> None:
    rows = (
        "('x/ipmi/GPU_AB_Power.csv', 50.0), ('x/ipmi/GPU_AB_Power.csv', null), ('x/ipmi/GPU_C_Power.csv', null), "
        "('x/ipmi/CPU_D_Power.csv', 1.0), ('x/ipmi/OTHER_Power.csv', 1.0)"
    )
    with_memory = server_type_sql(frozenset({"memory_power"}))
    assert _eval(with_memory, rows, "_source_file, memory_power") == ["A", "B", "C", "D", None]
    without = server_type_sql(frozenset())
    assert _eval(without, rows, "_source_file, memory_power") == [None, None, "C", "D", None]


def test_session_id_problem() -> None:
    uuid = "3f2b6a9e-1c4d-4e1a-9a51-1b2c3d4e5f60"
    f3 = "'g/v2.0/BurstGPT_3.csv'"
    rows = ", ".join(
        [
            f"({f3}, 'Conversation log', '{uuid}')",
            f"({f3}, 'API log', null)",
            f"({f3}, 'Conversation log', null)",
            f"({f3}, 'API log', '{uuid}')",
            "('g/v2.0/BurstGPT_without_fails_3.csv', 'Conversation log', 'x')",
            "('g/v1.1/BurstGPT_1.csv', 'Conversation log', null)",  # files 1-2 have no Session ID column
        ]
    )
    got = _eval(SESSION_ID_PROBLEM_SQL, rows, "_source_file, log_type, session_id")
    assert got == [
        None,
        None,
        "conversation row without a UUID",
        "API-log row with a session id",
        "conversation row without a UUID",
        None,
    ]


def test_lookups_equal_the_per_row_expressions() -> None:
    """``series_kind`` (once per distinct name) and ``time_copy`` (only on lines whose Time repeats) joined
    back as lookups give every row the value the per-row expression and window give it, nulls included."""
    from expectations.acme.utilization import SERIES_KIND, TIME_COPY
    from pipelines.validate.frames import with_derived

    rows = """(select * from (values
        ('f1', 2, 't1', 'kalos', '10.140.0.1-0'), ('f1', 2, 't1', 'kalos', 'lingjun-pod9-0016-3'),
        ('f1', 3, 't2', 'kalos', '10.140.0.1-0'), ('f1', 4, 't2', 'kalos', '10.140.0.1-0'),
        ('f1', 4, 't2', 'kalos', 'bad name'), ('f1', 5, 't2', 'kalos', '10.140.0.1-0'),
        ('f2', 2, 't2', 'seren', '10.140.0.1-0'), ('f2', 3, 't3', 'seren', null),
        ('f2', 4, 't3', 'seren', null), ('f2', 5, 't4', null, '10.140.0.131.1')
    ) as t(_source_file, _row_number, time, cluster, series))"""
    columns = ["_source_file", "_row_number", "series"]
    looked = duckdb.sql(
        with_derived(columns, rows, {"series_kind": SERIES_KIND, "time_copy": TIME_COPY})
    ).fetchall()
    per_row = duckdb.sql(
        f"select _source_file, _row_number, series, {SERIES_KIND_SQL} as series_kind, row_number() over "
        f"(partition by _source_file, series, time order by _row_number) as time_copy from {rows}"
    ).fetchall()
    key = lambda r: (r[0], r[1], str(r[2]))  # noqa: E731
    assert sorted(looked, key=key) == sorted(per_row, key=key)
    assert max(r[4] for r in looked) == 3  # the third line of f1 at t2


def test_time_copies_found_among_the_counted_lines_are_those_found_among_every_cell() -> None:
    """``time_copy`` reads which lines repeat a Time from the lines the load counted when there are (one row
    a line): the same rows and copy numbers as from every cell."""
    from expectations.acme.utilization import TIME_COPY

    rows = """(select * from (values
        ('f1', 2, 't1', '10.140.0.1-0'), ('f1', 2, 't1', '10.140.0.1-1'), ('f1', 3, 't2', '10.140.0.1-0'),
        ('f1', 4, 't2', '10.140.0.1-0'), ('f1', 5, 't2', '10.140.0.1-1'), ('f1', 6, 't2', '10.140.0.1-0'),
        ('f2', 2, 't2', '10.140.0.1-0'), ('f2', 3, 't3', '10.140.0.1-0')
    ) as t(_source_file, _row_number, time, series))"""
    lines = f"(select _source_file, _row_number, any_value(time) as time, count(*) as cells from {rows} group by all)"
    via_cells = sorted(duckdb.sql(TIME_COPY.select(rows, None)).fetchall())
    via_lines = sorted(duckdb.sql(TIME_COPY.select(rows, lines)).fetchall())
    assert via_lines == via_cells
    assert [r[-1] for r in via_lines if r[3] == "10.140.0.1-0"] == [1, 2, 3]  # f1 lines 3, 4, 6 at t2


def _session_tables(
    con: duckdb.DuckDBPyConnection,
) -> tuple[Callable[[str, str], str], Callable[[str], list[dict]]]:
    """A validation session's ``keep`` (store a lookup as a table, return its SELECT) and ``read`` on ``con``."""

    def keep(name: str, sql: str) -> str:
        con.execute(f"create or replace table {name} as {sql}")
        return f"select * from {name}"

    def read(sql: str) -> list[dict]:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    return keep, read


@pytest.mark.parametrize("limit", [64, 2, 0])
def test_a_complete_lookup_inlined_as_a_case_equals_its_join(
    monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    """With the session's tables (``keep``, ``read``), ``series_kind`` — every name of the frame has its row —
    becomes a CASE over the names outside the most common kind, with the same value on every row, nulls
    included; over ``INLINE_KEYS`` such names it stays a join. ``time_copy`` (only repeated lines) stays a join."""
    from expectations.acme.utilization import SERIES_KIND, TIME_COPY
    from pipelines.validate import frames

    monkeypatch.setattr(frames, "INLINE_KEYS", limit)
    con = duckdb.connect()
    rows = """(select * from (values
        ('f1', 2, 't1', 'kalos', '10.140.0.1-0'), ('f1', 2, 't1', 'kalos', 'lingjun-pod9-0016-3'),
        ('f1', 3, 't2', 'kalos', '10.140.0.2-1'), ('f1', 4, 't2', 'kalos', '10.140.0.1-0'),
        ('f1', 4, 't2', 'kalos', 'bad name'), ('f1', 5, 't2', 'seren', '10.140.0.3-2'),
        ('f2', 3, 't3', 'seren', null), ('f2', 5, 't4', null, '10.140.0.131.1')
    ) as t(_source_file, _row_number, time, cluster, series))"""

    keep, read = _session_tables(con)

    columns = ["_source_file", "_row_number", "series"]
    derived = {"series_kind": SERIES_KIND, "time_copy": TIME_COPY}
    sql = frames.with_derived(columns, rows, derived, keep, "lookup", read)
    per_row = con.execute(
        f"select _source_file, _row_number, series, {SERIES_KIND_SQL} as series_kind, row_number() over "
        f"(partition by _source_file, series, time order by _row_number) as time_copy from {rows}"
    ).fetchall()
    key = lambda r: (r[0], r[1], str(r[2]))  # noqa: E731
    assert sorted(con.execute(sql).fetchall(), key=key) == sorted(per_row, key=key)
    assert sql.count(" left join ") == (1 if limit >= 4 else 2)  # 4 names are not `ip_index`
    assert ("case when" in sql) == (limit >= 4)


@pytest.mark.parametrize("counted", [False, True])
@pytest.mark.parametrize("mixed", [False, True])
def test_a_lookup_of_one_value_per_file_inlined_as_a_case_on_the_file_equals_its_join(
    monkeypatch: pytest.MonkeyPatch, mixed: bool, counted: bool
) -> None:
    """With the file column, ``series_kind`` — too many names outside the most common kind for a CASE over
    names — becomes a CASE on each row's Parquet file when every file's names share one kind, with the same
    value on every row; a file of two kinds keeps the join. Each file's names are read from the series the
    load counted when there are, with the same result."""
    from expectations.acme.utilization import SERIES_KIND
    from pipelines.validate import frames

    monkeypatch.setattr(frames, "INLINE_KEYS", 0)  # as with thousands of pod names
    con = duckdb.connect()
    odd = "'10.140.0.9-1'" if not mixed else "'lingjun-pod9-0016-4'"
    rows = f"""(select * from (values
        ('a.parquet', 2, 'kalos', 'lingjun-pod9-0016-3'), ('a.parquet', 3, 'kalos', 'lingjun-pod9-0017-0'),
        ('b.parquet', 2, 'seren', '10.140.0.1-0'), ('b.parquet', 3, 'seren', '10.140.0.2-1'),
        ('c.parquet', 2, 'kalos', '10.140.0.3-2'), ('c.parquet', 2, 'kalos', {odd}),
        ('d.parquet', 2, 'seren', '10.140.0.131.1')
    ) as t(_lake_file, _row_number, cluster, series))"""

    keep, read = _session_tables(con)
    stored: dict[str, str] = {}

    def keeping(name: str, sql: str) -> str:
        stored[name] = sql
        return keep(name, sql)

    series = (
        f"(select _lake_file, cluster, series, count(*) as cells from {rows} group by all)"
        if counted
        else None
    )
    columns = ["_lake_file", "_row_number", "series"]
    derived = {"series_kind": SERIES_KIND}
    sql = frames.with_derived(columns, rows, derived, keeping, "lookup", read, "_lake_file", series)
    assert ("_counted" in stored["lookup_series_kind_files"]) == counted
    per_row = con.execute(f"select _lake_file, _row_number, series, {SERIES_KIND_SQL} from {rows}").fetchall()
    assert sorted(con.execute(sql).fetchall()) == sorted(per_row)
    assert (" left join " in sql) == mixed
    assert ('case _rows."_lake_file" when' in sql) == (not mixed)
    assert "when 'a.parquet' then" in sql or mixed  # a: pods, d: ip_dot1, b and c: the common ip_index


def test_a_range_rule_reads_only_the_rows_of_its_metrics_outside_the_range() -> None:
    """``percent`` is a sparse lookup: its rows are those of a percentage metric outside 0-100, whole, the
    value as the lookup's; a row of another metric, within range, or without a value is none of them."""
    from expectations.acme.gpu_metrics import PERCENT_METRICS
    from expectations.acme.utilization import percentage_rule

    (rule,) = [percentage_rule(PERCENT_METRICS)]
    lookup = rule.derived["percent"]
    assert rule.sparse_lookup == ("percent", lookup)
    rows = """(select * from (values
        ('a.parquet', 2, 'GPU_UTIL', 'x-0', 50.0), ('a.parquet', 3, 'GPU_UTIL', 'x-0', 101.0),
        ('a.parquet', 4, 'GPU_UTIL', 'x-0', -0.5), ('a.parquet', 5, 'GPU_UTIL', 'x-0', null),
        ('a.parquet', 6, 'GPU_UTIL', 'x-0', 100.0), ('b.parquet', 2, 'POWER_USAGE', 'x-0', 300.0),
        ('c.parquet', 2, 'SM_ACTIVE', 'x-0', 0.0)
    ) as t(_lake_file, _row_number, metric, series, value))"""
    got = duckdb.sql(f"select _row_number, _lookup_value from ({lookup.select(rows, None)}) order by 1")
    assert got.fetchall() == [(3, 101.0), (4, -0.5)]


@pytest.mark.parametrize("broken", [0, 1, 2])
def test_a_screened_frame_keeps_the_rows_outside_a_range_and_counts_all(broken: int) -> None:
    """A screened frame (FB_USED beside FB_FREE) keeps only the pairs off the frame buffer's total, and a
    pair without a value, yet GX counts every pair: its rows are registered as a relation of that many."""
    from expectations.acme.gpu_metrics import FB_PAIR, FB_TOTAL_MIB, SUITE
    from pipelines.validate.frames import custom_frame_sql

    con = duckdb.connect()
    keep, read = _session_tables(con)
    pairs = [(FB_TOTAL_MIB - 100, 100)] * (5 - broken) + [(1000, 70000), ("null", 5)][:broken]
    values = ", ".join(f"(1, {i + 2}, 'g', {u}::double, {f}::double)" for i, (u, f) in enumerate(pairs))
    select = f"select * from (values {values}) as t(file, _row_number, series, fb_used_mib, fb_free_mib)"
    frame = dataclasses.replace(FB_PAIR, select=lambda _src: select, named=None)

    class Session:
        def keep(self, name: str, sql: str, *, in_memory: bool = False) -> str:
            return keep(name, sql)

        def rows(self, sql: str) -> list[dict]:
            return read(sql)

        def columns(self, relation: str) -> dict[str, str]:
            return {r["column_name"]: r["column_type"] for r in read(f"describe select * from {relation}")}

    src = types.SimpleNamespace(session=Session())
    sql, rows_of = custom_frame_sql(frame, SUITE.rules_on("fb_pair"), src)
    assert read(f"select count(*) as n from {rows_of}") == [{"n": 5}]
    kept = read(f"select _row_number, fb_total_delta_mib from ({sql}) order by 1")
    assert (
        kept
        == [
            {"_row_number": 7 - broken, "fb_total_delta_mib": 10920.0},
            {"_row_number": 8 - broken, "fb_total_delta_mib": None},
        ][:broken]
    )


def test_first_copies_equal_the_window_over_every_row() -> None:
    """``fb_pair``'s first copies (the window only on lines whose Time repeats, across files) are the rows the
    window over every row keeps."""
    from expectations.acme.gpu_metrics import first_copies

    rows = """(select * from (values
        ('a', 2, 'kalos', 'FB_USED', 't1', 'g0', 1.0), ('a', 2, 'kalos', 'FB_USED', 't1', 'g1', 2.0),
        ('a', 3, 'kalos', 'FB_USED', 't1', 'g0', 3.0), ('b', 2, 'kalos', 'FB_USED', 't1', 'g1', 4.0),
        ('b', 3, 'kalos', 'FB_USED', 't2', 'g0', 5.0), ('a', 4, 'seren', 'FB_USED', 't1', 'g0', 6.0),
        ('a', 5, 'kalos', 'FB_FREE', 't1', 'g0', 7.0), ('a', 6, 'kalos', 'FB_USED', 't3', 'g2', 8.0)
    ) as t(_source_file, _row_number, cluster, metric, time, series, value))"""
    columns = "_source_file, _row_number, cluster, series, time, value"
    window = (
        f"select {columns} from {rows} where metric = 'FB_USED' qualify row_number() over "
        "(partition by cluster, series, time order by _source_file, _row_number) = 1"
    )
    lines = (
        "(select _source_file, _row_number, any_value(cluster) as cluster, any_value(metric) as metric, "
        f"any_value(time) as time, count(*) as cells from {rows} group by all)"
    )
    for counted in (None, lines):  # the repeated lines found among every cell, or among the counted lines
        got = sorted(duckdb.sql(first_copies(rows, counted, "FB_USED", columns)).fetchall())
        assert got == sorted(duckdb.sql(window).fetchall())
        assert sorted(float(r[5]) for r in got) == [1.0, 2.0, 5.0, 6.0, 8.0]  # 3.0 and 4.0 repeat t1


def test_fb_pair_names_each_row_by_its_own_file() -> None:
    """``fb_pair`` carries a file's position through its join and names it after: every pair still names the
    file and line of its FB_USED sample, with two FB_USED files in the partition, the same series name in both
    clusters pairs within its cluster only, and unpaired samples are left out."""
    from types import SimpleNamespace

    from expectations.acme.gpu_metrics import FB_PAIR, fb_pair_sql

    t = "timestamp '2023-07-19 00:00:{:02d}'"
    rows = f"""(select * from (values
        ('used-b', 2, 'kalos', 'FB_USED', {t.format(0)}, 'g0', 1.0),
        ('used-a', 2, 'kalos', 'FB_USED', {t.format(15)}, 'g0', 2.0),
        ('used-a', 3, 'kalos', 'FB_USED', {t.format(30)}, 'g1', 3.0),
        ('used-b', 3, 'seren', 'FB_USED', {t.format(0)}, 'g0', 4.0),
        ('free', 2, 'kalos', 'FB_FREE', {t.format(0)}, 'g0', 10.0),
        ('free', 3, 'kalos', 'FB_FREE', {t.format(15)}, 'g0', 20.0),
        ('free', 4, 'seren', 'FB_FREE', {t.format(0)}, 'g0', 40.0)
    ) as t(_source_file, _row_number, cluster, metric, time, series, value))"""
    src = SimpleNamespace(rows=rows, lines=None, series=None)
    assert FB_PAIR.named is not None
    got = duckdb.sql(FB_PAIR.named(src, f"({fb_pair_sql(src)}) as kept")).fetchall()
    assert sorted((r[0], r[1], r[2], r[4], r[5]) for r in got) == [
        ("used-a", 2, "g0", 2.0, 20.0),
        ("used-b", 2, "g0", 1.0, 10.0),
        ("used-b", 3, "g0", 4.0, 40.0),
    ]  # used-a line 3 (g1 at 00:30) has no FB_FREE sample
