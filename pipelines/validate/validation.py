"""Validate one file family: run its suite over the raw lake, write its quarantine, sum up the findings.

Order: the structural rule first (one row per Parquet file and expected column; if it fails nothing else
runs — the check blocks downstream). Then the ``rows`` frame in batches of one source file over consecutive
partitions, at most ``BATCH_ROWS`` rows (or one file-partition) each, so memory stays bounded: quarantine
rules return every violating row, the other rules counts and a few samples; each partition's quarantine
file is then replaced and its reconciliation recorded (``loaded = passed + quarantined``). Then the
partition-scope custom frames, one partition at a time; last, the family-wide frames (repeated ids, time
order within a file, cross-file comparisons), which read only the columns they need.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow.parquet as pq

from expectations import suite_for
from expectations.rules import FAMILY_FRAME, ROWS_FRAME, SCHEMA_FRAME, Rule, Suite
from pipelines.lake import quarantine
from pipelines.settings import Settings
from pipelines.validate import gx_suites
from pipelines.validate.data_docs import DocsCollector, publish
from pipelines.validate.frames import (
    FrameError,
    Sources,
    connect,
    family_relation,
    fetch,
    files_relation,
    frame_sql,
    partition_files,
    schema_frame,
)
from pipelines.validate.outcomes import FamilyValidation, PartitionCount, RuleOutcome

Log = Callable[[str], None]
_log = logging.getLogger(__name__)
# Low-cardinality text columns held as pandas categoricals (besides the frame's key columns).
_CATEGORICAL = ("metric", "cluster", "time_utc_offset")
PARTITION_COLUMN = "_partition"
# Rows per batch of the rows frame: a batch is one source file's Parquet files of consecutive partitions
# (GX has a fixed cost of tens of milliseconds per validation, too much for thousands of small partitions).
BATCH_ROWS = 2_000_000


def file_batches(parts: dict[str, list[Path]], max_rows: int = BATCH_ROWS) -> list[list[tuple[str, Path]]]:
    """Group the lake's Parquet files into batches of one source file (a file name in every partition
    folder) and consecutive partitions, up to ``max_rows`` rows each (a larger file is a batch alone)."""
    by_stem: dict[str, list[tuple[str, Path, int]]] = {}
    for key, files in parts.items():
        for path in files:
            by_stem.setdefault(path.name, []).append((key, path, pq.ParquetFile(path).metadata.num_rows))
    batches: list[list[tuple[str, Path]]] = []
    for stem in sorted(by_stem):
        current: list[tuple[str, Path]] = []
        rows = 0
        for key, path, n in by_stem[stem]:
            if current and rows + n > max_rows:
                batches.append(current)
                current, rows = [], 0
            current.append((key, path))
            rows += n
        if current:
            batches.append(current)
    return batches


@dataclass(frozen=True)
class Batch:
    frame: str
    label: str  # for messages: "file trace_seren.parquet, partition(s) 2023-02…2023-08"
    partition: str | None = None
    source_file: str | None = None  # set when the batch holds one source file's rows


def _text(value: Any) -> str:
    if value is None or value is pd.NA or value is pd.NaT:
        return "null"
    if isinstance(value, float) and math.isnan(value):
        return "null"
    return str(value)


def _key_text(value: Any) -> str:
    """A key value as text, the same whether GX handed it back as text or as a number."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return _text(value)


def detail_rows(
    df: pd.DataFrame, keys: Sequence[dict[str, Any]], rule: Rule, index: Sequence[str]
) -> pd.DataFrame:
    """The frame rows GX reported (by their index columns), as key columns plus ``details`` text."""
    cols = list(index)
    if not keys:
        return pd.DataFrame(columns=[*cols, "details"])
    wanted = {tuple(_key_text(k.get(c)) for c in cols) for k in keys}
    subset = df
    if "_row_number" in cols:
        numbers = {int(float(k["_row_number"])) for k in keys if k.get("_row_number") is not None}
        subset = df[df["_row_number"].isin(numbers)]
    tuples = [tuple(_key_text(v) for v in row) for row in subset[cols].itertuples(index=False, name=None)]
    subset = subset[[t in wanted for t in tuples]]
    shown = [c for c in rule.detail_columns if c in subset.columns and c not in cols]
    out = pd.DataFrame({c: [_text(v) for v in subset[c]] for c in cols})
    if "_row_number" in cols:
        out["_row_number"] = subset["_row_number"].astype("int64").to_numpy()
    values = [[f"{c}={_text(v)}" for v in subset[c]] for c in shown]
    out["details"] = [" ".join(parts) for parts in zip(*values, strict=True)] if values else ""
    return out.sort_values(cols, kind="stable").reset_index(drop=True)


