"""SQL that reads a CSV file line by line with DuckDB and parses it with explicit types.

Why not ``read_csv`` with typed columns directly: it skips blank lines silently and gives loaded rows no line
number, so "lines in file = loaded + rejected" could not be proven and ``_row_number`` could not be exact.
Here DuckDB's CSV reader streams every physical line (one VARCHAR column, no quoting), numbers it, and the
fields are split and cast in SQL; each line either becomes a row or a reject with a reason naming the
column and the value. Only lines DuckDB itself cannot decode (invalid UTF-8, over-long) leave the stream;
they come back from its rejects table with their line numbers, and the numbering of the other lines is
shifted past them. A file whose line endings change part-way, or whose quoted fields hold line breaks, is
read from a copy ``dialect.prepare`` makes (a record a line), numbered back to the file's lines. Lines with a
NUL byte, a repeated header (concatenated files) or a quoted field never closed are rejected as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipelines.families.schemas import ColumnType, FileSchema, snake_case
from pipelines.lake.relation import ident, lit

# A field delimiter that never occurs in the traces: each physical line arrives as one value.
_LINE_DELIM = "\\x1f"
MAX_LINE_BYTES = 64 * 1024 * 1024
# Strict timestamp shape; DuckDB alone would accept a truncated "00:18:2" as 00:18:02.
TS_PATTERN = r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}(:?\d{2})?|Z)?$"
OFFSET_PATTERN = r"([+-]\d{2}(:?\d{2})?|Z)$"
_QUOTED_FIELD = r"""(?:^|,)("(?:[^"]|"")*"|[^,]*)"""
_TYPE_WORD = {"BIGINT": "an integer", "DOUBLE": "a number", "TIMESTAMP": "a timestamp"}


# The temp table of a file's lines in file order (``read_lines_sql``): DuckDB keeps the insertion order of a
# table created from one scan, so a line's ``rowid`` + 1 is its ordinal among the lines DuckDB could decode.
# Numbering by ``row_number() over ()`` instead would run everything downstream of that window on one thread.
LINES_TABLE = "_read_lines"


def read_lines_sql(path: str, *, store_rejects: bool) -> str:
    """Every physical line of ``path`` that DuckDB could decode, in file order (one VARCHAR column)."""
    rejects = ", store_rejects=true" if store_rejects else ""
    return (
        f"select line from read_csv({lit(path)}, header=false, "
        f"columns={{'line': 'VARCHAR'}}, delim=e'{_LINE_DELIM}', quote='', escape='', auto_detect=false, "
        f"ignore_errors=true, max_line_size={MAX_LINE_BYTES}{rejects})"
    )


def store_lines_sql(path: str) -> str:
    """Create ``LINES_TABLE`` from ``path``'s lines, CRs at their ends trimmed (a CRLF file's lines arrive with
    their CR; only those lines are trimmed, as trimming copies the string); the lines DuckDB cannot decode go
    to its rejects tables."""
    return (
        f"create or replace temp table {LINES_TABLE} as "
        f"select if(ends_with(line, chr(13)), rtrim(line, chr(13)), line) as line "
        f"from ({read_lines_sql(path, store_rejects=True)})"
    )


def numbered_lines_sql(*, shifted: bool, offset: int = 0, joined: bool = False) -> str:
    """The lines of ``LINES_TABLE`` with their true line number in the file (header = line 1).

    ``shifted``: the temp table ``_line_gaps(gap, shift)`` holds, for the undecodable lines, how many decodable
    lines precede them; an ASOF join then shifts each ordinal past the undecodable lines before it.
    ``offset``: added to every data line's number (the file holds the header and an appended tail whose
    first line follows ``offset`` data lines of the whole file).
    ``joined``: the file is a copy made by ``dialect.prepare`` whose lines are records (a quoted field's line
    breaks written as ``JOINED_BREAK``); the temp table ``_line_spans(gap, shift)`` maps its lines back to the
    landed file's, and the breaks become LF again.
    """
    base = f"select line, rowid + 1 as _ordinal from {LINES_TABLE}"
    shift = f" + {int(offset)}" if offset else ""
    if shifted:
        base = (
            f"select n.line, n._ordinal + coalesce(g.shift, 0) as _ordinal "
            f"from ({base}) n asof left join _line_gaps g on n._ordinal > g.gap"
        )
    if joined:
        base = (
            f"select replace(n.line, chr(30), chr(10)) as line, n._ordinal + coalesce(s.shift, 0) as _ordinal "
            f"from ({base}) n asof left join _line_spans s on n._ordinal > s.gap"
        )
    return f"select line, _ordinal{shift} as _row_number from ({base})"


