"""The tables the expectations run on: SELECTs over the raw lake, created as views for GX to validate.

A frame's SELECT reads only the columns its rules need and computes their derived columns
(``Rule.derived``) in the same query; a ``Lookup`` is computed once into a small table of the session and
joined back on its keys (a left join matching at most one row: the frame keeps its rows). A rule of the
``rows`` frame on a sparse lookup runs on a frame of its own: the lookup's rows, which are the only ones that
can break it (the join would probe every row of the batch for a few thousand matches). Batches are the
changed units of a family (``rows`` and ``schema``), one partition (partition-scope custom frames), or the
whole family reading a few columns (``family`` and cross-file frames). Nothing is copied: every view reads
the Parquet files where they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from expectations.rules import LOOKUP_VALUE, Frame, Lookup, Rule, Suite
from pipelines.lake import cells
from pipelines.lake.relation import (
    FILE_COLUMN,
    PARTITION_DIR_PREFIX,
    has_partition_files,
    ident,
    lit,
    parquet_scan,
    partitioned_scan,
)
from pipelines.settings import Settings

if TYPE_CHECKING:
    from pipelines.validate.gx_suites import LakeSession
    from pipelines.validate.units import Unit

ABSENT = "(absent)"  # found_type of an expected column a file does not have


class FrameError(RuntimeError):
    """A frame's query failed; the message names the family, the frame, the batch and the SQL error."""


def files_relation(files: Sequence[Path], *, hive: bool = False, file_column: bool = False) -> str:
    """A SQL relation over some Parquet files of one family (columns unioned by name; ``hive``: with the
    ``_partition`` column, as text, taken from the folder names; ``file_column``: with ``FILE_COLUMN``)."""
    return parquet_scan(list(files), hive=hive, file_column=file_column)


def family_relation(settings: Settings, family: str) -> str | None:
    """Every row of a family (``_partition`` read as text), or None when it has no files."""
    root = settings.raw_dir / family
    return partitioned_scan(root) if has_partition_files(root) else None


def counted_relation(
    settings: Settings, family: str, kind: str, files: Sequence[Path] | None = None
) -> str | None:
    """What the load counted of some raw lake files of a wide family (default: all of them;
    ``pipelines/lake/cells.py``): kind ``lines``, one row per line of each file, or ``series``, one row per
    series of each file with ``FILE_COLUMN`` naming the raw file as ``files`` names it. None when a file has
    no counts (a table family)."""
    if files is None:
        root = settings.raw_dir / family
        files = sorted(root.glob(f"{PARTITION_DIR_PREFIX}*/*.parquet")) if root.is_dir() else []
    counted = {f: cells.of_file(settings, family, kind, f) for f in files}
    if not counted or not all(c.exists() for c in counted.values()):
        return None
    if kind == "lines":
        return parquet_scan(list(counted.values()))
    named = ", ".join(f"({lit(str(c))}, {lit(str(f))})" for f, c in counted.items())
    scan = parquet_scan(list(counted.values()), file_column=True)
    return (
        f"(select _counts.* exclude ({ident(FILE_COLUMN)}), _files.raw as {ident(FILE_COLUMN)} from {scan} "
        f"as _counts join (values {named}) as _files(counted, raw) on _counts.{ident(FILE_COLUMN)} = _files.counted)"
    )


@dataclass
class Sources:
    """What a custom frame's SELECT may read (``expectations.rules.FrameSources``)."""

    session: LakeSession
    settings: Settings
    rows: str
    lines: str | None = None  # the rows' lines as the load counted them (counted_relation)
    series: str | None = None  # the rows' series as the load counted them, per file (counted_relation)
    _columns: frozenset[str] | None = field(default=None, repr=False)

    def columns(self) -> frozenset[str]:
        if self._columns is None:
            self._columns = frozenset(self.session.columns(self.rows))
        return self._columns

    def family(self, key: str) -> str | None:
        return family_relation(self.settings, key)


def derived_columns(rules: Iterable[Rule], columns: frozenset[str]) -> dict[str, str | Lookup]:
    """Derived column name → SQL expression or lookup, over all ``rules`` (a name shared by two rules must
    agree)."""
    out: dict[str, str | Lookup] = {}
    for rule in rules:
        for name, expr in rule.derived.items():
            sql = expr if isinstance(expr, Lookup | str) else expr(columns)
            if out.get(name, sql) != sql:
                raise ValueError(f"rule {rule.name}: derived column {name} is defined twice, differently")
            out[name] = sql
    return out


