"""What a family's validation found: per rule, per partition, and where the Data Docs are."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from expectations.rules import Rule


@dataclass
class RuleOutcome:
    """One rule's findings, summed over every batch it ran on."""

    rule: Rule
    count: int = 0  # violating rows (for duplicate rules: the extra copies)
    evaluated: int = 0  # rows of the frames the rule ran on
    batches: int = 0
    samples: list[dict[str, str]] = field(default_factory=list)  # ≤ SAMPLE_ROWS rows: key columns + details
    by_file: Counter[str] = field(default_factory=Counter)  # violating rows per source file (rows frame)
    breakdown: Counter[str] = field(default_factory=Counter)  # value counts of rule.breakdown over all rows
    partitions: set[str] = field(default_factory=set)  # partitions with at least one violation
    note: str = ""  # why the rule was not evaluated (or evaluated on nothing)
    blocked: bool = False  # not evaluated because the structural rule failed
    errors: list[str] = field(
        default_factory=list
    )  # the expectation raised (names file/partition and message)

    @property
    def rate(self) -> float:
        return self.count / self.evaluated if self.evaluated else 0.0

    @property
    def passed(self) -> bool:
        if self.blocked or self.errors:
            return False
        if self.rule.kind == "structural":
            return self.count == 0
        return self.rate <= self.rule.threshold


@dataclass
class PartitionCount:
    """Reconciliation of one partition: ``loaded = passed + quarantined`` (raw rows)."""

    key: str
    loaded: int
    quarantined: int

    @property
    def passed(self) -> int:
        return self.loaded - self.quarantined


@dataclass
class FamilyValidation:
    family: str
    outcomes: dict[str, RuleOutcome]
    partitions: list[PartitionCount] = field(default_factory=list)
    docs_index: str | None = None  # file:// URL of the Data Docs index
    docs_pages: dict[str, str] = field(default_factory=dict)  # GX suite name → file:// URL of its page
    docs_error: str | None = None
    seconds: float = 0.0
    units_validated: int = (
        0  # units (lake files: a source file's partition or an appended part) validated this run
    )
    units_reused: int = 0  # units whose stored result still held
    frames_validated: list[str] = field(default_factory=list)  # custom/family frame batches validated

    @property
    def loaded(self) -> int:
        return sum(p.loaded for p in self.partitions)

    @property
    def quarantined(self) -> int:
        return sum(p.quarantined for p in self.partitions)

    @property
    def passed(self) -> int:
        return sum(p.passed for p in self.partitions)

    @property
    def structural_passed(self) -> bool:
        return all(o.passed for o in self.outcomes.values() if o.rule.kind == "structural")

    def findings(self) -> dict[str, int]:
        """Rule name → count, for every rule that found something (what "exactly these findings" means)."""
        return {name: o.count for name, o in self.outcomes.items() if o.count}
