"""Validate one file family: its suite as SQL inside DuckDB, only where something changed.

Order: the structural rule first, on the schema of every changed unit (one source file's rows in one
partition, ``units.py``); if any unit fails it nothing else runs (the check blocks downstream). Then the
``rows`` frame over every changed unit at once: one GX validation, whose per-expectation queries give the
per-unit counts, samples and quarantine rows (``gx_suites.py``); each changed unit's quarantine file is
replaced. Then partition-scope custom frames, one changed partition at a time, and the family-scope frames
(repeated ids, time order within a file, cross-file comparisons) when anything they read changed.

Every result is stored (``results_store.py``) under a key of the suite version and the content hashes it
read; a unit, partition or family frame whose key is unchanged is not validated again and its stored counts
count in the checks and in the Data Docs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from expectations import suite_for
from expectations.rules import FAMILY_FRAME, ROWS_FRAME, SCHEMA_FRAME, Rule, Suite
from pipelines.lake import quarantine
from pipelines.lake.relation import FILE_COLUMN, PARTITION_COLUMN, ident
from pipelines.settings import Settings
from pipelines.validate import data_docs, results_store
from pipelines.validate.data_docs import DocsCollector, index_url
from pipelines.validate.findings import Findings, shown_columns, text, violating_rows_sql
from pipelines.validate.frames import (
    FrameError,
    Sources,
    counted_relation,
    custom_frame_sql,
    family_relation,
    files_relation,
    frame_sql,
    row_source,
    schema_sql,
    sparse_frame_sql,
    sparse_groups,
)
from pipelines.validate.gx_suites import SAMPLE_ROWS, LakeSession, unexpected_rows_query
from pipelines.validate.outcomes import FamilyValidation, PartitionCount, RuleOutcome
from pipelines.validate.quarantine_rows import write_units
from pipelines.validate.results_store import FamilyResults, Record, RuleCounts
from pipelines.validate.units import Unit, family_units, inputs_key
from pipelines.validate.versions import frame_version, unit_version

Log = Callable[[str], None]
_log = logging.getLogger(__name__)
SCHEMA_INDEX = ("unit", "file", "column")


class _Run:
    """The state of one family's validation."""

    def __init__(
        self, settings: Settings, suite: Suite, session: LakeSession, stored: FamilyResults, log: Log
    ) -> None:
        self.settings = settings
        self.suite = suite
        self.session = session
        self.stored = stored
        self.log = log
        self.docs = DocsCollector(suite.family)
        self.errors: dict[str, list[str]] = {}
        self.evaluated: list[str] = []  # what was validated this run: unit ids and frame records
        # Tables of a quarantine rule's violating rows, kept in the session's catalog. Another rule's rows are
        # only sampled and counted per file, each by its query (a filter that skips the files it cannot match):
        # writing out a common flag's rows (21 M pod-named Kalos SM_ACTIVE samples in two real-width days)
        # took 40 times longer than counting them.
        self.kept: list[str] = []

    # -- one GX validation and what its results say -------------------------------------------------
    def _validate(
        self,
        view: str,
        frame: str,
        rules: Sequence[Rule],
        index: Sequence[str],
        label: str,
        rows_of: str | None = None,
        new_batch: bool = True,
    ) -> list[Findings]:
        columns = list(self.session.columns(view))
        derived = {name for r in rules for name in r.derived}
        raw_details = [c for r in rules for c in r.detail_columns if c in columns and c not in derived]
        reported = list(dict.fromkeys([*index, *raw_details]))  # + GX adds each rule's own column
        name = f"{self.suite.family}.{frame}"
        version = frame_version(self.suite, frame)
        result = self.session.validate(view, name, version, rules, reported, rows_of)
        self.docs.add(frame, rules, result, version, new_batch)
        by_name = {r.name: r for r in rules}
        out = []
        for r in result.results:
            rule = by_name[str(r.expectation_config.meta["rule"])]
            info = r.exception_info or {}
            stats = dict(r.result or {})
            found = Findings(
                rule,
                int(stats.get("unexpected_count") or 0),
                int(stats.get("element_count") or 0),
                None,
                tuple(index),
            )
            if info.get("raised_exception"):
                found.error = f"{label}: {info.get('exception_message')}"
                self.errors.setdefault(rule.name, []).append(found.error)
            elif found.count:
                query = unexpected_rows_query(r)
                if query is None:
                    found.error = f"{label}: GX returned no query for the violating rows"
                    self.errors.setdefault(rule.name, []).append(found.error)
                else:
                    found.columns = shown_columns(found, self.session.columns(f"({query})"))
                    picked = ", ".join(ident(c) for c in found.columns)
                    found.query = f"select {picked} from ({query})"
                    if rule.kind == "quarantine":  # its rows are written out too: computed once, kept
                        found.query = self.session.keep(f"violating_{len(self.kept)}", found.query)
                        self.kept.append(found.query)
                    found.samples = self._samples(found)
            out.append(found)
        return out

    def _samples(self, found: Findings) -> list[dict[str, str]]:
        keys = ", ".join(ident(c) for c in found.index)
        rows = self.session.rows(
            f"select * from ({violating_rows_sql(found)}) order by {keys} limit {SAMPLE_ROWS}"
        )
        return [{k: text(v) for k, v in row.items()} for row in rows]

    def _split(self, found: Findings, by: Sequence[str]) -> None:
        """Per-key counts of a rule's violating rows (``by``: the columns naming a unit or partition)."""
        if not found.count or found.query is None:
            return
        cols = ", ".join(ident(c) for c in by)
        rows = self.session.rows(f"select {cols}, count(*) as n from ({found.query}) group by all")
        found.per_key = {tuple(str(r[c]) for c in by): int(r["n"]) for r in rows}

    def _view(self, frame: str, sql: str, label: str) -> str:
        try:
            return self.session.view(f"frame_{frame}", sql)
        except Exception as exc:  # a binding error names the family, the frame and the batch
            reason = getattr(exc, "orig", None) or exc  # DuckDB's message, not SQLAlchemy's copy of the SQL
            raise FrameError(f"{self.suite.family}: frame {frame}, {label}: {reason}") from exc

    def _sources(self, relation: str, paths: Sequence[Path] | None) -> Sources:
        """What a frame reads: ``relation`` and the lines and series the load counted of its files."""
        family = self.suite.family
        return Sources(
            self.session, self.settings, relation,
            counted_relation(self.settings, family, "lines", paths),
            counted_relation(self.settings, family, "series", paths),
        )  # fmt: skip

    # -- units: the schema and rows frames ----------------------------------------------------------
    def structural(self, units: Sequence[Unit]) -> dict[str, Record]:
        """The structural rule on the changed units; returns a record per unit (its structural counts)."""
        rule = self.suite.structural_rule
        sql = schema_sql(units, dict(self.suite.columns), self.settings.lake_dir)
        view = self._view(SCHEMA_FRAME, sql, "schema of the changed files")
        (found,) = self._validate(view, SCHEMA_FRAME, [rule], SCHEMA_INDEX, "schema of the changed files")
        self._split(found, ("unit",))
        per_unit = len(self.suite.columns)
        records = {}
        for unit in units:
            count = found.per_key.get((unit.id,), 0)
            samples = [s for s in found.samples if s.get("unit") == unit.id]
            records[unit.id] = Record("", {rule.name: RuleCounts(count, per_unit, samples)})
        return records

    def rows(self, units: Sequence[Unit], records: dict[str, Record]) -> None:
        """The ``rows`` frame over the changed units at once; fills their records and quarantine files. A row
        names its unit by its Parquet file (``FILE_COLUMN``): a source file's partition may have parts."""
        rules = self.suite.rules_on(ROWS_FRAME)
        joined, sparse = sparse_groups(rules)
        index = (*self.suite.row_index, PARTITION_COLUMN, FILE_COLUMN)
        paths = [u.path for u in units]
        scan = files_relation(paths, hive=True, file_column=True)
        src = self._sources(scan, paths)
        label = f"{len(units)} changed unit(s)"
        view = self._view(ROWS_FRAME, frame_sql(self.suite, ROWS_FRAME, joined, src, index=index), label)
        findings = self._validate(view, ROWS_FRAME, joined, index, label, row_source(src)) if joined else []
        for (name, lookup), group in sparse.items():  # counted against every row of the batch (``scan``)
            sql = sparse_frame_sql(name, lookup, group, src, index)
            lookup_view = self._view(f"{ROWS_FRAME}_{name}", sql, label)
            findings += self._validate(lookup_view, ROWS_FRAME, group, index, label, scan, new_batch=False)
        rows_of = self._unit_rows(view, units, findings)
        for found in findings:
            if len(units) > 1:
                self._split(found, (FILE_COLUMN,))
            elif found.count:
                found.per_key = {(units[0].file,): found.count}
        breakdowns = {r.name: self._breakdown(view, r) for r in joined if r.breakdown}
        quarantining = [f for f in findings if f.rule.kind == "quarantine"]
        quarantined = write_units(self.settings, self.suite.family, self.session, units, quarantining)
        for unit in units:
            key = (unit.file,)
            record = records[unit.id]
            for found in findings:
                mine = [_without_file(s) for s in found.samples if s.get(FILE_COLUMN) == unit.file]
                counts = RuleCounts(found.per_key.get(key, 0), rows_of[unit.file], mine)
                counts.breakdown = breakdowns.get(found.rule.name, {}).get(unit.file, {})
                record.rules[found.rule.name] = counts
            record.quarantined = quarantined.get(unit.file, 0)
            if quarantined.get(unit.file):
                self.log(
                    f"{self.suite.family}: {unit.id}: {quarantined[unit.file]:,} of {rows_of[unit.file]:,} rows "
                    "quarantined"
                )

    def _unit_rows(self, view: str, units: Sequence[Unit], findings: Sequence[Findings]) -> dict[str, int]:
        """Rows per unit (by file): the lake's recorded counts, checked against GX's element count (counted
        again in the frame when they disagree)."""
        recorded = {u.file: u.rows for u in units}
        total = next((f.evaluated for f in findings if f.error is None), None)
        if total is None or total == sum(recorded.values()):
            return recorded
        rows = self.session.rows(f"select {FILE_COLUMN}, count(*) as n from {view} group by all")
        counted = {str(r[FILE_COLUMN]): int(r["n"]) for r in rows}
        return {key: counted.get(key, 0) for key in recorded}

    def _breakdown(self, view: str, rule: Rule) -> dict[str, dict[str, int]]:
        col = ident(str(rule.breakdown))
        rows = self.session.rows(
            f"select {FILE_COLUMN}, coalesce(cast({col} as varchar), '(null)') as v, "
            f"count(*) as n from {view} group by all"
        )
        out: dict[str, dict[str, int]] = {}
        for r in rows:
            out.setdefault(str(r[FILE_COLUMN]), {})[str(r["v"])] = int(r["n"])
        return out

    # -- custom and family-wide frames --------------------------------------------------------------
    def frame_record(
        self,
        name: str,
        key: str,
        sql: str | None,
        index: Sequence[str],
        note: str,
        label: str,
        rows_of: str | None = None,
    ) -> Record:
        """Validate one custom or family frame (``sql`` None: nothing to compare, with ``note`` why;
        ``rows_of``: the relation whose rows the frame's are, one for one)."""
        rules = self.suite.rules_on(name)
        if sql is None:
            return Record(key, {r.name: RuleCounts() for r in rules}, note=note)
        view = self._view(name, sql, label)
        findings = self._validate(view, name, rules, index, label, rows_of)
        record = Record(key)
        for found in findings:
            record.rules[found.rule.name] = RuleCounts(found.count, found.evaluated, found.samples)
        return record

    def frames(self, batches: Sequence[FrameBatch]) -> None:
        """Validate custom and family frames whose inputs changed; a record replaces the stored one unless
        one of its rules raised (then it is validated again next run)."""
        for batch in batches:
            rules = self.suite.rules_on(batch.frame)
            custom = self.suite.frame(batch.frame)
            index = custom.index if custom else self.suite.row_index
            paths = [u.path for u in batch.members] if batch.members else None
            relation = files_relation(paths) if paths else family_relation(self.settings, self.suite.family)
            src = self._sources(relation or "", paths)
            deps = ", ".join(custom.deps) if custom else ""
            note = f"nothing to compare: no rows loaded in {deps}"
            if custom is None:
                sql, rows_of = frame_sql(self.suite, batch.frame, rules, src), row_source(src)
            else:
                sql, rows_of = custom_frame_sql(custom, rules, src) or (None, None)
            record = self.frame_record(batch.frame, batch.key, sql, index, note, batch.label, rows_of)
            self.evaluated.append(batch.record_id)
            if any(name in self.errors for name in record.rules):
                self.stored.frames.pop(batch.record_id, None)
            else:
                self.stored.frames[batch.record_id] = record


