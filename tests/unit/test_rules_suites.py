"""The suites as data: one per file family, stable snake_case rule names, kinds, frames, and each rule one
registered Great Expectations expectation."""

from __future__ import annotations

import re

import pytest

from expectations import SUITES, suite_for
from expectations.rules import ROWS_FRAME, STRUCTURAL_RULE, Frame, Lookup, Rule, Suite, between, in_set
from pipelines.families.registry import FAMILIES

KINDS = {"structural", "quarantine", "flag", "duplicate"}


SUITE_FAMILIES = sorted(f.key for f in FAMILIES)


def test_one_suite_per_family() -> None:
    """``expectations.SUITES`` and the registry name the same families, each exactly once."""
    assert sorted(suite.family for suite in SUITES) == SUITE_FAMILIES
    for fam in FAMILIES:
        assert suite_for(fam.key).family == fam.key


@pytest.mark.parametrize("family", SUITE_FAMILIES)
def test_rules_are_well_formed(family: str) -> None:
    suite = suite_for(family)
    rules = suite.all_rules
    assert rules[0].name == STRUCTURAL_RULE and rules[0].kind == "structural"
    for rule in rules:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", rule.name), rule.name
        assert rule.kind in KINDS and rule.description.strip()
        assert rule.expect.type.startswith("expect_")
        assert 0.0 <= rule.threshold < 1.0
        if rule.kind == "quarantine":
            assert rule.frame == ROWS_FRAME
    assert "_source_file" in suite.columns and "_row_number" in suite.columns


def test_expectation_types_are_registered_in_great_expectations() -> None:
    from great_expectations.expectations.registry import get_expectation_impl

    types = {r.expect.type for fam in SUITE_FAMILIES for r in suite_for(fam).all_rules}
    assert types == {
        "expect_column_values_to_be_between",
        "expect_column_values_to_be_in_set",
        "expect_column_values_to_not_be_in_set",
        "expect_column_values_to_not_be_null",
        "expect_column_values_to_be_null",
        "expect_column_pair_values_to_be_equal",
    }
    for t in types:
        assert get_expectation_impl(t) is not None


def test_issue_rule_lists_are_complete() -> None:
    def kinds(family: str) -> dict[str, str]:
        return {r.name: r.kind for r in suite_for(family).rules}

    jobs = {
        "job_id_present": "quarantine", "counts_not_negative": "quarantine", "start_not_before_submit": "quarantine",
        "end_not_before_start": "quarantine", "queue_is_start_minus_submit": "quarantine",
        "gpu_time_is_duration_times_gpu_num": "quarantine", "job_id_unique": "duplicate",
        "duration_is_end_minus_start": "flag", "state_documented": "flag", "type_documented": "flag",
        "utc_offset_documented": "flag",
    }  # fmt: skip
    assert kinds("acme__seren_jobs") == jobs
    assert kinds("acme__kalos_jobs") == {
        **jobs, "fail_time_only_on_failed": "flag", "stop_time_only_on_cancelled": "flag"
    }  # fmt: skip
    requests = {
        "total_is_request_plus_response": "quarantine", "tokens_not_negative": "quarantine",
        "timestamp_not_backwards": "flag", "model_documented": "flag", "log_type_documented": "flag",
        "session_id_matches_log_type": "flag",
    }  # fmt: skip
    assert kinds("burstgpt__requests") == {**requests, "request_not_failed": "flag"}
    assert kinds("burstgpt__requests_without_fails") == {
        **requests, "without_fails_has_no_failures": "flag", "without_fails_is_full_minus_failures": "flag"
    }  # fmt: skip
    utilization = {
        "series_name_known": "quarantine", "series_not_pod_name": "flag", "time_on_15s_grid": "flag",
        "time_not_duplicated": "duplicate", "percentage_within_0_100": "flag",
    }  # fmt: skip
    assert kinds("acme__gpu_metrics") == {
        **utilization, "power_within_physical_range": "flag", "temperature_within_physical_range": "flag",
        "clock_within_physical_range": "flag", "fb_used_plus_free_is_80gib": "flag",
    }  # fmt: skip
    assert kinds("acme__node_metrics") == {**utilization, "cpu_utilization_within_0_100": "flag"}
    for family in ("acme__helios_jobs", "acme__philly_jobs", "acme__pai_jobs"):
        assert kinds(family) == {
            "duration_not_negative": "quarantine", "gpu_num_not_negative": "quarantine",
            "queue_not_negative": "quarantine", "state_in_mapped_set": "flag",
        }  # fmt: skip
    assert kinds("acme__ipmi_power") == {
        "server_type_derivable": "flag",
        "power_within_physical_range": "flag",
    }
    assert kinds("acme__cluster_summary") == {"summary_job_counts_match_job_files": "flag"}


def test_seren_structural_columns_follow_the_raw_schema() -> None:
    cols = suite_for("acme__seren_jobs").columns
    assert cols["job_id"] == "BIGINT" and cols["gpu_time"] == "DOUBLE"
    assert cols["submit_time"] == "TIMESTAMP" and cols["submit_time_utc_offset"] == "VARCHAR"
    assert suite_for("acme__kalos_jobs").columns["job_id"] == "VARCHAR"
    assert suite_for("acme__gpu_metrics").row_index == ("_source_file", "_row_number", "series")


def test_suite_refuses_inconsistent_rules() -> None:
    quarantine_on_family = Rule("x", "quarantine", "d", between("a", 0), frame="family")
    with pytest.raises(ValueError, match="quarantine rule x must run on the rows frame"):
        Suite("fam", {}, (quarantine_on_family,))
    twice = Rule("y", "flag", "d", between("a", 0))
    with pytest.raises(ValueError, match="rule name\\(s\\) used twice: y"):
        Suite("fam", {}, (twice, twice))
    with pytest.raises(ValueError, match="unknown frame 'nowhere'"):
        Suite("fam", {}, (Rule("z", "flag", "d", between("a", 0), frame="nowhere"),))
    copies = Lookup(str, ("k",), default="1", sparse=True)
    with pytest.raises(ValueError, match="w: a rule on a sparse lookup"):
        Suite("fam", {}, (Rule("w", "flag", "d", between("c", 0), derived={"c": copies}, breakdown="c"),))
    with pytest.raises(ValueError, match="v: a rule on a sparse lookup"):
        Suite("fam", {}, (Rule("v", "flag", "d", between("c", 0), derived={"c": copies, "e": "1"}),))
    screened = Frame("pairs", "partition", lambda _src: "select 1 as a", screened=True)
    with pytest.raises(ValueError, match="u: a screened frame's rules are ranges"):
        Suite("fam", {}, (Rule("u", "flag", "d", in_set("a", ["x"]), frame="pairs"),), frames=(screened,))
    with pytest.raises(ValueError, match="t: a screened frame's rules are ranges"):
        Suite(
            "fam",
            {},
            (Rule("t", "flag", "d", between("c", 0), derived={"c": copies}, frame="pairs"),),
            (screened,),
        )
    Suite(
        "fam",
        {},
        (Rule("s", "flag", "d", between("c", 0), derived={"c": "a + 1"}, frame="pairs"),),
        (screened,),
    )