LINE_GAPS_SQL = """
create or replace temp table _line_gaps as
select gap, max(j) as shift from (
    select line - row_number() over (order by line) as gap, row_number() over (order by line) as j
    from reject_errors
) group by gap
"""


def encoding_rejects_sql(offset: int = 0, joined: bool = False) -> str:
    """The lines DuckDB could not decode, numbered as in ``numbered_lines_sql`` with the same ``offset``."""
    rejects = "select *, cast(line as bigint) as _copy_line from reject_errors"
    if joined:
        rejects = (
            "select r.*, cast(r.line as bigint) + coalesce(s.shift, 0) as _copy_line "
            "from reject_errors r asof left join _line_spans s on cast(r.line as bigint) > s.gap"
        )
    return (
        f"select _copy_line + {int(offset)} as _row_number, "
        "replace(trim(csv_line, chr(10) || chr(13)), chr(30), chr(10)) as raw_text, error_type, error_message "
        f"from ({rejects}) order by _copy_line"
    )


def fields_sql() -> str:
    """The list of fields of ``line``; the regex path handles quoted fields (rare in the traces)."""
    unquote = """list_transform(regexp_extract_all(line, '{pat}', 1),
        lambda x: case when length(x) >= 2 and x like '"%"' then replace(x[2:-2], '""', '"') else x end)""".format(
        pat=_QUOTED_FIELD.replace("'", "''")
    )
    return f"case when contains(line, '\"') then {unquote} else string_split(line, ',') end"


@dataclass(frozen=True)
class BoundColumn:
    """A header column bound to its position, type and raw name."""

    position: int  # 1-based field index
    header: str
    raw_name: str
    type: ColumnType
    required: bool


def bind(header: Sequence[str], schema: FileSchema) -> list[BoundColumn]:
    """Header columns in file order, typed by the schema (unknown columns by its ``unknown`` policy)."""
    unknown_type: ColumnType = "DOUBLE" if schema.unknown == "double" else "VARCHAR"
    bound = []
    for i, name in enumerate(header, start=1):
        col = schema.column(name)
        if col is not None:
            bound.append(BoundColumn(i, name, col.raw_name, col.type, col.required))
        else:
            bound.append(BoundColumn(i, name, snake_case(name), unknown_type, False))
    return bound


def _field(pos: int) -> str:
    return f"f[{pos}]"


def bad_value_sql(value: str, type_: ColumnType) -> str | None:
    """A predicate true when a non-empty ``value`` is not of ``type_``."""
    if type_ == "VARCHAR":
        return None
    if type_ == "TIMESTAMP":
        return (
            f"(not regexp_full_match({value}, {lit(TS_PATTERN)}) or try_cast({value} as timestamptz) is null)"
        )
    return f"try_cast({value} as {type_}) is null"


NUL_REASON = "the line holds a NUL byte (binary data, or a file cut and filled with zeros)"
REPEATED_HEADER_REASON = "the header line again (files concatenated?)"
UNCLOSED_REASON = "a quoted field opened on this line is never closed (a stray double quote?)"


def _line_rules(header: Sequence[str]) -> tuple[list[str], list[str]]:
    """The reasons that reject a whole line before its fields are looked at, and their (NULL) columns."""
    names = "[" + ", ".join(lit(h) for h in header) + "]"
    first = lit(header[0]) if header else "''"
    repeated = f"(ltrim(f[1], chr(65279)) = {first} and [ltrim(f[1], chr(65279))] || f[2:] = {names})"
    reason = [
        "when line is null or trim(line) = '' then 'empty line'",
        f"when starts_with(line, chr(29)) then {lit(UNCLOSED_REASON)}",
        f"when contains(line, chr(0)) then {lit(NUL_REASON)}",
        f"when {repeated} then {lit(REPEATED_HEADER_REASON)}",
    ]
    column = [
        "when line is null or trim(line) = '' then null",
        "when starts_with(line, chr(29)) then null",
        "when contains(line, chr(0)) then null",
        f"when {repeated} then null",
    ]
    return reason, column


