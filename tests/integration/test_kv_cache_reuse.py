"""analysis.kv_cache_reuse against a direct simulation: ids from pipelines/export/hash_ids.py's HashIds, one
global block-granular LRU cache (an OrderedDict) per block size and cache size.

The warehouse is built empty up to marts.fct_request (``dbt run --empty``), a few hundred SYNTHETIC
BurstGPT_3 requests (interleaved sessions, API-log rows, empty Session IDs, ties on the second, zero
tokens) and one BurstGPT_1 request take the place of fct_request's rows, and only the mart is run on them.
"""

import random
from collections import OrderedDict
from pathlib import Path

import duckdb
import pytest

from pipelines.export.hash_ids import HashIds, blocks
from pipelines.settings import load_settings
from tests.support.dbt_runs import Warehouse, run_dbt

BLOCK_SIZES = (16, 128, 512)
LOG2_TOKENS = (4, 18)
VARS = f"{{kv_cache_block_sizes: {list(BLOCK_SIZES)}, kv_cache_log2_tokens: {list(LOG2_TOKENS)}}}"


def synthetic_requests(seed: int, count: int) -> list[tuple]:
    """(timestamp_s, _row_number, session_id, request_tokens) of BurstGPT_3-like SYNTHETIC requests."""
    rng = random.Random(seed)
    sessions = [f"s{i}" for i in range(25)]
    rows = []
    t = 1000.0
    for row_number in range(2, count + 2):
        t += rng.choice([0, 0, 1, 3, 10])
        kind = rng.random()
        session = rng.choice(sessions) if kind < 0.7 else ("" if kind < 0.75 else None)
        tokens = rng.choice([0, 1, 15, 16, 17, 127, 128, 129, 511, 512, 513, 1500, rng.randrange(2000)])
        rows.append((t, row_number, session, tokens))
    rng.shuffle(rows)  # the mart orders them, not the table
    return rows


def simulate(rows: list[tuple], block_size: int, cache_blocks: int | None) -> tuple[int, int]:
    """(prompt blocks, hit blocks) of the requests in trace order; cache_blocks None: an infinite cache."""
    ids = HashIds(block_size=block_size)
    cache: OrderedDict[int, None] = OrderedDict()
    seen: set[int] = set()
    prompt = hits = 0
    for _, _, session, tokens in sorted(rows, key=lambda r: (r[0], r[1])):
        request_ids = ids.assign(tokens, session or None)
        assert len(request_ids) == blocks(tokens, block_size)
        prompt += len(request_ids)
        for block in request_ids:
            if cache_blocks is None:
                hits += block in seen
                seen.add(block)
                continue
            if block in cache:
                hits += 1
                cache.move_to_end(block)
            else:
                cache[block] = None
                if len(cache) > cache_blocks:
                    cache.popitem(last=False)
    return prompt, hits


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[tuple], list[tuple]]:
    root: Path = tmp_path_factory.mktemp("kv")
    settings = load_settings({"WAREHOUSE_DIR": str(root / "warehouse")})
    settings.warehouse_dir.mkdir(parents=True, exist_ok=True)
    target = root / "target"
    empty = run_dbt(settings, "run", "--select", "+fct_request", "--empty", target=target)
    assert empty.returncode == 0, empty.stdout[-4000:]
    requests = [*synthetic_requests(seed=7, count=400), (9.0, 1, "other-file", 4000)]
    con = duckdb.connect(str(settings.duckdb_path))
    try:
        # fct_request is a view over the lake's partitions: a table of its columns takes its place
        con.execute("create table marts.fct_request_rows as select * from marts.fct_request limit 0")
        con.execute("drop view marts.fct_request")
        con.execute("alter table marts.fct_request_rows rename to fct_request")
        con.executemany(
            "insert into marts.fct_request (timestamp_s, _row_number, session_id, request_tokens, "
            "file_number, _data_origin) values (?, ?, ?, ?, ?, 'synthetic')",
            [(*r, 1 if r[2] == "other-file" else 3) for r in requests],
        )
    finally:
        con.close()
    result = run_dbt(settings, "run", "--select", "kv_cache_reuse", "--vars", VARS, target=target)
    assert result.returncode == 0, result.stdout[-6000:]
    mart = Warehouse(settings.duckdb_path).execute(
        "select block_size_tokens, cache_log2_tokens, cache_blocks, requests, prompt_blocks, prompt_tokens, "
        "infinite_hit_blocks, infinite_hit_tokens, lru_hit_blocks, lru_hit_tokens, lru_block_hit_rate, "
        "lru_token_hit_rate, infinite_token_hit_rate, data_origin from analysis.kv_cache_reuse "
        "order by 1, 2"
    )
    return [r for r in requests if r[2] != "other-file"], mart


def test_mart_matches_an_lru_simulation(built) -> None:
    requests, mart = built
    tokens = sum(max(r[3], 0) for r in requests)
    expected = []
    for b in BLOCK_SIZES:
        prompt, infinite = simulate(requests, b, None)
        for k in range(LOG2_TOKENS[0], LOG2_TOKENS[1] + 1):
            _, lru = simulate(requests, b, 2**k // b)
            expected.append(
                (b, k, 2**k // b, len(requests), prompt, tokens, infinite, infinite * b, lru, lru * b)
            )
    assert [row[:10] for row in mart] == expected
    for row in mart:
        assert row[10] == pytest.approx(row[8] / row[4])
        assert row[11] == pytest.approx(row[9] / row[5])
        assert row[12] == pytest.approx(row[7] / row[5])
        assert row[13] == "synthetic"


def test_the_curve_spans_nothing_fits_to_everything_fits(built) -> None:
    """The sample is built so both ends are reached: the check that the range of cache sizes is wide enough."""
    _, mart = built
    for b in BLOCK_SIZES:
        curve = [row for row in mart if row[0] == b]
        assert curve[0][8] < curve[0][6] / 10  # the smallest cache misses almost every shared block
        assert curve[-1][8] == curve[-1][6] > 0  # the largest hits every one
        assert len({row[8] for row in curve}) > 3  # and sizes between draw a curve
