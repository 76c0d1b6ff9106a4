"""The rules of the replay exports that need no warehouse: ``--window`` parsing and Mooncake ``hash_ids``."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

import pytest

from pipelines.export.hash_ids import BLOCK_SIZE, HashIds, blocks
from pipelines.export.window import (
    WindowError,
    job_window,
    parse_duration,
    request_seconds,
    request_window,
)

# --- window ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("3600", 3600.0), ("19440110.5", 19440110.5), ("90m", 5400.0), ("36h", 129600.0), ("2d", 172800.0)],
)
def test_request_bounds_on_the_trace_clock(text: str, seconds: float) -> None:
    assert request_seconds(text, None) == seconds


def test_iso_request_bounds_need_day_0_and_read_as_trace_local_time() -> None:
    with pytest.raises(WindowError, match="BURSTGPT_START_DATE"):
        request_seconds("2023-05-02", None)
    day0 = date(2023, 5, 1)
    assert request_seconds("2023-05-02", day0) == 86400.0  # midnight of day 1, UTC+8
    assert request_seconds("2023-05-01T01:30:00", day0) == 5400.0
    assert request_seconds("2023-05-01T00:00:00+00:00", day0) == 8 * 3600.0  # UTC midnight = 08:00 local


def test_request_windows_open_and_relative() -> None:
    everything = request_window("start", "end")
    assert everything.resolve(5.0) == (5.0, None)
    first_hour = request_window("start", "+1h")
    assert first_hour.resolve(5.0) == (5.0, 3605.0)
    fixed = request_window("3600", "+30m")
    assert fixed.resolve(5.0) == (3600.0, 5400.0) and fixed.text == ("3600", "+30m")
    assert request_window("1h", "2h").resolve(0.0) == (3600.0, 7200.0)


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        ("10", "5", "is not after its start"),
        ("yesterday", "end", "is not a request window bound"),
        ("0", "+1 fortnight", "is not a duration"),
        ("0", "+", "is not a duration"),
    ],
)
def test_bad_request_windows_say_what_is_accepted(start: str, end: str, message: str) -> None:
    with pytest.raises(WindowError, match=message):
        request_window(start, end)


def test_job_windows_are_utc() -> None:
    window = job_window("2023-07-01", "2023-07-01T10:00:00+08:00")
    assert (window.start, window.end) == (datetime(2023, 7, 1), datetime(2023, 7, 1, 2))
    assert job_window("start", "+7d").resolve(datetime(2023, 3, 1)) == (
        datetime(2023, 3, 1),
        datetime(2023, 3, 8),
    )
    assert job_window("2023-07-01", "end").end_after is None
    with pytest.raises(WindowError, match="not an ISO date"):
        job_window("July", "end")
    with pytest.raises(WindowError, match="is not after its start"):
        job_window("2023-07-02", "2023-07-01")


def test_durations() -> None:
    assert parse_duration("1.5h") == 5400.0 and parse_duration(" 30s ") == 30.0
    assert timedelta(seconds=parse_duration("7d")) == timedelta(days=7)


# --- hash_ids -------------------------------------------------------------------------------------------


def test_blocks_per_prompt() -> None:
    assert [blocks(n) for n in (0, 1, 511, 512, 513, 1024, 1025)] == [0, 1, 1, 1, 2, 2, 3]


def test_requests_without_a_session_share_nothing() -> None:
    hashes = HashIds()
    assert hashes.assign(472) == [0]
    assert hashes.assign(1087) == [1, 2, 3]
    assert hashes.assign(1087) == [4, 5, 6]  # the same length is not the same prompt
    assert hashes.assign(0) == []
    assert hashes.next_id == 7


def test_a_session_turn_reuses_the_previous_turns_full_blocks() -> None:
    hashes = HashIds()
    assert hashes.assign(1100, "s") == [0, 1, 2]  # blocks 0, 1 full; 2 holds 76 tokens
    assert hashes.assign(600, None) == [3, 4]  # another user's request in between
    assert hashes.assign(1700, "s") == [0, 1, 5, 6]  # history (2 full blocks) resent, then new blocks
    assert hashes.assign(1536, "s") == [0, 1, 5]  # exactly 3 full blocks: all shared
    assert hashes.assign(300, "s") == [7]  # shorter than a block: nothing full to share
    assert hashes.assign(2048, "s") == [8, 9, 10, 11]  # the chain restarted at the short turn
    assert hashes.assign(1024, "t") == [12, 13]  # another session shares nothing with "s"


def test_hash_ids_fit_aiperfs_block_rule_and_are_deterministic() -> None:
    """aiperf rebuilds a prompt block by block: input_length - (len(hash_ids) - 1) * 512 in (0, 512]."""
    rng = random.Random(7)
    lines = [(rng.randrange(1, 9000), rng.choice(["a", "b", None])) for _ in range(500)]
    first = [HashIds().assign(n, s) for n, s in lines[:1]]
    hashes, again = HashIds(), HashIds()
    for n, session in lines:
        ids = hashes.assign(n, session)
        assert ids == again.assign(n, session)
        assert 0 < n - (len(ids) - 1) * BLOCK_SIZE <= BLOCK_SIZE
        assert len(set(ids)) == len(ids)
    assert first == [list(range(blocks(lines[0][0])))]
