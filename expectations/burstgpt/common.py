"""Rules shared by the BurstGPT request files (``BurstGPT_<n>.csv``) and their ``without_fails`` twins
(DATASETS.md §2): token arithmetic, known Model / Log Type values, time order within a file, and file 3's
Session ID shape.
"""

from __future__ import annotations

from expectations.rules import FAMILY_FRAME, Rule, between, in_set, not_in_set, null, table_columns
from pipelines.families.schemas import REQUESTS

COLUMNS = table_columns([(c.raw_name, c.type) for c in REQUESTS.columns])
MODELS = ("ChatGPT", "GPT-4")
LOG_TYPES = ("Conversation log", "API log")
SESSION_FILE_PATTERN = r"(^|/)BurstGPT(_without_fails)?_3\.csv$"  # file 3 has Session ID and Elapsed time
UUID_PATTERN = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

SESSION_ID_PROBLEM_SQL = f"""case
    when not regexp_matches(_source_file, '{SESSION_FILE_PATTERN}') then null
    when log_type = 'Conversation log' and (session_id is null or not regexp_full_match(session_id, '{UUID_PATTERN}'))
        then 'conversation row without a UUID'
    when log_type = 'API log' and session_id is not null then 'API-log row with a session id'
    end"""


def request_rules() -> tuple[Rule, ...]:
    return (
        Rule(
            "total_is_request_plus_response",
            "quarantine",
            "Total tokens = Request tokens + Response tokens (held on every row of the real files).",
            between("total_minus_parts", min_value=0, max_value=0),
            derived={"total_minus_parts": "total_tokens - (request_tokens + response_tokens)"},
            columns=("request_tokens", "response_tokens", "total_tokens"),
        ),
        Rule(
            "tokens_not_negative",
            "quarantine",
            "Token counts are never negative.",
            between("min_tokens", min_value=0),
            derived={"min_tokens": "least(request_tokens, response_tokens, total_tokens)"},
            columns=("request_tokens", "response_tokens", "total_tokens"),
        ),
        Rule(
            "timestamp_not_backwards",
            "flag",
            "Timestamp never goes backwards within a file, in line order (rows sharing a second are fine).",
            between("timestamp_step_s", min_value=0),
            frame=FAMILY_FRAME,
            derived={
                "timestamp_step_s": "timestamp_s - lag(timestamp_s) over (partition by _source_file "
                "order by _row_number)"
            },
            columns=("timestamp_s",),
        ),
        Rule(
            "model_documented",
            "flag",
            f"Model is {' or '.join(MODELS)}; other values are kept.",
            in_set("model", MODELS),
            columns=("model",),
        ),
        Rule(
            "log_type_documented",
            "flag",
            f"Log Type is {' or '.join(LOG_TYPES)}; other values are kept.",
            in_set("log_type", LOG_TYPES),
            columns=("log_type",),
        ),
        Rule(
            "session_id_matches_log_type",
            "flag",
            "File 3: Session ID is a UUID on conversation rows and empty on every API-log row.",
            null("session_id_problem"),
            derived={"session_id_problem": SESSION_ID_PROBLEM_SQL},
            columns=("log_type", "session_id"),
        ),
    )


def failed_request_rule(name: str, description: str) -> Rule:
    """A failed request has Response tokens = 0 (there is no flag column; the real failures are ``0,0,0``)."""
    return Rule(
        name,
        "flag",
        description,
        not_in_set("response_tokens", [0]),
        columns=("request_tokens", "response_tokens", "total_tokens"),
    )
