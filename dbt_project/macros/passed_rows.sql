{#-
  The rows of raw.<family> that validation did not quarantine, as three CTEs for a staging model's `with`:
  source (the raw relation), quarantined (the keys of its quarantined rows) and passed (source minus those).
  keys: the columns that identify a raw row; a utilization row is one cell, so its keys add series.
-#}
{% macro passed_rows(family, keys=['_source_file', '_row_number']) -%}
source as (
    select * from {{ source('raw', family) }}
),

quarantined as (
    select distinct
        {{ keys | join(',\n        ') }}
    from {{ source('quarantine', family) }}
),

passed as (
    select source.*
    from source
    left join quarantined
        on
            {%- for key in keys %}
            {{ 'and ' if not loop.first }}source.{{ key }} = quarantined.{{ key }}
            {%- endfor %}
    where quarantined.{{ keys[0] }} is null
)
{%- endmacro %}


{#- The lineage columns every staging model carries from the raw row (raw relations add them at load). -#}
{% macro lineage_columns() -%}
    _source_file,
    _row_number,
    _loaded_at,
    _data_origin,
    _partition
{%- endmacro %}
