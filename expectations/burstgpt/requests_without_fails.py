"""Suite of ``burstgpt__requests_without_fails`` (``BurstGPT_without_fails_<n>.csv``, the twins).

Besides the request rules: no failure may be left in a without-fails file, and each twin must equal its
full file minus the failure rows (cross-file). The cross-file comparison is per file number: the count of
rows and an order-aware content hash of the non-time columns (Model, tokens, Log Type, Session ID) of the
full file's non-failed rows against the twin's rows. A file number present in only one family is not
compared.
"""

from __future__ import annotations

from expectations.burstgpt.common import COLUMNS, failed_request_rule, request_rules
from expectations.rules import Frame, FrameSources, Rule, Suite, null

FULL_FAMILY = "burstgpt__requests"
CONTENT_COLUMNS = ("model", "request_tokens", "response_tokens", "total_tokens", "log_type", "session_id")


def _digest(rel: str, file_pattern: str, where: str) -> str:
    cols = ", ".join(CONTENT_COLUMNS)
    return (
        f"select file_number, min(_source_file) as file, count(*) as n, "
        f"bit_xor(hash(position, {cols})) as x, sum(hash(position, {cols})::hugeint) as s from ("
        f"select regexp_extract(_source_file, '{file_pattern}', 1) as file_number, _source_file, {cols}, "
        "row_number() over (partition by _source_file order by _row_number) as position "
        f"from {rel} where {where}) group by file_number"
    )


def twins_sql(src: FrameSources) -> str | None:
    full = src.family(FULL_FAMILY)
    if full is None:
        return None
    full_digest = _digest(full, r"BurstGPT_([0-9]+)\.csv$", "response_tokens is distinct from 0")
    twin_digest = _digest(src.rows, r"BurstGPT_without_fails_([0-9]+)\.csv$", "true")
    return (
        "select t.file as _source_file, t.file_number, f.file as full_file, f.n as full_rows_not_failed, "
        "t.n as twin_rows, case when t.n <> f.n then 'row counts differ' "
        "when t.x <> f.x or t.s <> f.s then 'same row count, different rows' end as twin_difference "
        f"from ({twin_digest}) t join ({full_digest}) f using (file_number)"
    )


TWINS = Frame(
    "twins",
    "family",
    twins_sql,
    index=("_source_file", "file_number"),
    deps=(FULL_FAMILY,),
    description="one row per file number loaded in both families: row counts and content hashes",
)

SUITE = Suite(
    family="burstgpt__requests_without_fails",
    columns=COLUMNS,
    rules=(
        *request_rules(),
        failed_request_rule(
            "without_fails_has_no_failures",
            "A without-fails file holds no failed request (Response tokens = 0).",
        ),
        Rule(
            "without_fails_is_full_minus_failures",
            "flag",
            "BurstGPT_without_fails_<n>.csv equals BurstGPT_<n>.csv minus its failed rows, line for line "
            "(row count and content of the non-time columns).",
            null("twin_difference"),
            frame="twins",
            columns=("file_number", "full_file", "full_rows_not_failed", "twin_rows"),
        ),
    ),
    frames=(TWINS,),
)
