-- Grain: one cluster, utilization metric, UTC hour and bin of the metric's fixed grid (seed utilization_grid;
-- null for a metric without one), in the lake partition of that hour: the samples of fct_node_metric there,
-- their sum and maximum, those at 0, real and synthetic, and the repeated samples the fact dropped. This is
-- the one scan of the samples after the load: every statistic of them (utilization_hourly,
-- utilization_histogram, the CDFs, the percentiles' counts and means, cluster occupancy, the report's origin
-- counts) merges from here. The fact's samples are what int_node_metrics_keyed shows: every staged sample
-- that cannot repeat another (macros/utilization_samples.sql, may_repeat_keys) as it stands, and the few
-- that may as int_node_metric_repeats kept them. Each cluster and metric is its own select
-- (utilization_bin_branches, macros/utilization_grid.sql: the pairs the warehouse holds, with their grid's
-- constants): its filter reaches the lake files of that pair alone, and it groups by two integers, hour and bin,
-- not by two strings and a join to the grid per sample (a third less time). The partition is the hour's (an
-- hour lies inside one UTC date). Bin -1 holds the samples below the grid, bin `bins` those above it; a linear
-- grid's bins are [lower, upper), its last one [lower, upper].
{{ config(**partition_replace_config()) }}
-- The selects per pair read the repeats, and dbt parses the model before it knows the pairs:
-- depends_on: {{ ref('int_node_metric_repeats') }}
{%- set branches = utilization_bin_branches() %}
{%- set staged = {} %}
{%- for relation, level in utilization_staged() %}
{%- do staged.update({level: relation}) %}
{%- endfor %}

with

lines as (
    select * from {{ ref('int_node_metric_lines') }}
    where {{ partition_window() }}
),

partition_series as (
    select * from {{ ref('int_node_metric_series') }}
    where {{ partition_window() }}
),

series as (
    select * from {{ ref('int_node_series') }}
),

{{ may_repeat_keys() }},

{%- for branch in branches %}

-- {{ branch.cluster }} {{ branch.metric }}: its staged samples that cannot repeat another, and those that may
-- as int_node_metric_repeats kept them. A select of the staged relation per pair, not one shared CTE: DuckDB
-- materializes a CTE that many selects read.
facts_{{ loop.index }} as (
    select
        samples.sample_time_utc,
        samples.value,
        0 as duplicate_samples,
        samples._data_origin,
        samples._partition
    from {{ staged[branch.level] }} as samples
    {{ join_may_repeat_keys() }}
    where
        samples.cluster_name = '{{ branch.cluster }}'
        and samples.metric = '{{ branch.metric }}'
        and {{ partition_window('samples._partition') }}
        and repeated_lines._row_number is null
        and shared_series.series is null

    union all

    select
        sample_time_utc,
        value,
        duplicate_samples,
        _data_origin,
        _partition
    from {{ ref('int_node_metric_repeats') }}
    where cluster_name = '{{ branch.cluster }}' and metric = '{{ branch.metric }}' and {{ partition_window() }}
),

-- The sample's position on the grid, 0 at grid_min and `bins` at grid_max, linear or in doublings on a log2
-- grid.
positioned_{{ loop.index }} as (
    select
        value,
        duplicate_samples,
        _data_origin,
        _partition,
        {{ epoch_hour('sample_time_utc') }} as hour_index,
        {%- if branch.kind == 'log2' %}
        case
            when value * {{ double_literal(branch.scale) }} > 0
                then log2(value) * {{ double_literal(branch.slope) }} + {{ double_literal(branch.intercept) }}
        end as position
        {%- elif branch.kind %}
        value * {{ double_literal(branch.slope) }} + {{ double_literal(branch.intercept) }} as position
        {%- else %}
        cast(null as {{ type_double() }}) as position
        {%- endif %}
    from facts_{{ loop.index }}
),

binned_{{ loop.index }} as (
    select
        *,
        {%- if branch.kind %}
        case
            when position is null or position < 0 then -1
            when value * {{ double_literal(branch.scale) }} > {{ double_literal(branch.grid_max) }}
                then {{ branch.bins }}
            else least(cast(floor(position) as {{ dbt.type_int() }}), {{ branch.bins - 1 }})
        end as bin_index
        {%- else %}
        cast(null as {{ dbt.type_int() }}) as bin_index
        {%- endif %}
    from positioned_{{ loop.index }}
),

bins_{{ loop.index }} as (
    select
        '{{ branch.cluster }}' as cluster_name,
        '{{ branch.level }}' as metric_level,
        '{{ branch.metric }}' as metric,
        hour_index,
        bin_index,
        count(*) as samples,
        {{ count_where("_data_origin = 'real'") }} as real_samples,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_samples,
        {{ count_where("value = 0") }} as zero_samples,
        sum(duplicate_samples) as duplicate_samples,
        sum(value) as value_sum,
        max(value) as max_value,
        {{ dbt.any_value('_partition') }} as _partition
    from binned_{{ loop.index }}
    group by hour_index, bin_index
),
{%- endfor %}

{%- set columns = [
    ('cluster_name', dbt.type_string()), ('metric_level', dbt.type_string()), ('metric', dbt.type_string()),
    ('hour_index', dbt.type_bigint()), ('bin_index', dbt.type_int()), ('samples', dbt.type_bigint()),
    ('real_samples', dbt.type_bigint()), ('synthetic_samples', dbt.type_bigint()),
    ('zero_samples', dbt.type_bigint()), ('duplicate_samples', dbt.type_bigint()),
    ('value_sum', type_double()), ('max_value', type_double()), ('_partition', dbt.type_string()),
] %}

-- Every pair's bins, then a select of no rows that types the columns when there is no pair.
final as (
    {%- for branch in branches %}
    select {{ cast_columns(columns) }}
    from bins_{{ loop.index }}
    union all
    {%- endfor %}
    select {{ cast_columns(columns, nulls=true) }}
    where 1 = 0
)

select * from final