def reason_sql(columns: Sequence[BoundColumn], n_fields: int, header: Sequence[str] = ()) -> tuple[str, str]:
    """Two CASE expressions over ``line``/``f``: the reject reason (NULL when the line is good) and the column."""
    reason, column = _line_rules(header or [c.header for c in columns])
    reason.append(f"when len(f) <> {n_fields} then printf('expected {n_fields} fields, found %d', len(f))")
    column.append(f"when len(f) <> {n_fields} then null")
    for c in columns:
        value = _field(c.position)
        empty = f"trim({value}) = ''"
        if c.required:
            reason.append(f"when {empty} then {lit(f'column {c.header}: empty value in a required column')}")
            column.append(f"when {empty} then {lit(c.header)}")
        bad = bad_value_sql(value, c.type)
        if bad is not None:
            word = _TYPE_WORD[c.type]
            prefix, suffix = lit(f"column {c.header}: '"), lit(f"' is not {word}")
            msg = f"{prefix} || left({value}, 60) || {suffix}"
            reason.append(f"when not {empty} and {bad} then {msg}")
            column.append(f"when not {empty} and {bad} then {lit(c.header)}")
    return (
        "case " + " ".join(reason) + " else null end",
        "case " + " ".join(column) + " else null end",
    )


def value_sql(c: BoundColumn) -> list[str]:
    """Select expressions producing the raw column(s) for one bound column."""
    value = f"nullif(trim({_field(c.position)}), '')"
    name = ident(c.raw_name)
    if c.type == "VARCHAR":
        return [f"nullif({_field(c.position)}, '') as {name}"]
    if c.type == "TIMESTAMP":
        offset = f"nullif(regexp_extract({value}, {lit(OFFSET_PATTERN)}, 1), '')"
        return [
            f"cast(try_cast({value} as timestamptz) as timestamp) as {name}",
            f"{offset} as {ident(c.raw_name + '_utc_offset')}",
        ]
    return [f"try_cast({value} as {c.type}) as {name}"]


def null_sql(raw_name: str, type_: ColumnType) -> list[str]:
    """Select expressions for a schema column the file does not have (all NULL, typed)."""
    out = [f"cast(null as {type_}) as {ident(raw_name)}"]
    if type_ == "TIMESTAMP":
        out.append(f"cast(null as varchar) as {ident(raw_name + '_utc_offset')}")
    return out


BAD_CELL_SQL = (
    "list_position(list_transform(f[2:], lambda x: trim(x) <> '' and try_cast(x as double) is null), true)"
)


def wide_reason_sql(header: Sequence[str], time_position: int = 1) -> tuple[str, str]:
    """Reject reason/column for a wide utilization line: Time plus numeric cells.

    Expects ``_bad_cell`` (``BAD_CELL_SQL``, the first non-numeric cell) computed once beside ``f``.
    """
    n = len(header)
    names = "[" + ", ".join(lit(h) for h in header) + "]"
    t = _field(time_position)
    bad_ts = bad_value_sql(t, "TIMESTAMP")
    bad_cell = "_bad_cell"
    rules, rule_columns = _line_rules(header)
    reason = (
        f"case {' '.join(rules)} "
        f"when len(f) <> {n} then printf('expected {n} fields, found %d', len(f)) "
        f"when trim({t}) = '' then 'column Time: empty value in a required column' "
        f"when {bad_ts} then 'column Time: ''' || left({t}, 60) || ''' is not a timestamp' "
        f"when {bad_cell} > 0 then 'column ' || {names}[{bad_cell} + 1] || ': ''' "
        f"|| left(f[{bad_cell} + 1], 60) || ''' is not a number' else null end"
    )
    column = (
        f"case {' '.join(rule_columns)} when len(f) <> {n} then null "
        f"when trim({t}) = '' or {bad_ts} then 'Time' "
        f"when {bad_cell} > 0 then {names}[{bad_cell} + 1] else null end"
    )
    return reason, column
