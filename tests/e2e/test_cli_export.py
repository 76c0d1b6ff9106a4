"""`trace-warehouse export` on the built sample: the file lands where it says, reads back under its consumer's
rules with the window's rows and tokens, and the command and sidecar say the rows are SYNTHETIC."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.cli import query, run_cli
from tests.e2e.conftest import BuiltSample
from tests.support.replay_readers import aiperf_mooncake, vllm_burstgpt


def test_export_mooncake_of_the_sample_says_synthetic(built_sample: BuiltSample) -> None:
    """BurstGPT_3's first day: the sample's rows there are all generated (its only real rows are BurstGPT_1's
    400 head rows, Timestamp 5 -> 37,274)."""
    done = run_cli("export", "mooncake", "--window", "19440110", "+1d", "--speed", "2", env=built_sample.env)
    assert done.returncode == 0, done.stderr[-3000:]
    path = built_sample.warehouse / "exports" / "mooncake.jsonl"
    assert f"to {path}" in done.stdout and "SYNTHETIC" in done.stdout
    traces = aiperf_mooncake(path)
    meta = json.loads(Path(f"{path}.meta.json").read_text(encoding="utf-8"))
    assert (meta["window"]["start"], meta["window"]["end"]) == (19440110, 19440110 + 86400)
    expected = query(
        built_sample.warehouse,
        "select count(*), sum(request_tokens), sum(response_tokens) from marts.fct_request "
        "where timestamp_s >= 19440110 and timestamp_s < 19526510 and not is_failed",
    )[0]
    assert (
        len(traces),
        sum(t["input_length"] for t in traces),
        sum(t["output_length"] for t in traces),
    ) == expected
    assert (meta["data_origin"], meta["real_rows"]) == ("synthetic", 0) and meta["synthetic_rows"] == len(
        traces
    )
    assert len(traces) > 10 and max(t["timestamp"] for t in traces) < 12 * 3600 * 1000  # a day at speed 2

    head = run_cli("export", "vidur", "--window", "0", "37275", env=built_sample.env)  # the real rows
    assert head.returncode == 0 and "real data" in head.stdout and "SYNTHETIC" not in head.stdout


def test_export_burstgpt_by_model_and_errors(built_sample: BuiltSample, tmp_path: Path) -> None:
    out = tmp_path / "gpt4.csv"
    done = run_cli("export", "burstgpt", "--model", "GPT-4", "--out", str(out), env=built_sample.env)
    assert done.returncode == 0, done.stderr[-3000:]
    read = vllm_burstgpt(out)
    (gpt4,) = query(built_sample.warehouse, "select count(*) from marts.fct_request r join marts.dim_model m "
                    "using (model_key) where m.model_name = 'GPT-4'")  # fmt: skip
    assert (len(read.rows),) == gpt4 and {row[1] for row in read.rows} == {"GPT-4"}

    unknown = run_cli("export", "vidur", "--model", "GPT-5", env=built_sample.env)
    assert unknown.returncode == 1 and "unknown --model 'GPT-5'" in unknown.stderr
    empty = run_cli("export", "vidur", "--window", "1", "2", env=built_sample.env)
    assert empty.returncode == 1 and "no requests in the window" in empty.stderr
    missing = run_cli("export", "vidur", env={**built_sample.env, "WAREHOUSE_DIR": str(tmp_path / "none")})
    assert missing.returncode == 1 and "does not exist yet" in missing.stderr
