-- Fails on every kv_cache_reuse row whose LRU hits exceed the infinite cache's, whose rates leave [0, 1], or
-- whose LRU hits are fewer than those of the next smaller cache of its block size (a bigger cache never
-- hits less).
with

curve as (
    select
        *,
        lag(lru_hit_blocks) over (partition by block_size_tokens order by cache_log2_tokens) as smaller_hits
    from {{ ref('kv_cache_reuse') }}
)

select * from curve
where
    lru_hit_blocks > infinite_hit_blocks
    or infinite_hit_blocks > prompt_blocks
    or lru_hit_blocks < smaller_hits
    or infinite_block_hit_rate not between 0 and 1
    or infinite_token_hit_rate not between 0 and 1
    or lru_token_hit_rate not between 0 and 1