def with_derived(
    columns: Sequence[str] | None,
    relation: str,
    derived: Mapping[str, str | Lookup],
    keep: Callable[[str, str], str] | None = None,
    prefix: str = "lookup",
    read: Callable[[str], list[dict[str, Any]]] | None = None,
    file_column: str | None = None,
    counted_series: str | None = None,
) -> str:
    """SELECT ``columns`` (None: every column) of ``relation`` and the derived columns: expressions in the
    select list, lookups joined (see the module docstring). ``keep(name, sql)`` stores a lookup's rows as a
    table and returns its SELECT, so the frame's queries (GX runs several) do not compute it again; with
    ``read`` (rows of a query) a complete lookup whose keys nearly all share one value is written as a CASE
    over the few others instead of a join (:func:`_inlined`), and with ``file_column`` (the column naming
    each row's Parquet file) one whose value is one per file as a CASE over the files
    (:func:`_inlined_by_file`); each file's keys are read from ``counted_series`` (the series the load
    counted per file, ``counted_relation``) when the lookup's keys are among its columns, not from every
    row."""
    exprs = [ident(c) for c in columns] if columns is not None else ["_rows.*"]
    joins = []
    for i, (name, lookup) in enumerate((n, d) for n, d in derived.items() if isinstance(d, Lookup)):
        alias = f"_lookup_{i}"
        keys = [ident(k) for k in lookup.on]
        renamed = [f"{alias}_{j}" for j in range(len(keys))]
        source, by_file = relation, None
        if file_column is not None and lookup.complete and keep is not None and read is not None:
            by_file = file_column  # each file's keys, once: the lookup reads those
            counted = counted_series is not None and set(lookup.on) <= COUNTED_SERIES_KEYS
            keyed = f"{counted_series} as _counted" if counted else relation
            files = f"select distinct {ident(by_file)} as _file, {', '.join(keys)} from {keyed}"
            source = f"({keep(f'{prefix}_{name}_files', files)})"
        table = (
            "select "
            + ", ".join(f"{k} as {r}" for k, r in zip(keys, renamed, strict=True))
            + f", {LOOKUP_VALUE} as {alias}_value from ({lookup.select(source, None)})"
        )
        if keep is not None:
            table = keep(f"{prefix}_{name}", table)
        pairs = list(zip(keys, renamed, strict=True))
        inlined = _inlined(lookup, table, pairs, f"{alias}_value", read) if read is not None else None
        if inlined is None and by_file is not None and read is not None:
            inlined = _inlined_by_file(source, table, pairs, f"{alias}_value", by_file, read)
        if inlined is not None:
            exprs.append(f"{inlined} as {ident(name)}")
            continue
        on = " and ".join(f"_rows.{k} is not distinct from {alias}.{r}" for k, r in pairs)
        joins.append(f" left join ({table}) as {alias} on {on}")
        exprs.append(f"coalesce({alias}.{alias}_value, {lookup.default}) as {ident(name)}")
    exprs += [f"{sql} as {ident(n)}" for n, sql in derived.items() if isinstance(sql, str)]
    return f"select {', '.join(exprs)} from {relation} as _rows{''.join(joins)}"


COUNTED_SERIES_KEYS = frozenset(cells.SERIES_SCHEMA.names)  # what counted_relation's series name
INLINE_KEYS = 64  # at most this many keys of a complete lookup outside its most common value are inlined


def _inlined(
    lookup: Lookup,
    table: str,
    pairs: Sequence[tuple[str, str]],
    value: str,
    read: Callable[[str], list[dict[str, Any]]],
) -> str | None:
    """A complete lookup (every key of the frame's rows has its row) as an expression without a join: its
    most common value, and a CASE for the keys (at most ``INLINE_KEYS``) whose value differs. A clean
    utilization file's 2,343 series are all one kind, so the probe of every row (hashing its keys) becomes a
    constant. None when the lookup is not complete or too varied."""
    if not lookup.complete:
        return None
    types = _column_types(table, read)
    common = read(
        f"select {value} as v from ({table}) group by all order by count(*) desc, v nulls last limit 1"
    )
    if not common:  # no keys: the frame has no rows
        return f"cast({lookup.default} as {types[value]})"
    most = _literal(common[0]["v"], types[value])
    other = read(
        f"select * from ({table}) where {value} is distinct from {most} order by all limit {INLINE_KEYS + 1}"
    )
    if len(other) > INLINE_KEYS:
        return None
    whens = "".join(
        " when "
        + " and ".join(f"_rows.{k} is not distinct from {_literal(row[r], types[r])}" for k, r in pairs)
        + f" then {_literal(row[value], types[value])}"
        for row in other
    )
    return f"case{whens} else {most} end" if whens else most


