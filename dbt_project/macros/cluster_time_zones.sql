{#-
  The clusters whose local time zone is known, as a query (cluster_name, time_zone, utc_offset_minutes):
  Seren and Kalos are Shanghai AI Lab's clusters (utilization written in UTC+8), Asia/Shanghai, which has had
  no daylight-saving time since 1991, so local time = UTC + 8 h exactly. The previous-work traces (Helios,
  Philly, PAI) do not document a zone: they have no row, and no local time.
-#}
{% macro cluster_time_zones() -%}
    select
        'seren' as cluster_name,
        'Asia/Shanghai' as time_zone,
        480 as utc_offset_minutes
    union all
    select
        'kalos' as cluster_name,
        'Asia/Shanghai' as time_zone,
        480 as utc_offset_minutes
{%- endmacro %}
