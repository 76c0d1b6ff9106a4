"""The SQL of the notebook marts' figures, beside ``queries``."""

from __future__ import annotations

JOB_DURATION_CDF_BY_TYPE = """
select cluster_name, job_type, measure, grid_index, threshold_s, gpu_jobs, cumulative_share, data_origin
from analysis.job_duration_cdf_by_type
where measure in ('reported_duration_s', 'reported_queue_s')
order by cluster_name, job_type, measure, grid_index
"""

# _stacked_shares draws a published bar where these are set: nothing is published per type.
JOB_STATE_SHARES_BY_TYPE = """
select cluster_name, job_type, state_group, gpu_jobs, share_by_count, share_by_reported_gpu_time,
    cast(null as double) as published_share_by_count, cast(null as double) as published_share_by_gpu_time,
    data_origin
from analysis.job_state_shares_by_type
order by cluster_name, job_type, state_group
"""

CLUSTER_OCCUPANCY_HOURLY = """
select cluster_name, hour_index, hour_start_utc, utc_hour_of_day, local_hour_of_day, time_zone,
    running_gpu_hours, mean_queued_gpus, mean_queued_jobs, queued_jobs_at_hour_start,
    requested_gpus_at_hour_start, data_origin
from analysis.cluster_occupancy_hourly
order by cluster_name, hour_index
"""

USER_GPU_HOURS = """
select cluster_name, user_rank, cluster_users, reported_gpu_hours, cumulative_share_of_gpu_hours, data_origin
from analysis.user_gpu_hours
order by cluster_name, user_rank
"""

TOKENS_PER_HOUR = """
select file_number, release, hour_index, requests, request_tokens, response_tokens, request_tokens_per_s,
    response_tokens_per_s, data_origin
from analysis.tokens_per_hour
order by file_number, hour_index
"""

GPU_NUM_BY_TYPE = """
select cluster_name, job_type, population, jobs, min_gpu_num, lower_whisker_gpu_num, p25_gpu_num, p50_gpu_num,
    p75_gpu_num, upper_whisker_gpu_num, max_gpu_num, data_origin
from analysis.gpu_num_by_type
order by cluster_name, job_type, population
"""
