"""``--window START END`` of an export, parsed into the trace's own clock.

Requests (BurstGPT) live on the trace clock: ``timestamp_s``, seconds since 00:00 (UTC+8) of the trace's
first day, whose calendar date is unpublished. A bound is

- a number of seconds on that clock (``3600``, ``19440110.5``),
- a duration from day 0 with a unit (``90m``, ``36h``, ``225d``; units ``s m h d``),
- an ISO date or time (``2024-03-01``, ``2024-03-01T08:00``, with or without an offset; without one it is
  the trace's local time, UTC+8), only when ``BURSTGPT_START_DATE`` says which date day 0 was,
- ``start`` / ``end``: the first request of the selection / no upper bound.

Jobs (AcmeTrace) live in UTC: a bound is an ISO date or time (naive = UTC), or ``start`` / ``end``.

For both, END may be ``+DURATION`` (``+1h``, ``+7d``): that long after START. The window is half-open,
``START <= t < END``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Generic, TypeVar

TRACE_UTC_OFFSET = timezone(timedelta(hours=8))  # BurstGPT's Timestamp is local time, UTC+8
OPEN_START = "start"
OPEN_END = "end"
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>[smhd])")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class WindowError(ValueError):
    """A window bound that cannot be read; the message names it and the forms accepted."""


Bound = TypeVar("Bound", float, datetime)
Span = TypeVar("Span", float, timedelta)


@dataclass(frozen=True)
class _Window(Generic[Bound, Span]):
    """A window's bounds on its clock (``Bound``), END's ``+DURATION`` as ``Span``, and the text it was read from."""

    start: Bound | None
    end: Bound | None
    end_after: Span | None = None
    text: tuple[str, str] = (OPEN_START, OPEN_END)

    def resolve(self, first: Bound) -> tuple[Bound, Bound | None]:
        """``(start, end)`` with an open start taken as ``first`` (the first row selected)."""
        start = self.start if self.start is not None else first
        end = start + self.end_after if self.end_after is not None else self.end
        return start, end


@dataclass(frozen=True)
class RequestWindow(_Window[float, float]):
    """Bounds in trace seconds; ``start=None``: the first request selected; ``end=None``: no upper bound;
    ``end_after`` (seconds): END was ``+DURATION``, resolved once the start is known."""


@dataclass(frozen=True)
class JobWindow(_Window[datetime, timedelta]):
    """Bounds as naive UTC datetimes; ``None`` and ``end_after`` as for :class:`RequestWindow`."""


def parse_duration(text: str) -> float:
    """``90m`` → 5400.0: seconds of a number with a unit ``s m h d``."""
    match = _DURATION.fullmatch(text.strip())
    if not match:
        raise WindowError(f"{text!r} is not a duration like 30s, 90m, 36h or 7d")
    return float(match["value"]) * _UNITS[match["unit"]]


def _iso(text: str) -> datetime:
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return datetime.combine(date.fromisoformat(text), datetime.min.time())
        return datetime.fromisoformat(text)
    except ValueError as exc:
        raise WindowError(f"{text!r} is not an ISO date or time ({exc})") from None


def request_seconds(text: str, start_date: date | None) -> float:
    """One request bound on the trace clock (see the module docstring for the forms)."""
    value = text.strip()
    if _NUMBER.fullmatch(value):
        return float(value)
    if _DURATION.fullmatch(value):
        return parse_duration(value)
    if re.match(r"\d{4}-\d{2}-\d{2}", value):
        if start_date is None:
            raise WindowError(
                f"{value!r}: BurstGPT's calendar dates are unpublished, so an ISO bound needs "
                "BURSTGPT_START_DATE (the date of day 0); give seconds on the trace clock instead "
                "(e.g. 3600 or 36h)"
            )
        moment = _iso(value)
        local = moment.replace(tzinfo=TRACE_UTC_OFFSET) if moment.tzinfo is None else moment
        day0 = datetime.combine(start_date, datetime.min.time(), tzinfo=TRACE_UTC_OFFSET)
        return (local - day0).total_seconds()
    raise WindowError(
        f"{value!r} is not a request window bound: seconds on the trace clock (3600), a duration from "
        "day 0 (36h, 2d), an ISO date/time (with BURSTGPT_START_DATE), or start/end"
    )


def job_time(text: str) -> datetime:
    """One job bound as a naive UTC datetime (ISO; naive input is UTC)."""
    moment = _iso(text.strip())
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo is not None else moment


def _end_after(text: str) -> float | None:
    return parse_duration(text[1:]) if text.strip().startswith("+") else None


def _bounds(
    start: str, end: str, parse: Callable[[str], Bound]
) -> tuple[Bound | None, Bound | None, float | None]:
    """START and END read by ``parse`` (``None``: open) and END's ``+DURATION`` in seconds; END after START."""
    after = _end_after(end)
    lo = None if start.strip() == OPEN_START else parse(start)
    hi = None if end.strip() == OPEN_END or after is not None else parse(end)
    if lo is not None and hi is not None and not hi > lo:
        raise WindowError(f"window end {end!r} is not after its start {start!r}")
    return lo, hi, after


def request_window(start: str, end: str, start_date: date | None = None) -> RequestWindow:
    """``--window START END`` for a request export."""
    lo, hi, after = _bounds(start, end, lambda text: request_seconds(text, start_date))
    if any(v is not None and not math.isfinite(v) for v in (lo, hi)):
        raise WindowError(f"window {start!r} {end!r} is not finite")
    return RequestWindow(lo, hi, after, (start.strip(), end.strip()))


def job_window(start: str, end: str) -> JobWindow:
    """``--window START END`` for a job export."""
    lo, hi, after = _bounds(start, end, job_time)
    return JobWindow(
        lo, hi, timedelta(seconds=after) if after is not None else None, (start.strip(), end.strip())
    )
