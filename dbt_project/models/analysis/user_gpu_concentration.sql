-- One row per cluster and top share of users (1, 5, 10, 20, 50, 100 %): the share of the cluster's
-- GPU-hours (reported) used by its heaviest ceil(users x p / 100) users, from user_gpu_hours.
{%- set top_user_percents = [1, 5, 10, 20, 50, 100] %}
with

user_hours as (
    select * from {{ ref('user_gpu_hours') }}
),

grid as (
    {%- for percent in top_user_percents %}
    select {{ percent }} as top_user_percent
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

clusters as (
    select
        cluster_name,
        max(cluster_users) as cluster_users,
        max(cluster_gpu_hours) as cluster_gpu_hours,
        sum(real_jobs) as real_jobs,
        sum(synthetic_jobs) as synthetic_jobs
    from user_hours
    group by cluster_name
),

cutoffs as (
    select
        clusters.*,
        grid.top_user_percent,
        cast(ceil(clusters.cluster_users * grid.top_user_percent / 100.0) as {{ dbt.type_bigint() }}) as top_users
    from clusters
    cross join grid
),

final as (
    select
        cutoffs.cluster_name,
        cast(cutoffs.top_user_percent as {{ dbt.type_int() }}) as top_user_percent,
        cutoffs.top_users,
        cast(cutoffs.cluster_users as {{ dbt.type_bigint() }}) as cluster_users,
        cast(user_hours.gpu_hours_up_to_rank as {{ type_double() }}) as top_users_gpu_hours,
        cast(cutoffs.cluster_gpu_hours as {{ type_double() }}) as cluster_gpu_hours,
        cast(user_hours.cumulative_share_of_gpu_hours as {{ type_double() }}) as share_of_gpu_hours,
        cast(cutoffs.real_jobs as {{ dbt.type_bigint() }}) as real_jobs,
        cast(cutoffs.synthetic_jobs as {{ dbt.type_bigint() }}) as synthetic_jobs,
        {{ data_origin_label('cutoffs.real_jobs', 'cutoffs.synthetic_jobs') }} as data_origin
    from cutoffs
    inner join user_hours
        on cutoffs.cluster_name = user_hours.cluster_name and cutoffs.top_users = user_hours.user_rank
)

select * from final
