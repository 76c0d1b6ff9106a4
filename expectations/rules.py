"""The vocabulary of the validation suites: rules, the GX expectation each one is, and the frames they run on.

A **rule** is one documented invariant. Its ``name`` is stable: it is the Dagster check name and
the ``rule`` value of quarantined rows. Its ``kind`` says what a violation means:

- ``structural`` — the raw relation lacks an expected column or has it with another type: the check fails
  with ERROR severity and blocks downstream assets;
- ``quarantine`` — the row parses but cannot be a true record: it goes to ``lake/quarantine/<family>/`` and
  staging leaves it out;
- ``flag`` — real data with a documented quirk or an undocumented value: counted, shown, kept;
- ``duplicate`` — a repeated key: the first copy (by ``_row_number``) is kept downstream, the rest counted.

Each rule is exactly one Great Expectations expectation (``Expect``), described by its GX type name and
keyword arguments so that suite modules stay plain data: importing ``great_expectations`` takes seconds and
happens only when a validation runs (``pipelines/validate/gx_suites.py`` turns these into GX objects).

Rules that compare values *within* a row (``gpu_time = duration × gpu_num``) run their expectation on a
**derived column** computed in the frame's DuckDB query (``Rule.derived``: name → SQL expression), so the GX
expectation itself stays a stock one such as ``expect_column_values_to_be_between``. A derived value that
depends on a few distinct keys (a column name's shape) or is not trivial on only a few rows (the copy number
of a repeated sample) is a ``Lookup``: a small relation computed once from the frame's rows and joined back,
so a frame of a billion utilization values does not evaluate a regular expression or sort by series per row.

A **frame** is the table a group of expectations runs on:

- ``rows`` — the family's own rows, in batches of one source file over consecutive partitions (memory stays
  bounded); the only frame whose rules may quarantine rows;
- ``family`` — the family's own rows over every partition at once, reading only the columns its rules need
  (repeated ids, per-file order);
- ``schema`` — one row per (Parquet file, expected column) with the expected and the found type;
- custom frames (``Frame``) — a SELECT of their own, per partition or over the whole family, possibly
  reading other families (cross-file checks).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

RuleKind = Literal["structural", "quarantine", "flag", "duplicate"]
FrameScope = Literal["partition", "family"]

ROW_INDEX: tuple[str, ...] = ("_source_file", "_row_number")
ROWS_FRAME = "rows"
FAMILY_FRAME = "family"
SCHEMA_FRAME = "schema"
STRUCTURAL_RULE = "columns_and_types"
LOOKUP_VALUE = "_lookup_value"  # the value column of a Lookup's SELECT
PROVENANCE_COLUMNS: dict[str, str] = {
    "_source_file": "VARCHAR",
    "_row_number": "BIGINT",
    "_loaded_at": "TIMESTAMP",
    "_data_origin": "VARCHAR",
}


@dataclass(frozen=True)
class Expect:
    """One Great Expectations expectation, by its GX type name (snake case) and keyword arguments."""

    type: str
    kwargs: Mapping[str, object]

    @property
    def columns(self) -> tuple[str, ...]:
        """The frame columns the expectation reads."""
        names = [self.kwargs.get(k) for k in ("column", "column_A", "column_B")]
        return tuple(str(n) for n in names if n is not None)


def between(column: str, min_value: float | None = None, max_value: float | None = None) -> Expect:
    kwargs: dict[str, object] = {"column": column}
    if min_value is not None:
        kwargs["min_value"] = min_value
    if max_value is not None:
        kwargs["max_value"] = max_value
    return Expect("expect_column_values_to_be_between", kwargs)


def in_set(column: str, values: Sequence[str]) -> Expect:
    return Expect("expect_column_values_to_be_in_set", {"column": column, "value_set": list(values)})


def not_in_set(column: str, values: Sequence[object]) -> Expect:
    return Expect("expect_column_values_to_not_be_in_set", {"column": column, "value_set": list(values)})


def not_null(column: str) -> Expect:
    return Expect("expect_column_values_to_not_be_null", {"column": column})


def null(column: str) -> Expect:
    return Expect("expect_column_values_to_be_null", {"column": column})


def pair_equal(column_a: str, column_b: str) -> Expect:
    return Expect("expect_column_pair_values_to_be_equal", {"column_A": column_a, "column_B": column_b})


class FrameSources(Protocol):
    """What a custom frame's SELECT may read (implemented in ``pipelines/validate/frames.py``)."""

    @property
    def rows(self) -> str:
        """This family's rows in the frame's scope (a partition, or the whole family), as a SQL relation."""
        ...

    def columns(self) -> frozenset[str]:
        """The column names of ``rows``."""
        ...

    def family(self, key: str) -> str | None:
        """Every row of another family as a SQL relation, or None when that family has no files."""
        ...

    @property
    def lines(self) -> str | None:
        """The lines of ``rows`` as the load counted them, one row per line of each Parquet file of ``rows``
        (``cluster``, ``metric``, ``_source_file``, ``_row_number``, ``time``, ``_data_origin``, ``cells``;
        ``pipelines/lake/cells.py``), or None (a table family, or a file without them): what a rule reads of
        lines alone it reads there, not from every cell."""
        ...

    @property
    def series(self) -> str | None:
        """The series of ``rows`` as the load counted them, one row per series of each Parquet file of
        ``rows`` (``cluster``, ``metric``, ``_source_file``, ``series``, ``cells``), or None like ``lines``."""
        ...