class _Run:
    """The state of one family's validation."""

    def __init__(self, settings: Settings, suite: Suite, con: duckdb.DuckDBPyConnection, log: Log) -> None:
        self.settings = settings
        self.suite = suite
        self.con = con
        self.log = log
        self.outcomes = {r.name: RuleOutcome(r) for r in suite.all_rules}
        self.docs = DocsCollector(suite.family)

    def fetch(self, sql: str, frame: str, index: Sequence[str], batch_label: str) -> pd.DataFrame:
        try:
            return fetch(self.con, sql, categorical=[*index, *_CATEGORICAL])
        except duckdb.Error as exc:
            raise FrameError(f"{self.suite.family}: frame {frame}, {batch_label}: {exc}") from exc

    def run_batch(
        self, df: pd.DataFrame, rules: Sequence[Rule], index: Sequence[str], batch: Batch
    ) -> pd.DataFrame:
        """Validate one batch; returns its quarantine rows (key columns, rule, details)."""
        quarantined: list[pd.DataFrame] = []
        groups = (
            ("quarantine", [r for r in rules if r.kind == "quarantine"]),
            ("checks", [r for r in rules if r.kind != "quarantine"]),
        )
        for group_name, group in groups:
            if not group:
                continue
            complete = group_name == "quarantine"
            name = f"{self.suite.family}.{batch.frame}.{group_name}"
            result = gx_suites.validate(df, name, group, index, complete=complete)
            self.docs.add(batch.frame, group, result)
            by_name = {r.name: r for r in group}
            for r in result.results:
                rule = by_name[str(r.expectation_config.meta["rule"])]
                rows = self._record(rule, r, df, index, batch, complete)
                if complete and len(rows):
                    quarantined.append(rows.assign(rule=rule.name))
        if not quarantined:
            return pd.DataFrame()
        return pd.concat(quarantined, ignore_index=True)

    def _record(
        self, rule: Rule, r: Any, df: pd.DataFrame, index: Sequence[str], batch: Batch, complete: bool
    ) -> pd.DataFrame:
        out = self.outcomes[rule.name]
        info = r.exception_info or {}
        if info.get("raised_exception"):
            out.errors.append(f"{batch.label}: {info.get('exception_message')}")
            return pd.DataFrame()
        stats = dict(r.result or {})
        found = int(stats.get("unexpected_count") or 0)
        out.count += found
        out.evaluated += int(stats.get("element_count") or 0)
        out.batches += 1
        if rule.breakdown and rule.breakdown in df.columns:
            counts = (
                df[rule.breakdown].astype(object).where(df[rule.breakdown].notna(), "(null)").value_counts()
            )
            out.breakdown.update({str(k): int(v) for k, v in counts.items()})
        if not found:
            return pd.DataFrame()
        if batch.partition is not None:
            out.partitions.add(batch.partition)
        if batch.source_file is not None:
            out.by_file[batch.source_file] += found
        keys = stats.get("unexpected_index_list") if complete else stats.get("partial_unexpected_index_list")
        rows = detail_rows(df, list(keys or []), rule, index)
        if complete and PARTITION_COLUMN in rows.columns:
            out.partitions.update(rows[PARTITION_COLUMN])
        room = gx_suites.SAMPLE_ROWS - len(out.samples)
        if room > 0:
            out.samples += [
                {k: _text(v) for k, v in row.items()} for row in rows.head(room).to_dict("records")
            ]
        return rows

    # -- the three stages -------------------------------------------------------------------------
    def structural(self, files: Sequence[Path]) -> None:
        df = schema_frame(self.con, self.settings, files, dict(self.suite.columns))
        rules = self.suite.rules_on(SCHEMA_FRAME)
        self.run_batch(df, rules, ("file", "column"), Batch(SCHEMA_FRAME, "schema of every Parquet file"))

    def rows_frames(self, parts: dict[str, list[Path]]) -> list[PartitionCount]:
        """The ``rows`` frame, batch by batch; then each partition's quarantine file and reconciliation."""
        family = self.suite.family
        index = (*self.suite.row_index, PARTITION_COLUMN)
        rules = self.suite.rules_on(ROWS_FRAME)
        loaded: Counter[str] = Counter()
        found: list[pd.DataFrame] = []
        for chunk in file_batches(parts):
            keys = [key for key, _ in chunk]
            label = f"file {chunk[0][1].name}, partition(s) {keys[0]}" + (
                f"…{keys[-1]}" if len(keys) > 1 else ""
            )
            src = Sources(self.con, self.settings, files_relation([path for _, path in chunk], hive=True))
            sql = frame_sql(self.suite, ROWS_FRAME, rules, src, index=index)
            assert sql is not None
            df = self.fetch(sql, ROWS_FRAME, index, label)
            loaded.update({str(k): int(v) for k, v in df[PARTITION_COLUMN].value_counts().items()})
            if len(df) and rules:
                batch = Batch(ROWS_FRAME, label, None, str(df["_source_file"].iloc[0]))
                found.append(self.run_batch(df, rules, index, batch))
        rows = (
            pd.concat([f for f in found if len(f)], ignore_index=True) if any(len(f) for f in found) else None
        )
        counts = []
        for key in parts:
            mine = rows[rows[PARTITION_COLUMN] == key] if rows is not None else pd.DataFrame()
            quarantined = quarantine.write_partition(self.settings, family, key, mine)
            counts.append(PartitionCount(key, loaded[key], quarantined))
            if quarantined:
                self.log(f"{family}: partition {key}: {quarantined:,} of {loaded[key]:,} rows quarantined")
        return counts

    def partition_frames(self, parts: dict[str, list[Path]]) -> None:
        """Custom frames of partition scope (e.g. FB_USED beside FB_FREE), one partition at a time."""
        for frame in (f for f in self.suite.frames if f.scope == "partition"):
            rules = self.suite.rules_on(frame.name)
            if not rules:
                continue
            for key, files in parts.items():
                src = Sources(self.con, self.settings, files_relation(files))
                sql = frame_sql(self.suite, frame.name, rules, src)
                if sql is None:
                    continue
                label = f"partition {key}"
                df = self.fetch(sql, frame.name, frame.index, label)
                self.run_batch(df, rules, frame.index, Batch(frame.name, label, key))

    def family_frames(self) -> None:
        relation = family_relation(self.settings, self.suite.family)
        if relation is None:
            return
        frames = [(FAMILY_FRAME, self.suite.row_index)] + [
            (f.name, f.index) for f in self.suite.frames if f.scope == "family"
        ]
        for name, index in frames:
            rules = self.suite.rules_on(name)
            if not rules:
                continue
            src = Sources(self.con, self.settings, relation)
            sql = frame_sql(self.suite, name, rules, src)
            if sql is None:
                custom = self.suite.frame(name)
                deps = ", ".join(custom.deps) if custom else ""
                for rule in rules:
                    self.outcomes[rule.name].note = f"nothing to compare: no rows loaded in {deps}"
                continue
            df = self.fetch(sql, name, index, "whole family")
            self.run_batch(df, rules, index, Batch(name, "whole family"))


