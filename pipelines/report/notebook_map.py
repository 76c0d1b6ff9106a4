"""The upstream AcmeTrace notebook (``analysis.ipynb``) figure by figure: which analysis mart holds it and
which report figure draws it, as a section of report.md (the SQL cookbook's table, docs/pages/sql.md, says the same)."""

from __future__ import annotations

from collections.abc import Iterable

# (notebook figure, analysis marts, report figure or "" when the mart is a table only)
NOTEBOOK_FIGURES: tuple[tuple[str, str, str], ...] = (
    (
        "cdf_job_duration_util (a): GPU-job duration CDF, `2**0..2**21` s",
        "job_duration_cdf",
        "job_duration_cdf",
    ),
    (
        "cdf_job_duration_util (b): GPU_UTIL CDF",
        "utilization_cdf, utilization_percentiles",
        "gpu_utilization_cdf",
    ),
    ("cdf_job_gpunum: GPUs per job, by jobs and by GPU time", "gpu_num_cdf", "gpu_num_cdf"),
    ("bar_job_state: final state by count and GPU time", "job_state_shares", "job_state_shares"),
    ("bar_job_state, per job type", "job_state_shares_by_type", "job_state_shares_by_type"),
    ("treemap_job_dist: job types by count and GPU time", "job_type_shares", "job_type_shares"),
    (
        "cdf_job_duration_queue: duration (`2**0..2**21` s) and queueing delay (`2**0..2**15` s) per type",
        "job_duration_cdf_by_type",
        "job_duration_cdf_by_type",
    ),
    ("box_gpu_num: GPUs per job by type", "gpu_num_by_type", "gpu_num_by_type"),
    ("cdf_resource_util: SM, occupancy, GPU/CPU memory, CPU, IB", "utilization_cdf", "utilization_cdf"),
    ("cdf_temperature: GPU and memory temperature", "utilization_cdf", "utilization_cdf"),
    (
        "cdf_power: GPU power (CDF), server power A/B/C/D",
        "utilization_cdf, server_power_by_type",
        "utilization_cdf",
    ),
    (
        "beyond the notebook: cluster occupancy per hour (UTC and local)",
        "cluster_occupancy_hourly",
        "cluster_occupancy_hourly",
    ),
    (
        "beyond the notebook: GPU-hours per user, top-k % share",
        "user_gpu_hours, user_gpu_concentration",
        "user_gpu_hours",
    ),
    ("beyond the notebook: failure rate by GPU-count bucket per type", "failure_rate_by_gpu_bucket", ""),
    (
        "beyond the notebook: BurstGPT tokens per hour and day",
        "tokens_per_hour, tokens_per_day",
        "tokens_per_hour",
    ),
    ("beyond the notebook: BurstGPT_3 sessions", "burstgpt_sessions", ""),
    (
        "beyond the notebook: BurstGPT_3 elapsed time against response tokens",
        "elapsed_by_response_tokens",
        "",
    ),
    ("beyond the notebook: KV-cache reuse of BurstGPT_3's sessions", "kv_cache_reuse", ""),
)


def notebook_section(drawn: Iterable[str]) -> str:
    """The map as markdown; ``drawn``: the report figures written beside report.md (others read "—")."""
    present = set(drawn)
    intro = (
        "Each figure of AcmeTrace's `analysis.ipynb` and what the warehouse adds, with the analysis mart that "
        "holds it (`analysis.<mart>`; their `data_origin` column says whether the rows behind it are real) "
        "and the figure above that draws it."
    )
    rows = [
        "| notebook figure | analysis mart | report figure |",
        "|---|---|---|",
    ]
    for figure, marts, drawn_as in NOTEBOOK_FIGURES:
        mart_cells = ", ".join(f"`{m.strip()}`" for m in marts.split(","))
        shown = f"[{drawn_as}.png]({drawn_as}.png)" if drawn_as and drawn_as in present else "—"
        rows.append(f"| {figure} | {mart_cells} | {shown} |")
    return "## The upstream notebook, figure by figure\n\n" + intro + "\n\n" + "\n".join(rows)
