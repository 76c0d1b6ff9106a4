"""Suite of ``acme__cluster_summary`` (``data/cluster_summary.csv``): one row per cluster.

Cross-file flag: the summary's ``job_num`` beside the number of job rows present in that cluster's job
family (GPU jobs, ``gpu_num > 0``, shown beside ``gpu_job_num``). They differ for Seren — the summary covers
1,031,550 jobs, the released file 818,327 — and for any partial load, so this is a flag, never a quarantine.
A cluster whose job family has no files is not compared.
"""

from __future__ import annotations

from expectations.rules import Frame, FrameSources, Rule, Suite, pair_equal, table_columns
from pipelines.families.schemas import CLUSTER_SUMMARY

JOB_FAMILIES = {
    "seren": "acme__seren_jobs",
    "kalos": "acme__kalos_jobs",
    "philly": "acme__philly_jobs",
    "helios": "acme__helios_jobs",
    "pai": "acme__pai_jobs",
}


def job_counts_sql(src: FrameSources) -> str | None:
    counted = []
    for cluster, family in JOB_FAMILIES.items():
        rel = src.family(family)
        if rel is None:
            continue
        counted.append(
            f"select '{cluster}' as cluster_key, count(*) as job_rows, "
            "count(*) filter (where coalesce(gpu_num, "
            + ("plan_gpu / 100" if family == "acme__pai_jobs" else "null")
            + f") > 0) as gpu_job_rows from {rel}"
        )
    if not counted:
        return None
    files = " union all ".join(counted)
    return (
        "select s._source_file, s._row_number, s.cluster, s.job_num, f.job_rows, s.gpu_job_num, f.gpu_job_rows "
        f"from {src.rows} s join ({files}) f on lower(s.cluster) = f.cluster_key"
    )


JOB_COUNTS = Frame(
    "job_counts",
    "family",
    job_counts_sql,
    deps=tuple(JOB_FAMILIES.values()),
    description="one row per summary cluster whose job family is loaded, with the job rows counted there",
)

SUITE = Suite(
    family="acme__cluster_summary",
    columns=table_columns([(c.raw_name, c.type) for c in CLUSTER_SUMMARY.columns]),
    rules=(
        Rule(
            "summary_job_counts_match_job_files",
            "flag",
            "cluster_summary.csv's job_num beside the job rows present for that cluster (Seren's summary "
            "covers more jobs than the released file).",
            pair_equal("job_num", "job_rows"),
            frame="job_counts",
            columns=("cluster", "job_num", "job_rows", "gpu_job_num", "gpu_job_rows"),
        ),
    ),
    frames=(JOB_COUNTS,),
)
