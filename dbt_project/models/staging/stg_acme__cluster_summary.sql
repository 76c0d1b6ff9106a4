-- One row per cluster of the published cluster_summary.csv: the papers' own numbers, renamed with units.
with

{{ passed_rows('acme__cluster_summary') }},

final as (
    select
        lower(cluster) as cluster_name,
        cluster as cluster_label,
        job_num as jobs,
        cpu_job_num as cpu_jobs,
        gpu_job_num as gpu_jobs,
        avg_run_time_gpu as avg_run_time_gpu_s,
        avg_que_time_gpu as avg_queue_time_gpu_s,
        avg_gpu_num,
        med_run_time_gpu as median_run_time_gpu_s,
        med_que_time_gpu as median_queue_time_gpu_s,
        med_gpu_num as median_gpu_num,
        max_run_time_gpu as max_run_time_gpu_s,
        max_gpu as max_gpu_num,
        complete_rate_gpu as completed_share_gpu_jobs,
        cancel_rate_gpu as cancelled_share_gpu_jobs,
        fail_rate_gpu as failed_share_gpu_jobs,
        complete_gpu_time as completed_gpu_time_s,
        cancel_gpu_time as cancelled_gpu_time_s,
        fail_gpu_time as failed_gpu_time_s,
        complete_rate_gpu_time as completed_share_gpu_time,
        cancel_rate_gpu_time as cancelled_share_gpu_time,
        fail_rate_gpu_time as failed_share_gpu_time,
        avg_run_time_cpu as avg_run_time_cpu_s,
        avg_que_time_cpu as avg_queue_time_cpu_s,
        med_run_time_cpu as median_run_time_cpu_s,
        med_que_time_cpu as median_queue_time_cpu_s,
        complete_rate_cpu as completed_share_cpu_jobs,
        cancel_rate_cpu as cancelled_share_cpu_jobs,
        fail_rate_cpu as failed_share_cpu_jobs,
        {{ lineage_columns() }}
    from passed
)

select * from final