@dataclass(frozen=True)
class FrameBatch:
    """One validation of a custom or family frame: a partition of a partition-scope frame, or the family."""

    record_id: str  # "<frame>" or "<frame>/<partition>"
    frame: str
    key: str  # units.inputs_key of what it reads
    members: tuple[Unit, ...]  # partition scope: the partition's units; family scope: () (every file)
    label: str


def frame_batches(settings: Settings, suite: Suite, units: Sequence[Unit]) -> list[FrameBatch]:
    """Every custom and family frame batch of the family as it is now (stored or not)."""
    out = []
    by_partition: dict[str, list[Unit]] = {}
    for unit in units:
        by_partition.setdefault(unit.partition, []).append(unit)
    for frame in suite.frames:
        if frame.scope != "partition" or not suite.rules_on(frame.name):
            continue
        version = frame_version(suite, frame.name)
        for partition, members in sorted(by_partition.items()):
            key = inputs_key(version, members)
            out.append(
                FrameBatch(
                    f"{frame.name}/{partition}", frame.name, key, tuple(members), f"partition {partition}"
                )
            )
    family_wide = [(FAMILY_FRAME, ())] + [(f.name, f.deps) for f in suite.frames if f.scope == "family"]
    for name, deps in family_wide:
        if units and suite.rules_on(name):
            read = [*units, *(u for dep in deps for u in family_units(settings, dep))]
            out.append(
                FrameBatch(name, name, inputs_key(frame_version(suite, name), read), (), "whole family")
            )
    return out


