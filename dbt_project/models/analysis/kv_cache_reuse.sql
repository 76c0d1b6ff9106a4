-- Grain: one block size and LRU cache size (2^k tokens). How much of BurstGPT_3's prompt prefix a KV cache
-- could serve, with the block rule of pipelines/export/hash_ids.py parameterised by the block size b:
--   - a prompt of t tokens has ceil(t / b) blocks (t <= 0: none), floor(t / b) of them full;
--   - a turn of a session (Session ID, Conversation-log rows) reuses the previous turn's first
--     min(full blocks of both) blocks (its shared blocks); every other block is new. Replies do not join
--     the prefix: as in hash_ids.py, only the previous turn's prompt blocks are reused.
-- Hits: a shared block is a hit when it is still cached; new blocks always miss. The infinite cache hits
-- every shared block. The LRU cache is one global, block-granular cache of floor(2^k / b) blocks that every
-- request of the file fills, API-log rows included, in the trace's order (timestamp_s, then _row_number)
-- and each request's blocks in prompt order. A turn's shared blocks were last used by its session's previous
-- turn p, all at LRU stack distance n_p - 1 + D (n_p = p's blocks, D = distinct blocks of the requests
-- strictly between), so they all hit iff n_p + D <= cache blocks. D = blocks of the requests between minus
-- the shared blocks of those of them whose own previous turn is also between (exact, a range join).
{%- set block_sizes = var('kv_cache_block_sizes', [16, 128, 512]) -%}
{%- set log2_range = var('kv_cache_log2_tokens', [4, 40]) %}

with

requests as (
    select
        timestamp_s,
        _row_number,
        _data_origin,
        case when session_id != '' then session_id end as session_id,
        greatest(coalesce(request_tokens, 0), 0) as prompt_tokens
    from {{ ref('fct_request') }}
    where file_number = 3
),

ordered as (
    select
        session_id,
        prompt_tokens,
        _data_origin,
        row_number() over (order by timestamp_s, _row_number) as pos
    from requests
),

sized as (
    select
        {%- for b in block_sizes %}
        cast(ceil(prompt_tokens / {{ b }}.0) as {{ dbt.type_bigint() }}) as n_{{ b }},
        cast(floor(prompt_tokens / {{ b }}.0) as {{ dbt.type_bigint() }}) as full_{{ b }},
        {%- endfor %}
        pos,
        session_id,
        prompt_tokens,
        _data_origin
    from ordered
),

cumulated as (
    select
        {%- for b in block_sizes %}
        sum(n_{{ b }}) over (order by pos rows between unbounded preceding and current row) as cum_{{ b }},
        {%- endfor %}
        *
    from sized
),

-- Each session turn beside its previous turn (p): position, blocks, full blocks, running block total.
turns as (
    select
        {%- for b in block_sizes %}
        n_{{ b }},
        full_{{ b }},
        cum_{{ b }},
        lag(n_{{ b }}) over (partition by session_id order by pos) as prev_n_{{ b }},
        lag(full_{{ b }}) over (partition by session_id order by pos) as prev_full_{{ b }},
        lag(cum_{{ b }}) over (partition by session_id order by pos) as prev_cum_{{ b }},
        {%- endfor %}
        pos,
        lag(pos) over (partition by session_id order by pos) as prev_pos
    from cumulated
    where session_id is not null
),

reusing as (
    select
        {%- for b in block_sizes %}
        prev_n_{{ b }},
        least(prev_full_{{ b }}, full_{{ b }}) as shared_{{ b }},
        cum_{{ b }} - n_{{ b }} - prev_cum_{{ b }} as between_{{ b }},
        {%- endfor %}
        pos,
        prev_pos
    from turns
    where prev_pos is not null and least(prev_full_{{ block_sizes | min }}, full_{{ block_sizes | min }}) > 0
),

-- Blocks counted twice in between_b: a turn r strictly between p and t whose own previous turn is too.
nested as (
    select
        {%- for b in block_sizes %}
        sum(r.shared_{{ b }}) as nested_{{ b }},
        {%- endfor %}
        t.pos
    from reusing as t
    inner join reusing as r
        on t.prev_pos < r.prev_pos and t.pos > r.pos
    group by t.pos
),