@dataclass(frozen=True)
class Lookup:
    """A derived column read from a small relation joined to the frame's rows (see the module docstring).

    ``select(rows, lines)`` is a SELECT over the frame's source relation ``rows`` (and the relation of its
    lines, ``FrameSources.lines``, when there is one) returning the ``on`` columns and the value as column
    ``LOOKUP_VALUE``, at most one row per ``on`` key; the frame joins it on the keys (nulls equal), and a row
    without a match gets ``default``.

    ``sparse``: every rule on this column accepts ``default``, so only the rows with a match can break one,
    and ``select(rows)`` returns those rows whole (every column of ``rows``, then ``LOOKUP_VALUE``). A rule
    of the ``rows`` frame on a sparse lookup then runs on the lookup's rows alone, counted against all the
    batch's rows, instead of on a join of the lookup to every row.
    """

    select: Callable[[str, str | None], str]
    on: tuple[str, ...]
    default: str = "null"
    sparse: bool = False

    @property
    def complete(self) -> bool:
        """Whether every distinct key of the frame's rows has a row (``per_key``): no row gets ``default``."""
        return isinstance(self.select, _DistinctKeys)


@dataclass(frozen=True)
class _DistinctKeys:
    """``Lookup.select`` of ``per_key`` (a dataclass, so the suite version sees ``sql``)."""

    sql: str
    on: tuple[str, ...]

    def __call__(self, rows: str, lines: str | None = None) -> str:
        keys = ", ".join(self.on)
        return f"select {keys}, {self.sql} as {LOOKUP_VALUE} from (select distinct {keys} from {rows})"


def per_key(sql: str, on: tuple[str, ...]) -> Lookup:
    """The expression ``sql`` over the columns ``on`` only, evaluated once per distinct key."""
    return Lookup(_DistinctKeys(sql, on), on)


# an expression, or one built from the available columns, or a lookup
DerivedSql = str | Callable[[frozenset[str]], str] | Lookup


@dataclass(frozen=True)
class Frame:
    """A custom table for a group of expectations (see the module docstring)."""

    name: str
    scope: FrameScope
    select: Callable[[FrameSources], str | None]  # None: nothing to compare (e.g. the other family is absent)
    index: tuple[str, ...] = ROW_INDEX
    deps: tuple[str, ...] = ()  # other families the SELECT reads (Dagster additional_deps)
    description: str = ""
    # A SELECT over the kept rows of ``select`` (a relation) that names what they carry as numbers: the join is
    # kept once, small; a query names only the rows it reads, and a query that reads no name names none.
    named: Callable[[FrameSources, str], str] | None = None
    # Only the rows that may break a rule are kept, counted against every row of the SELECT: a frame whose
    # rules are ranges (``between``) of its columns or of SQL expressions of them is counted and screened in
    # one pass over its SELECT, and GX validates the few rows outside a range (none on clean data) instead
    # of a table of every row (``pipelines/validate/frames.py``, ``screen_sql``).
    screened: bool = False


