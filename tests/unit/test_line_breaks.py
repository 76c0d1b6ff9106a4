"""Line breaks counted block by block, against a regular expression over the whole bytes."""

from __future__ import annotations

import re
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from pipelines.lake.line_breaks import LineBreaks

BYTES = st.lists(st.sampled_from([b"a", b",", b"\n", b"\r", b"\r\n"]), max_size=40).map(b"".join)


def _blocks(data: bytes, cuts: list[int]) -> list[bytes]:
    edges = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [data[a:b] for a, b in pairwise(edges)]


@given(BYTES, st.lists(st.integers(min_value=0, max_value=60), max_size=6))
def test_counts_lf_crlf_and_lone_cr_whatever_the_blocks(data: bytes, cuts: list[int]) -> None:
    breaks = LineBreaks()
    for block in _blocks(data, cuts):
        breaks.add(block)
    assert breaks.count == len(re.findall(rb"\r\n|\r|\n", data))
    lines = re.findall(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", data)
    assert breaks.lines() == len(lines)
    assert breaks.last == data[-1:]


def test_a_crlf_split_between_blocks_counts_once() -> None:
    breaks = LineBreaks()
    for block in (b"a,b\r", b"\nc,d\n"):
        breaks.add(block)
    assert (breaks.count, breaks.lines()) == (2, 2)