-- The smallest k whose cache (floor(2^k / b) blocks) holds n_p + D blocks: 2^k >= (n_p + D) * b.
needs as (
    {%- for b in block_sizes %}
    select
        {{ b }} as block_size_tokens,
        reusing.shared_{{ b }} as shared_blocks,
        cast(
            ceil(log2(
                (reusing.prev_n_{{ b }} + reusing.between_{{ b }} - coalesce(nested.nested_{{ b }}, 0)) * {{ b }}.0
            )) as {{ dbt.type_int() }}
        ) as min_log2_tokens
    from reusing
    left join nested on reusing.pos = nested.pos
    where reusing.shared_{{ b }} > 0
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

hits_by_log2 as (
    select
        block_size_tokens,
        min_log2_tokens,
        sum(shared_blocks) as hit_blocks
    from needs
    group by block_size_tokens, min_log2_tokens
),

totals as (
    select
        {%- for b in block_sizes %}
        sum(n_{{ b }}) as prompt_blocks_{{ b }},
        {%- endfor %}
        count(*) as requests,
        {{ count_where("_data_origin = 'real'") }} as real_requests,
        {{ count_where("_data_origin = 'synthetic'") }} as synthetic_requests,
        sum(prompt_tokens) as prompt_tokens
    from sized
),

infinite as (
    select
        block_size_tokens,
        sum(hit_blocks) as hit_blocks
    from hits_by_log2
    group by block_size_tokens
),

cache_sizes as (
    {%- for b in block_sizes %}
    {%- set b_loop = loop %}
    {%- for k in range(log2_range[0], log2_range[1] + 1) %}
    select
        {{ b }} as block_size_tokens,
        {{ k }} as cache_log2_tokens,
        totals.prompt_blocks_{{ b }} as prompt_blocks
    from totals
    {%- if not (b_loop.last and loop.last) %}
    union all
    {%- endif %}
    {%- endfor %}
    {%- endfor %}
),

curve as (
    select
        cache_sizes.block_size_tokens,
        cache_sizes.cache_log2_tokens,
        cache_sizes.prompt_blocks,
        coalesce(sum(hits_by_log2.hit_blocks), 0) as lru_hit_blocks
    from cache_sizes
    left join hits_by_log2
        on
            cache_sizes.block_size_tokens = hits_by_log2.block_size_tokens
            and cache_sizes.cache_log2_tokens >= hits_by_log2.min_log2_tokens
    group by cache_sizes.block_size_tokens, cache_sizes.cache_log2_tokens, cache_sizes.prompt_blocks
),

final as (
    select
        cast(curve.block_size_tokens as {{ dbt.type_int() }}) as block_size_tokens,
        cast(curve.cache_log2_tokens as {{ dbt.type_int() }}) as cache_log2_tokens,
        cast(power(2, curve.cache_log2_tokens) as {{ dbt.type_bigint() }}) as cache_tokens,
        cast(floor(power(2, curve.cache_log2_tokens) / curve.block_size_tokens) as {{ dbt.type_bigint() }})
            as cache_blocks,
        cast(totals.requests as {{ dbt.type_bigint() }}) as requests,
        cast(coalesce(curve.prompt_blocks, 0) as {{ dbt.type_bigint() }}) as prompt_blocks,
        cast(coalesce(totals.prompt_tokens, 0) as {{ dbt.type_bigint() }}) as prompt_tokens,
        cast(coalesce(infinite.hit_blocks, 0) as {{ dbt.type_bigint() }}) as infinite_hit_blocks,
        cast(coalesce(infinite.hit_blocks, 0) * curve.block_size_tokens as {{ dbt.type_bigint() }})
            as infinite_hit_tokens,
        cast(infinite.hit_blocks / nullif(curve.prompt_blocks, 0) as {{ type_double() }})
            as infinite_block_hit_rate,
        cast(infinite.hit_blocks * curve.block_size_tokens / nullif(totals.prompt_tokens, 0) as {{ type_double() }})
            as infinite_token_hit_rate,
        cast(curve.lru_hit_blocks as {{ dbt.type_bigint() }}) as lru_hit_blocks,
        cast(curve.lru_hit_blocks * curve.block_size_tokens as {{ dbt.type_bigint() }}) as lru_hit_tokens,
        cast(curve.lru_hit_blocks / nullif(curve.prompt_blocks, 0) as {{ type_double() }}) as lru_block_hit_rate,
        cast(curve.lru_hit_blocks * curve.block_size_tokens / nullif(totals.prompt_tokens, 0) as {{ type_double() }})
            as lru_token_hit_rate,
        {{ data_origin_label('totals.real_requests', 'totals.synthetic_requests') }} as data_origin
    from curve
    cross join totals
    left join infinite on curve.block_size_tokens = infinite.block_size_tokens
)

select * from final
