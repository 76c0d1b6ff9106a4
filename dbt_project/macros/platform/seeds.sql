{#-
  dbt-spark's seed loader binds each value as text in session mode, so an empty CSV cell lands as the
  string 'None' (and a quote breaks the statement). Here the values are written into the INSERT as
  literals: NULL for an empty cell, else the text (escaped the Spark way) cast to the column's type.
-#}
{% macro spark__load_csv_rows(model, agate_table) -%}
    {%- set batch_size = get_batch_size() -%}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set types = [] -%}
    {%- for col_name in agate_table.column_names -%}
        {%- do types.append(column_override.get(col_name, adapter.convert_type(agate_table, loop.index0))) -%}
    {%- endfor -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(batch_size) -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                (
                {%- for value in row -%}
                    {%- if value is none -%}
                        cast(null as {{ types[loop.index0] }})
                    {%- else -%}
                        cast('{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}' as {{ types[loop.index0] }})
                    {%- endif -%}
                    {{- ", " if not loop.last -}}
                {%- endfor -%}
                ){{ "," if not loop.last }}
            {% endfor -%}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- if loop.index0 == 0 -%}
            {%- do statements.append(sql) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(statements[0]) }}
{%- endmacro %}