@dataclass(frozen=True)
class Rule:
    """One documented rule, implemented by one GX expectation (see the module docstring)."""

    name: str
    kind: RuleKind
    description: str  # one line quoting the documented invariant
    expect: Expect
    frame: str = ROWS_FRAME
    derived: Mapping[str, DerivedSql] = field(default_factory=dict)
    columns: tuple[str, ...] = ()  # raw columns the rule reads (quoted in quarantine details and samples)
    threshold: float = 0.0  # the check warns when the rate of violating rows is above this
    breakdown: str | None = (
        None  # a frame column whose value counts are reported (e.g. which rule a row follows)
    )

    @property
    def detail_columns(self) -> tuple[str, ...]:
        names = [*self.columns, *self.derived, *self.expect.columns]
        return tuple(dict.fromkeys(names))

    @property
    def sparse_lookup(self) -> tuple[str, Lookup] | None:
        """The derived column name and lookup of a rule on a sparse lookup (``Lookup.sparse``), else None."""
        return next(((n, d) for n, d in self.derived.items() if isinstance(d, Lookup) and d.sparse), None)


def _range_of_sql(rule: Rule) -> bool:
    """Whether ``rule`` is a range of a column or of a SQL expression (what a screened frame can screen)."""
    between = rule.expect.type == "expect_column_values_to_be_between"
    return between and all(isinstance(d, str) for d in rule.derived.values())


@dataclass(frozen=True)
class Suite:
    """Every rule of one file family (``expectations/<source>/<family>.py`` defines one as ``SUITE``)."""

    family: str
    columns: Mapping[str, str]  # expected raw columns → DuckDB type: the structural rule
    rules: tuple[Rule, ...]
    frames: tuple[Frame, ...] = ()
    row_index: tuple[str, ...] = ROW_INDEX  # what identifies one raw row (utilization adds ``series``)

    def __post_init__(self) -> None:
        names = [r.name for r in self.all_rules]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"suite {self.family}: rule name(s) used twice: {', '.join(dupes)}")
        known = {ROWS_FRAME, FAMILY_FRAME, SCHEMA_FRAME, *(f.name for f in self.frames)}
        screened = {f.name for f in self.frames if f.screened}
        for rule in self.rules:
            if rule.frame not in known:
                raise ValueError(
                    f"suite {self.family}: rule {rule.name} runs on unknown frame {rule.frame!r}"
                )
            if rule.kind == "quarantine" and rule.frame != ROWS_FRAME:
                raise ValueError(
                    f"suite {self.family}: quarantine rule {rule.name} must run on the rows frame"
                )
            if rule.kind == "structural":
                raise ValueError(f"suite {self.family}: {rule.name}: the structural rule is built in")
            if rule.frame in screened and not _range_of_sql(rule):
                raise ValueError(
                    f"suite {self.family}: {rule.name}: a screened frame's rules are ranges (between) of a "
                    "column or of a SQL expression of its columns"
                )
            if rule.sparse_lookup and (len(rule.derived) > 1 or rule.breakdown):
                raise ValueError(
                    f"suite {self.family}: {rule.name}: a rule on a sparse lookup runs on the lookup's rows "
                    "alone: it can have no other derived column and no breakdown"
                )

    @property
    def structural_rule(self) -> Rule:
        return Rule(
            STRUCTURAL_RULE,
            "structural",
            "The raw relation has every expected column with its expected type (a missing column or a "
            "changed type fails the check and blocks downstream assets).",
            pair_equal("found_type", "expected_type"),
            frame=SCHEMA_FRAME,
            columns=("found_type", "expected_type"),
        )

    @property
    def all_rules(self) -> tuple[Rule, ...]:
        return (self.structural_rule, *self.rules)

    def rule(self, name: str) -> Rule:
        for r in self.all_rules:
            if r.name == name:
                return r
        raise KeyError(f"suite {self.family} has no rule {name!r}")

    def frame(self, name: str) -> Frame | None:
        return next((f for f in self.frames if f.name == name), None)

    def rules_on(self, frame: str) -> tuple[Rule, ...]:
        return tuple(r for r in self.all_rules if r.frame == frame)

    def deps(self, rule: Rule) -> tuple[str, ...]:
        custom = self.frame(rule.frame)
        return custom.deps if custom else ()


def table_columns(schema_columns: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Expected raw columns of a table-layout family: each schema column (a TIMESTAMP ``x`` also has its
    ``x_utc_offset`` text), then the provenance columns every raw row carries."""
    out: dict[str, str] = {}
    for name, type_ in schema_columns:
        out[name] = type_
        if type_ == "TIMESTAMP":
            out[f"{name}_utc_offset"] = "VARCHAR"
    return {**out, **PROVENANCE_COLUMNS}