def _without_file(sample: dict[str, str]) -> dict[str, str]:
    """A sample row as the Data Docs show it: the lake file it was read from is the unit's, said already."""
    return {k: v for k, v in sample.items() if k != FILE_COLUMN}


def _reusable(record: Record | None, key: str) -> bool:
    return record is not None and record.key == key


def _blocked(suite: Suite, unit_ids: Iterable[str], new: dict[str, Record], stored: FamilyResults) -> bool:
    """Whether any unit fails the structural rule (its new record, else its stored one)."""
    for uid in unit_ids:
        record = new.get(uid) or stored.units.get(uid)
        counts = record.rules.get(suite.structural_rule.name) if record else None
        if counts and counts.count:
            return True
    return False


def _outcomes(
    suite: Suite, stored: FamilyResults, units: Sequence[Unit], errors: dict[str, list[str]]
) -> dict[str, RuleOutcome]:
    """Every rule's outcome, summed over the stored records of the current units and frames."""
    outcomes = {r.name: RuleOutcome(r) for r in suite.all_rules}

    def add(name: str, counts: RuleCounts, partition: str | None, source_file: str | None) -> None:
        out = outcomes[name]
        out.count += counts.count
        out.evaluated += counts.evaluated
        out.batches += 1
        if counts.count and partition is not None:
            out.partitions.add(partition)
        if counts.count and source_file is not None:
            out.by_file[source_file] += counts.count
        out.breakdown.update(counts.breakdown)
        out.samples += counts.samples[: SAMPLE_ROWS - len(out.samples)]

    for unit in units:
        record = stored.units.get(unit.id)
        for name, counts in (record.rules if record else {}).items():
            if name in outcomes:
                add(name, counts, unit.partition, unit.source_file)
    for record_id, record in stored.frames.items():
        partition = record_id.split("/", 1)[1] if "/" in record_id else None
        for name, counts in record.rules.items():
            if name in outcomes:
                add(name, counts, partition, None)
                outcomes[name].note = outcomes[name].note or record.note
    for name, messages in errors.items():
        outcomes[name].errors += messages
    return outcomes


