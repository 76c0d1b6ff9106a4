"""What each request export's consumer does to it, counted in the sidecar and equal to what the consumer's own
parsing rule does to the file (``tests/support/replay_readers.py``).

The shared fixture warehouse holds no request over Vidur's 4,096-token cap, so a copy of it gets synthetic long
requests: copies of real rows with their tokens raised (marked synthetic), some with replies longer than the cap.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from pipelines.export.transforms import TransformSpec
from pipelines.export.writer import ExportError, ExportRequest, export
from pipelines.settings import Settings, load_settings
from tests.support.replay_readers import aiperf_mooncake, vidur_trace, vllm_burstgpt

LONG = 30  # synthetic long requests added: prompts of 4,000-6,900 tokens
LONG_REPLIES = 5  # of them, replies longer than the cap (Vidur leaves a prompt of zero or fewer tokens)


@pytest.fixture
def long_requests(fixture_warehouse: Settings, tmp_path: Path) -> Settings:
    settings = load_settings({"WAREHOUSE_DIR": str(tmp_path / "long")})
    settings.warehouse_dir.mkdir()
    shutil.copyfile(fixture_warehouse.duckdb_path, settings.duckdb_path)
    con = duckdb.connect(str(settings.duckdb_path))
    try:
        long_rows = f"""select * replace (
                4000 + 100 * n as request_tokens,
                case when n < {LONG_REPLIES} then 5000 else response_tokens + 1 end as response_tokens,
                4000 + 100 * n + case when n < {LONG_REPLIES} then 5000 else response_tokens + 1 end as total_tokens,
                false as is_failed, _row_number + 100000 as _row_number, 'synthetic' as _data_origin)
            from (select *, row_number() over (order by timestamp_s, _row_number) - 1 as n
                  from marts.fct_request where file_number = 1)
            where n < {LONG}"""
        # the fact is a view over the lake: it becomes a table of its rows and the long ones
        con.execute(
            "create table marts.fct_request_long as select * from marts.fct_request "
            f"union all select * exclude (n) from ({long_rows})"
        )
        con.execute("drop view marts.fct_request")
        con.execute("alter table marts.fct_request_long rename to fct_request")
    finally:
        con.close()
    return settings


def meta_of(settings: Settings, tmp_path: Path, request: ExportRequest) -> tuple[Path, dict]:
    result = export(settings, request)
    return result.path, json.loads(result.sidecar.read_text(encoding="utf-8"))


def effects(meta: dict, consumer_prefix: str) -> list[dict]:
    return [e for e in meta["consumer_effects"] if e["consumer"].startswith(consumer_prefix)]


def test_vidur_warning_counts_what_its_cap_trims(long_requests: Settings, tmp_path: Path) -> None:
    path, meta = meta_of(long_requests, tmp_path, ExportRequest("vidur", out=tmp_path / "v.csv"))
    requests, raw = vidur_trace(path)  # Vidur's rule at its default cap
    replayed = [r.num_prefill_tokens for r in requests]
    written = raw["num_prefill_tokens"].clip(lower=1).tolist()
    trimmed = sum(1 for a, b in zip(written, replayed, strict=True) if b < a)
    lost = sum(min(a - b, a) for a, b in zip(written, replayed, strict=True))
    emptied = sum(1 for b in replayed if b <= 0)
    (warning,) = effects(meta, "Vidur")
    assert warning["effect"] == "trims" and warning["rows"] == trimmed == LONG
    assert (
        warning["prompt_tokens_lost"] == lost
        and warning["prompts_zero_or_negative"] == emptied == LONG_REPLIES
    )
    assert "--max-tokens" in warning["lift"] and "max_tokens" in warning["lift"]


@pytest.mark.parametrize("over", ["drop", "clip"])
def test_max_tokens_leaves_vidur_nothing_to_trim(long_requests: Settings, tmp_path: Path, over: str) -> None:
    _, before = meta_of(long_requests, tmp_path, ExportRequest("vidur", out=tmp_path / "plain.csv"))
    path, meta = meta_of(
        long_requests,
        tmp_path,
        ExportRequest("vidur", out=tmp_path / f"{over}.csv", max_tokens=4096, over_max=over),
    )
    requests, raw = vidur_trace(path)
    assert (raw["num_prefill_tokens"].clip(lower=1) == [r.num_prefill_tokens for r in requests]).all()
    assert effects(meta, "Vidur") == [] and meta["max_tokens"]["rows"] == LONG
    (ours,) = effects(meta, "trace-warehouse")
    assert ours["effect"] == ("drops" if over == "drop" else "clips") and ours["rows"] == LONG
    if over == "drop":
        assert meta["rows"] == before["rows"] - LONG
    else:
        assert meta["rows"] == before["rows"] and (raw["num_prefill_tokens"] >= 1).all()
        assert (raw["num_prefill_tokens"] + raw["num_decode_tokens"] <= 4096).all()
        assert meta["request_tokens"] == int(raw["num_prefill_tokens"].sum())


def test_vllm_warnings_count_the_rows_it_skips(fixture_warehouse: Settings, tmp_path: Path) -> None:
    path, meta = meta_of(fixture_warehouse, tmp_path, ExportRequest("burstgpt", out=tmp_path / "b.csv"))
    read = vllm_burstgpt(path)
    dropped = sum(e["rows"] for e in effects(meta, "vLLM") if e["effect"] == "drops")
    assert dropped == len(read.rows) - len(read.samples) > 0
    (ignored,) = [e for e in effects(meta, "vLLM") if e["effect"] == "ignores"]
    assert ignored["rows"] == meta["rows"] and "Timestamp" in ignored["reason"]

    _, chatgpt = meta_of(
        fixture_warehouse, tmp_path, ExportRequest("burstgpt", model="ChatGPT", out=tmp_path / "c.csv")
    )
    assert len(vllm_burstgpt(tmp_path / "c.csv").samples) == 0
    assert [e["rows"] for e in effects(chatgpt, "vLLM") if e["effect"] == "reads"] == [0]


@pytest.mark.parametrize("block_size", [16, 128, 512])
def test_mooncake_block_size_and_rebase(fixture_warehouse: Settings, tmp_path: Path, block_size: int) -> None:
    out = tmp_path / f"m{block_size}.jsonl"
    _, meta = meta_of(
        fixture_warehouse, tmp_path,
        ExportRequest("mooncake", window=("100", "end"), out=out, block_size=block_size, rebase=True),
    )  # fmt: skip
    traces = aiperf_mooncake(out, block_size=block_size)  # ceil(input / block) ids, last block the rest
    assert all(len(t["hash_ids"]) == -(-t["input_length"] // block_size) for t in traces)
    assert traces[0]["timestamp"] == 0 and meta["hash_ids"]["block_size"] == block_size
    assert f"block size {block_size} tokens" in meta["hash_ids"]["rule"]
    assert meta["time_rule"].startswith("arrival = (t - the first request written)")


def test_mooncake_session_ids(fixture_warehouse: Settings, tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    _, meta = meta_of(fixture_warehouse, tmp_path, ExportRequest("mooncake", out=out, session_ids=True))
    traces = aiperf_mooncake(out)
    sessions = (
        duckdb.connect(str(fixture_warehouse.duckdb_path), read_only=True)
        .execute("select count(*) from marts.fct_request where session_id <> '' and not is_failed")
        .fetchall()[0][0]
    )
    assert sum("session_id" in t for t in traces) == sessions > 0
    assert "session_id" in meta["hash_ids"]


def test_options_that_do_not_apply_are_refused(fixture_warehouse: Settings) -> None:
    with pytest.raises(ExportError, match="--block-size and --session-ids apply to the mooncake format"):
        export(fixture_warehouse, ExportRequest("vidur", block_size=16))
    with pytest.raises(ExportError, match="--max-tokens must be at least 2"):
        export(fixture_warehouse, ExportRequest("vidur", max_tokens=1))
    with pytest.raises(ExportError, match="apply to request formats"):
        export(fixture_warehouse, ExportRequest("acme-jobs", max_tokens=4096))


def test_transforms_are_reproducible_and_checked(fixture_warehouse: Settings, tmp_path: Path) -> None:
    """BurstGPT_1's 400 real rows at twice the rate, Poisson, prompts halved: the same seed gives the same
    bytes, another seed other arrivals; the sidecar's fidelity checks pass and say what they compared."""
    spec = TransformSpec(seed=5, rate_scale=2.0, burstiness=1.0, input_scale=0.5)
    window = ("0", "40000")

    def vidur(name: str, transform: TransformSpec | None) -> tuple[Path, dict]:
        return meta_of(
            fixture_warehouse,
            tmp_path,
            ExportRequest("vidur", window=window, out=tmp_path / name, transform=transform),
        )

    plain_path, plain = vidur("plain.csv", None)
    a_path, a = vidur("a.csv", spec)
    b_path, _ = vidur("b.csv", spec)
    c_path, _ = vidur("c.csv", dataclasses.replace(spec, seed=6))
    assert a_path.read_bytes() == b_path.read_bytes() != c_path.read_bytes()
    requests, _ = vidur_trace(a_path)
    source, _ = vidur_trace(plain_path)
    assert len(requests) == len(source) == a["rows"]
    assert [r.num_decode_tokens for r in requests] == [s.num_decode_tokens for s in source]
    assert [r.num_prefill_tokens for r in requests] == [
        max(round(s.num_prefill_tokens / 2), 1) for s in source
    ]
    span = requests[-1].arrived_at - requests[0].arrived_at
    assert a["transform"]["spec"] == dataclasses.asdict(spec) and "fidelity" not in plain
    checks = {c["name"]: c for c in a["fidelity"]}
    assert set(checks) == {"input_lengths", "output_lengths", "burstiness", "rate"}
    assert all(c["passed"] for c in checks.values()), checks
    assert checks["rate"]["value"] == pytest.approx((len(requests) - 1) / span)
    assert checks["burstiness"]["target"] == 1.0


def test_session_slices(fixture_warehouse: Settings, tmp_path: Path) -> None:
    con = duckdb.connect(str(fixture_warehouse.duckdb_path), read_only=True)
    try:
        sessions = con.execute(
            "select session_id, count(*) from marts.fct_request where coalesce(session_id, '') <> '' group by 1"
        ).fetchall()
    finally:
        con.close()
    assert sessions
    _, every = meta_of(
        fixture_warehouse, tmp_path, ExportRequest("burstgpt", sessions_only=True, out=tmp_path / "all.csv")
    )
    assert every["rows"] == sum(n for _, n in sessions)
    session, turns = sessions[0]
    _, one = meta_of(
        fixture_warehouse, tmp_path, ExportRequest("burstgpt", session=session, out=tmp_path / "one.csv")
    )
    assert one["rows"] == turns
