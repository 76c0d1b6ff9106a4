"""Readers that parse the replay exports the way their consumers do — not the way we wrote them.

Each mirrors the consumer's own parsing code (read in the public repositories; none is a dependency):

- :func:`vllm_burstgpt` — vLLM ``vllm/benchmarks/datasets.py``, ``BurstGPTDataset.load_data`` and
  ``sample``: ``pd.read_csv``; keep ``df["Model"] == "GPT-4"`` and ``df["Response tokens"] > 0`` (by name);
  then ``data.values.tolist()`` and ``input_len = int(row[2])``, ``output_len = int(row[3])`` (by position).
- :func:`aiperf_mooncake` — aiperf ``src/aiperf/dataset/loader/models.py`` ``MooncakeTrace`` (the fields,
  their types, "exactly one input mode", "hash_ids only with input_length", timestamp in milliseconds) and
  the prompt generator's block rule (``_build_token_sequence``: ``final_block_size = input_length -
  (len(hash_ids) - 1) * block_size`` must be in ``(0, block_size]``, block size 512 for Mooncake traces).
- :func:`vidur_trace` — Vidur ``vidur/request_generator/trace_replay_request_generator.py``
  ``TraceReplayRequestGenerator`` (microsoft/vidur 7d47513): ``pd.read_csv``; ``num_prefill_tokens`` /
  ``num_decode_tokens`` scaled (factor 1 here), ``astype(int)``, ``clip(lower=1)``; the excess of their sum
  over ``max_tokens`` (default 4096) subtracted from the prefill; ``arrived_at`` scaled by
  ``time_scale_factor``; each row becomes ``Request(arrived_at, num_prefill_tokens, num_decode_tokens)``.
- :func:`simulator_jobs` — a Helios/Philly-style job-trace simulator: ``pd.read_csv``, jobs by
  ``submit_time`` (seconds from the trace start) with ``duration`` and ``gpu_num``.
- :func:`helios_trace` — the Helios simulator, S-Lab-System-Group/HeliosArtifact at commit
  bdaae109c21f8038a2331e6a23a582d5ae78ab5b (MIT licence), ``framework/QSSF Service/utils.py``
  ``trace_process``: ``pd.read_csv(parse_dates=['submit_time'], usecols=[...9 names])``; keep
  ``gpu_num > 0``; keep ``vc`` in the VC dict's keys; keep ``submit_time >= start`` (2020-04-01 there);
  ``int(datetime.timestamp(...))`` minus the first row's; keep the rows between the experiment range's ends
  counted from ``start`` (both ends inclusive).
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

MOONCAKE_BLOCK_SIZE = 512
# MooncakeTrace's fields (aiperf); anything else fails its validation as an extra field.
MOONCAKE_FIELDS = {
    "type", "input_length", "text_input", "messages", "tools", "payload", "message_mode", "output_length",
    "hash_ids", "timestamp", "delay", "session_id", "extra",
}  # fmt: skip


@dataclass(frozen=True)
class VllmBurstGPT:
    rows: list[list]  # every row, as data.values.tolist() gives it
    samples: list[tuple[int, int]]  # (prompt_len, expected_output_len) of the rows vLLM keeps


def vllm_burstgpt(path: Path) -> VllmBurstGPT:
    df = pd.read_csv(path)
    gpt4 = df[df["Model"] == "GPT-4"]
    gpt4 = gpt4[gpt4["Response tokens"] > 0]
    samples = [(int(row[2]), int(row[3])) for row in gpt4.values.tolist()]
    return VllmBurstGPT(df.values.tolist(), samples)


def aiperf_mooncake(path: Path, block_size: int = MOONCAKE_BLOCK_SIZE) -> list[dict]:
    traces = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        trace = json.loads(line)
        where = f"{path.name}:{number}"
        assert isinstance(trace, dict) and set(trace) <= MOONCAKE_FIELDS, where
        modes = [trace.get(k) is not None for k in ("input_length", "text_input", "messages", "payload")]
        assert sum(modes) == 1, f"{where}: exactly one input mode"
        assert type(trace["input_length"]) is int and trace["input_length"] >= 0, where
        assert type(trace.get("output_length")) is int, where
        assert type(trace.get("timestamp")) in (int, float) and trace["timestamp"] >= 0, where
        hash_ids = trace.get("hash_ids")
        assert isinstance(hash_ids, list) and all(type(h) is int for h in hash_ids), where
        if hash_ids:  # the prompt generator rebuilds the prompt block by block
            final_block_size = trace["input_length"] - (len(hash_ids) - 1) * block_size
            assert 0 < final_block_size <= block_size, f"{where}: {trace}"
        traces.append(trace)
    return traces


@dataclass(frozen=True)
class VidurRequest:
    arrived_at: float
    num_prefill_tokens: int
    num_decode_tokens: int


VIDUR_MAX_TOKENS = 4096  # TraceRequestGeneratorConfig.max_tokens's default (microsoft/vidur 7d47513)


def vidur_trace(
    path: Path, time_scale_factor: float = 1.0, max_tokens: int = VIDUR_MAX_TOKENS
) -> tuple[list[VidurRequest], pd.DataFrame]:
    """Vidur's requests, and the frame as read before its clipping (to see what clipping changed): tokens
    clipped to at least 1, then the excess of prefill + decode over ``max_tokens`` cut from the prefill, and
    its assertion that every request fits."""
    raw = pd.read_csv(path)
    df = raw.copy()
    df["num_prefill_tokens"] = (df["num_prefill_tokens"] * 1).astype(int).clip(lower=1)
    df["num_decode_tokens"] = (df["num_decode_tokens"] * 1).astype(int).clip(lower=1)
    diff_tokens = (df["num_prefill_tokens"] + df["num_decode_tokens"] - max_tokens).clip(lower=0)
    df["num_prefill_tokens"] = df["num_prefill_tokens"] - diff_tokens
    assert all(df["num_prefill_tokens"] + df["num_decode_tokens"] <= max_tokens)
    df["arrived_at"] = df["arrived_at"] * time_scale_factor
    requests = [
        VidurRequest(row["arrived_at"], row["num_prefill_tokens"], row["num_decode_tokens"])
        for _, row in df.iterrows()
    ]
    return requests, raw


def simulator_jobs(path: Path) -> pd.DataFrame:
    df = pd.read_csv(path, dtype={"job_id": str})
    for column in ("job_id", "submit_time", "duration", "gpu_num"):
        assert column in df.columns, column
    assert df["submit_time"].is_monotonic_increasing and (df["submit_time"] >= 0).all()
    assert (df["duration"] >= 0).all() and df["duration"].notna().all()
    return df


HELIOS_USECOLS = ["job_id", "user", "vc", "jobname", "gpu_num", "cpu_num", "state", "submit_time", "duration"]
HELIOS_START = "2020-04-01 00:00:00"
HELIOS_SEPT = ("2020-09-01 00:00:00", "2020-09-26 23:59:00")


@dataclass(frozen=True)
class HeliosRead:
    raw: pd.DataFrame  # as pd.read_csv gives it, before any filter
    jobs: pd.DataFrame  # what the simulator keeps, submit_time in seconds since the first job kept
    dropped: dict[str, int]  # rows each step drops: "gpu", "vc", "start", "range"


def helios_trace(
    path: Path, vcs: set[str], date_range: tuple[str, str] = HELIOS_SEPT, start: str = HELIOS_START
) -> HeliosRead:
    df = pd.read_csv(path, parse_dates=["submit_time"], usecols=HELIOS_USECOLS)
    raw = df.copy()
    dropped = {}
    for step, keep in (
        ("gpu", lambda d: d["gpu_num"] > 0),
        ("vc", lambda d: d["vc"].isin(vcs)),
        ("start", lambda d: d["submit_time"] >= pd.Timestamp(start)),
    ):
        before = len(df)
        df = df[keep(df)]
        dropped[step] = before - len(df)
    df = df.copy()
    df["submit_time"] = df["submit_time"].apply(lambda x: int(datetime.datetime.timestamp(pd.Timestamp(x))))
    if len(df):
        df["submit_time"] = df["submit_time"] - df.iloc[0]["submit_time"]
    begin = (pd.Timestamp(date_range[0]) - pd.Timestamp(start)).total_seconds()
    end = (pd.Timestamp(date_range[1]) - pd.Timestamp(start)).total_seconds()
    before = len(df)
    df = df[(df["submit_time"] >= begin) & (df["submit_time"] <= end)]
    dropped["range"] = before - len(df)
    df = df.sort_values(by="submit_time").reset_index(drop=True)
    return HeliosRead(raw, df, dropped)
