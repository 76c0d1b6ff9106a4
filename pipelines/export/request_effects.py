"""What a request export's consumer does to the rows written: the sidecar's ``consumer_effects`` for request
formats, each counted in SQL over the rows written (never estimated), by the consumer's own rule.

- ``vidur``: Vidur's ``TraceReplayRequestGenerator`` (microsoft/vidur, checked at 7d47513) clips prefill and
  decode tokens to at least 1, then, where prefill + decode exceeds its ``max_tokens`` (default 4096),
  subtracts the excess from the prefill: a long prompt is trimmed, and a reply longer than the cap leaves a
  prompt of zero or fewer tokens (its assertion still passes).
- ``burstgpt``: vLLM's ``BurstGPTDataset`` (``vllm/benchmarks/datasets.py``) keeps ``Model == "GPT-4"`` and
  ``Response tokens > 0`` and samples the rows it keeps without their ``Timestamp``: arrivals come from
  its own ``--request-rate``/``--burstiness``, so ``--window`` and ``--speed`` only choose rows.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from pipelines.export.effects import effect
from pipelines.export.formats import ExportFormat

VIDUR_MAX_TOKENS = 4096
VIDUR_LIFT = "Vidur's --trace_request_generator_config_max_tokens N, or --max-tokens N (--over-max) here"
VLLM_MODEL = "GPT-4"
request_effect = partial(effect, unit="requests")


def vidur_trim_sql(max_tokens: int) -> str:
    """Per written row, Vidur's trimming at ``max_tokens``: ``excess`` (tokens cut from the prefill) and
    ``prefill_after`` (what Vidur replays), from ``num_prefill_tokens``/``num_decode_tokens`` as it reads them."""
    prefill, decode = "greatest(request_tokens, 1)", "greatest(response_tokens, 1)"
    excess = f"greatest({prefill} + {decode} - {max_tokens}, 0)"
    return f"{excess} as excess, {prefill} - {excess} as prefill_after, {prefill} as prefill"


def _vidur(con, fmt: ExportFormat, ctes: str) -> list[dict[str, Any]]:
    trimmed, lost, prompt_tokens, emptied = con.execute(
        f"{ctes}, trims as (select {vidur_trim_sql(VIDUR_MAX_TOKENS)} from exported) "
        "select count(*) filter (where excess > 0), coalesce(sum(least(excess, prefill)), 0), "
        "coalesce(sum(prefill), 0), count(*) filter (where prefill_after <= 0) from trims"
    ).fetchall()[0]
    if not trimmed:
        return []
    share = 100 * lost / prompt_tokens if prompt_tokens else 0.0
    reason = (
        f"prefill + decode exceeds its default max_tokens {VIDUR_MAX_TOKENS}, so it cuts the excess from the "
        f"prefill: {lost:,} prompt tokens ({share:.1f} %) are lost"
        + (
            f", and {emptied:,} prompts become zero or negative (a reply longer than the cap)"
            if emptied
            else ""
        )
    )
    return [
        request_effect(fmt.consumer, "trims", trimmed, reason, VIDUR_LIFT, prompt_tokens_lost=lost,
               prompts_zero_or_negative=emptied)
    ]  # fmt: skip


def _vllm(con, fmt: ExportFormat, ctes: str, rows: int) -> list[dict[str, Any]]:
    other_model, no_response = con.execute(
        f"{ctes} select count(*) filter (where model_name is distinct from '{VLLM_MODEL}'), "
        f"count(*) filter (where model_name = '{VLLM_MODEL}' and not (response_tokens > 0)) from exported"
    ).fetchall()[0]
    consumer = "vLLM BurstGPTDataset"
    out = []
    if other_model:
        out.append(request_effect(consumer, "drops", other_model, f"it keeps Model == {VLLM_MODEL!r} rows only",
                          "none in vLLM (it filters by name); --model GPT-4 here writes only what it reads"))  # fmt: skip
    if no_response:
        out.append(request_effect(consumer, "drops", no_response, "it keeps rows with Response tokens > 0 only "
                          "(failed requests)"))  # fmt: skip
    if other_model + no_response >= rows:
        out.append(request_effect(consumer, "reads", 0, f"none of the {rows:,} rows written: vLLM raises on an empty "
                          "dataset", "--model GPT-4"))  # fmt: skip
    out.append(request_effect(consumer, "ignores", rows, "it samples rows without their Timestamp: arrivals come from "
                      "its --request-rate and --burstiness, so --window and --speed here only choose rows"))  # fmt: skip
    return out


def request_effects(con, fmt: ExportFormat, ctes: str, rows: int) -> list[dict[str, Any]]:
    """The effects of one request export: ``ctes`` defines ``exported`` (the rows written)."""
    if fmt.name == "vidur":
        return _vidur(con, fmt, ctes)
    if fmt.name == "burstgpt":
        return _vllm(con, fmt, ctes, rows)
    return []