def validate_family(
    settings: Settings, family: str, *, log: Log | None = None, publish_docs: bool = True
) -> FamilyValidation:
    """Run ``family``'s suite over its raw lake; writes ``lake/quarantine/<family>/`` and the Data Docs."""
    started = time.monotonic()
    say: Log = log or _log.info
    suite = suite_for(family)
    parts = partition_files(settings, family)
    con = connect(settings)
    run = _Run(settings, suite, con, say)
    result = FamilyValidation(family, run.outcomes)
    try:
        if not parts:
            for outcome in run.outcomes.values():
                outcome.note = f"no rows: lake/raw/{family}/ has no Parquet files"
        else:
            run.structural([f for files in parts.values() for f in files])
            if not result.structural_passed:
                for outcome in run.outcomes.values():
                    if outcome.rule.kind != "structural":
                        outcome.blocked = True
                        outcome.note = "not evaluated: the structural rule failed"
            else:
                result.partitions = run.rows_frames(parts)
                run.partition_frames(parts)
                run.family_frames()
        removed = quarantine.remove_stale_partitions(settings, family, list(parts))
        if removed:
            say(f"{family}: dropped the quarantine of vanished partition(s) {', '.join(removed)}")
    finally:
        con.close()
    if publish_docs and run.docs.pages:
        try:
            published = publish(settings, run.docs)
            result.docs_index, result.docs_pages = published.index, published.pages
        except Exception as exc:  # the findings stand even when the docs cannot be rendered
            result.docs_error = f"{type(exc).__name__}: {exc}"
            say(f"{family}: Data Docs not published: {result.docs_error}")
    result.seconds = time.monotonic() - started
    return result