INLINE_FILES = 1024  # at most this many files outside the most common value are named in a CASE


def _inlined_by_file(
    files: str,
    table: str,
    pairs: Sequence[tuple[str, str]],
    value: str,
    file_column: str,
    read: Callable[[str], list[dict[str, Any]]],
) -> str | None:
    """A complete lookup whose keys in each Parquet file of the frame all share one value, as a CASE on the
    file column: a scan gives that column as a constant per file, so no row is hashed. ``files``: each
    file's distinct keys (column ``_file``). A clean utilization file names every series one way (IPs, or
    Kalos pod names), but a batch mixes files of both, too many names for :func:`_inlined`. None when a file
    mixes values or too many files differ from the most common value."""
    types = _column_types(table, read)
    on = " and ".join(f"_keys.{k} is not distinct from _values.{r}" for k, r in pairs)
    per_file = read(
        f"select _file, min(_values.{value}) as v, count(distinct _values.{value}) as n, "
        f"count(_values.{value}) as valued, count(*) as keys from {files} as _keys "
        f"join ({table}) as _values on {on} group by _file"
    )
    if not per_file or any(r["n"] > 1 or 0 < r["valued"] < r["keys"] for r in per_file):
        return None
    by_value: dict[str, list[str]] = {}
    for row in per_file:
        by_value.setdefault(_literal(row["v"], types[value]), []).append(str(row["_file"]))
    most = max(by_value, key=lambda v: len(by_value[v]))
    if sum(len(f) for v, f in by_value.items() if v != most) > INLINE_FILES:
        return None
    whens = "".join(
        f" when {lit(f)} then {v}"
        for v, names in sorted(by_value.items())
        if v != most
        for f in sorted(names)
    )
    return f"case _rows.{ident(file_column)}{whens} else {most} end" if whens else most


def _column_types(table: str, read: Callable[[str], list[dict[str, Any]]]) -> dict[str, str]:
    return {r["column_name"]: r["column_type"] for r in read(f"describe {table}")}


def _literal(value: Any, sql_type: str) -> str:
    """A typed SQL literal of a value read back from DuckDB."""
    return f"cast({'null' if value is None else lit(str(value))} as {sql_type})"


def sparse_groups(rules: Sequence[Rule]) -> tuple[list[Rule], dict[tuple[str, Lookup], list[Rule]]]:
    """The rules joined to every row, and those on each sparse lookup (``Rule.sparse_lookup`` → rules), which
    run on the lookup's rows alone."""
    joined: list[Rule] = []
    sparse: dict[tuple[str, Lookup], list[Rule]] = {}
    for rule in rules:
        found = rule.sparse_lookup
        if found is None:
            joined.append(rule)
        else:
            sparse.setdefault(found, []).append(rule)
    return joined, sparse


def sparse_frame_sql(
    name: str, lookup: Lookup, rules: Sequence[Rule], src: Sources, index: Sequence[str]
) -> str:
    """The rows of a batch that sparse ``lookup`` matches, with ``index``, the rules' raw columns and the
    lookup's value as derived column ``name``: stored as a table of the session (the lookup runs once)."""
    wanted = list(dict.fromkeys([*index, *(c for r in rules for c in r.columns if c != name)]))
    picked = ", ".join(ident(c) for c in wanted)
    body = f"select {picked}, {LOOKUP_VALUE} as {ident(name)} from ({lookup.select(src.rows, src.lines)})"
    return src.session.keep(f"lookup_rows_{name}", body)


def row_source(src: Sources) -> str | None:
    """The relation whose rows a built-in frame's are, one for one: the batch's rows (its lookups are left
    joins on distinct keys)."""
    return src.rows or None