def _partition_counts(stored: FamilyResults, units: Iterable[Unit]) -> list[PartitionCount]:
    loaded: dict[str, int] = {}
    quarantined: dict[str, int] = {}
    for unit in units:
        record = stored.units.get(unit.id)
        loaded[unit.partition] = loaded.get(unit.partition, 0) + unit.rows
        quarantined[unit.partition] = quarantined.get(unit.partition, 0) + (
            record.quarantined if record else 0
        )
    return [PartitionCount(key, loaded[key], quarantined[key]) for key in sorted(loaded)]


def validate_family(
    settings: Settings, family: str, *, log: Log | None = None, publish_docs: bool = True
) -> FamilyValidation:
    """Run ``family``'s suite over what changed in its raw lake; writes ``lake/quarantine/<family>/``, the
    stored results, and (``publish_docs``) the Data Docs results of what was validated, whose pages
    ``data_docs.render`` builds once per run."""
    started = time.monotonic()
    say: Log = log or _log.info
    suite = suite_for(family)
    units = family_units(settings, family)
    stored = results_store.load(settings, family)
    if not stored.units and not stored.frames:
        quarantine.clear(settings, family)  # nothing stored: nothing on disk can be trusted either
    version = unit_version(suite)
    keys = {u.id: inputs_key(version, [u]) for u in units}
    changed = [u for u in units if not _reusable(stored.units.get(u.id), keys[u.id])]
    current = {u.id for u in units}
    vanished = sorted(set(stored.units) - current)
    for unit_id in vanished:
        del stored.units[unit_id]
    quarantine.remove_units(settings, family, vanished)
    run_errors: dict[str, list[str]] = {}
    blocked = False
    evaluated: list[str] = []
    docs = None
    batches = frame_batches(settings, suite, units)
    for record_id in set(stored.frames) - {b.record_id for b in batches}:
        del stored.frames[record_id]  # a partition that is gone
    stale = [b for b in batches if not _reusable(stored.frames.get(b.record_id), b.key)]
    if changed or stale:
        with LakeSession(settings, family) as session:
            run = _Run(settings, suite, session, stored, say)
            new = run.structural(changed) if changed else {}
            blocked = _blocked(suite, current, new, stored)
            if not blocked:
                if changed:
                    run.rows(changed, new)
                run.frames(stale)
            for unit in changed:
                record = new[unit.id]
                record.key = keys[unit.id] if not blocked else ""
                if not any(name in run.errors for name in record.rules):
                    stored.units[unit.id] = record
            run_errors, evaluated, docs = run.errors, run.evaluated, run.docs
    else:
        blocked = _blocked(suite, current, {}, stored)
    outcomes = _outcomes(suite, stored, units, run_errors)
    result = FamilyValidation(family, outcomes)
    result.units_validated = len(changed)
    result.units_reused = len(units) - len(changed)
    result.frames_validated = evaluated
    if not units:
        for outcome in outcomes.values():
            outcome.note = f"no rows: lake/raw/{family}/ has no Parquet files"
    elif blocked:
        for outcome in outcomes.values():
            if outcome.rule.kind != "structural":
                outcome.blocked = True
                outcome.note = "not evaluated: the structural rule failed"
    else:
        result.partitions = _partition_counts(stored, units)
    if changed or evaluated:
        say(
            f"{family}: validated {len(changed)} of {len(units)} unit(s) (lake files) and "
            f"{len(evaluated)} frame batch(es); the rest unchanged since their stored results"
        )
    if publish_docs and docs is not None and docs.pages:
        _add_reused_counts(docs, suite, stored, units, {u.id for u in changed})
        try:
            published = data_docs.record(settings, docs)  # rendered once per run: data_docs.render
            stored.docs_pages.update(published.pages)
            result.docs_index = published.index
        except Exception as exc:  # the findings stand even when the docs cannot be rendered
            result.docs_error = f"{type(exc).__name__}: {exc}"
            say(f"{family}: Data Docs not published: {result.docs_error}")
    elif stored.docs_pages:
        result.docs_index = index_url(settings)
    result.docs_pages = dict(stored.docs_pages)
    results_store.save(settings, stored)
    result.seconds = time.monotonic() - started
    return result


def _add_reused_counts(
    docs: DocsCollector, suite: Suite, stored: FamilyResults, units: Sequence[Unit], changed: set[str]
) -> None:
    """The Data Docs page of a frame validated for some units also counts the units it reused."""
    for unit in units:
        record = stored.units.get(unit.id)
        if unit.id in changed or record is None:
            continue
        for name, counts in record.rules.items():
            docs.add_counts(suite.rule(name).frame, name, counts.evaluated, counts.count)