def frame_sql(
    suite: Suite, frame: str, rules: Sequence[Rule], src: Sources, *, index: Sequence[str] | None = None
) -> str:
    """The SELECT producing one batch of built-in ``frame``: ``index`` (default: the suite's row key), the
    rules' raw columns and derived columns."""
    available = src.columns()
    derived = derived_columns(rules, available)
    raw = [c for r in rules for c in r.columns if c not in derived]
    wanted = list(dict.fromkeys([*(index or suite.row_index), *raw]))
    missing = [c for c in wanted if c not in available]
    if missing:
        raise FrameError(f"{suite.family}: frame {frame} needs column(s) {', '.join(missing)}")
    file_column = FILE_COLUMN if FILE_COLUMN in available else None
    return with_derived(
        wanted, src.rows, derived, src.session.keep, f"lookup_{frame}", src.session.rows, file_column,
        src.series,
    )  # fmt: skip


def custom_frame_sql(frame: Frame, rules: Sequence[Rule], src: Sources) -> tuple[str, str | None] | None:
    """The SELECT producing one batch of custom ``frame`` and the relation GX counts its rows as (None: the
    frame's own), or None when there is nothing to validate in this batch.

    The frame's rows are computed once into a table of the session (a join: not once per GX query; in
    memory, as the next batch replaces it). A screened frame's table holds only the rows that may break a
    rule (:func:`screen_sql`), after one pass over its SELECT that counts them and every row: GX counts the
    frame's rows as all of them, and the table of a clean batch is empty (FB_USED beside FB_FREE: 27 M pairs
    a day at the real width, none kept when every pair adds up)."""
    body = frame.select(src)
    if body is None:
        return None
    rows_of = None
    if frame.screened:
        screen = screen_sql(rules)
        (counts,) = src.session.rows(f"select count(*) as n, count_if({screen}) as screened from ({body})")
        body = f"select * from ({body}) where {screen if counts['screened'] else 'false'}"
        rows_of = f"range({int(counts['n'])})"  # a relation of as many rows as the frame's
    body = src.session.keep(f"frame_rows_{frame.name}", body, in_memory=True)
    if frame.named is not None:
        body = frame.named(src, f"({body}) as kept")
    derived = derived_columns(rules, frozenset(src.session.columns(f"({body}) as frame")))
    sql = with_derived(None, f"({body})", derived, src.session.keep, f"lookup_{frame.name}", src.session.rows)
    return sql, rows_of


def screen_sql(rules: Sequence[Rule]) -> str:
    """The rows that may break one of ``rules``, ranges (``between``) of a column or of a SQL expression of
    the columns (``Rule.derived``): a value outside its range, or null (which GX counts as missing)."""
    tests = []
    for rule in rules:
        kwargs = rule.expect.kwargs
        column = str(kwargs["column"])
        derived = rule.derived.get(column)
        value = f"({derived})" if isinstance(derived, str) else ident(column)
        bounds = [
            f"{value} {op} {kwargs[bound]!r}"
            for bound, op in (("min_value", ">="), ("max_value", "<="))
            if kwargs.get(bound) is not None
        ]
        tests.append(f"{value} is null or not ({' and '.join(bounds) or 'true'})")
    return " or ".join(tests) or "false"


def schema_sql(units: Sequence[Unit], expected: dict[str, str], lake_dir: Path) -> str:
    """One row per (unit, expected column): the file, its expected type and the type found in the file's
    Parquet schema (``ABSENT`` when the column is missing), read from the footers only."""
    files = ", ".join(
        f"({lit(u.id)}, {lit(str(u.path.relative_to(lake_dir)))}, {lit(str(u.path))})" for u in units
    )
    columns = ", ".join(f"({lit(c)}, {lit(t)})" for c, t in expected.items())
    paths = "[" + ", ".join(lit(str(u.path)) for u in units) + "]"
    return (
        f"with files(unit, file, path) as (values {files}), "
        f"expected(column_name, expected_type) as (values {columns}), "
        f"found as (select file_name, name, duckdb_type from parquet_schema({paths}) where column_id > 0) "
        'select f.unit, f.file, e.column_name as "column", e.expected_type, '
        f"coalesce(x.duckdb_type, {lit(ABSENT)}) as found_type "
        "from files f cross join expected e left join found x on x.file_name = f.path and x.name = e.column_name"
    )
