"""What a CSV file's bytes look like before DuckDB reads it line by line: line endings and quotes.

DuckDB's CSV reader splits lines on one kind of line ending per file. A file whose endings change part-way
(CRLF lines followed by LF lines: files concatenated, or edited on two systems) stops it with a parser
error, and a line ended by a lone CR (classic Mac) is not a line to it at all; Python's csv module and pandas
read both. And a quoted field may hold line breaks: one record over several lines.

``prepare`` finds out in one pass over the bytes (no decoding; a regex per 1 MB chunk tells whether any
quoted field may stay open at a line's end). A file with neither is read as it is. Otherwise DuckDB reads a
copy in which every line ending (CRLF, CR or LF) is LF and each record is one line (its quoted line breaks
written as JOINED_BREAK); ``Prepared.spans`` maps the copy's lines back to the file's, so every record keeps
the number of the line it starts on. A quoted field never closed does not swallow the rest of the file, as
it does for Python's csv module: its line is rejected and the lines after it are read again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pipelines.lake.line_breaks import LineBreaks

_CHUNK = 1 << 20


# Written in place of a line break inside a quoted field, so that the record is one line to DuckDB
# (``csv_sql.numbered_lines_sql`` turns it back into LF). A file that holds this byte is not joined.
JOINED_BREAK = b"\x1e"
# Put before a line whose quoted field is never closed (it would run to the end of the file, or past
# MAX_RECORD_LINES): that line is rejected (``csv_sql.UNCLOSED_REASON``) and the lines after it are read again.
UNCLOSED_MARK = b"\x1d"
MAX_RECORD_LINES = 10_000


@dataclass(frozen=True)
class Dialect:
    mixed_endings: bool  # line endings other than all-LF or all-CRLF: parse a copy with LF endings
    quotes: bool  # a double quote occurs: a quoted field may hold a line break
    separator: bool  # JOINED_BREAK or UNCLOSED_MARK occurs in the file: records are not joined


def sniff(path: Path) -> Dialect:
    """Line endings and quotes of ``path`` (one pass over its bytes)."""
    endings = LineBreaks()
    quotes = separator = False
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            endings.add(chunk)
            quotes = quotes or b'"' in chunk
            separator = separator or JOINED_BREAK in chunk or UNCLOSED_MARK in chunk
    return Dialect(mixed_endings=endings.mixed, quotes=quotes, separator=separator)


def ends_in_quotes(line: bytes, in_quotes: bool) -> bool:
    """Whether a quoted field is still open at the end of ``line`` (without its line ending), read as
    Python's csv module reads it: a quote opens a field only at the field's start, ``""`` inside one is a
    quote, text after the closing quote belongs to the field."""
    i, n = 0, len(line)
    while True:
        if in_quotes or (i < n and line[i] == 0x22):
            i += 0 if in_quotes else 1
            in_quotes = False
            while True:
                j = line.find(b'"', i)
                if j < 0:
                    return True
                if line[j + 1 : j + 2] == b'"':
                    i = j + 2
                    continue
                i = j + 1
                break
        k = line.find(b",", i)
        if k < 0:
            return False
        i = k + 1


@dataclass
class Prepared:
    """The file DuckDB reads and how its lines map back to the landed file's."""

    path: Path
    # (line of ``path``, lines of the landed file it stands for beyond itself, cumulative): the lines of
    # ``path`` after ``line`` are numbered ``shift`` further on in the landed file.
    spans: list[tuple[int, int]]


def prepare(path: Path, tmp: Path) -> Prepared:
    """``path`` itself when DuckDB can read it line by line as it is; else a copy at ``tmp`` with LF line
    endings and each quoted field's line breaks written as JOINED_BREAK (one record, one line)."""
    d = sniff(path)
    join = d.quotes and not d.separator and _opens_quoted_field(path)
    if not d.mixed_endings and not join:
        return Prepared(path, [])
    spans: list[tuple[int, int]] = []
    out_line = shift = 0
    with path.open("rb") as fh, tmp.open("wb") as out:

        def emit(parts: list[bytes]) -> None:
            nonlocal out_line, shift
            out.write(JOINED_BREAK.join(parts) + b"\n")
            out_line += 1
            if len(parts) > 1:
                shift += len(parts) - 1
                spans.append((out_line, shift))

        pending: list[bytes] = []  # the lines of a record whose quoted field is open
        for raw in fh:
            for line in _split(raw):
                if not join:
                    emit([line])
                    continue
                if pending:
                    pending.append(line)
                    if not ends_in_quotes(line, True):
                        emit(pending)
                        pending = []
                    elif len(pending) >= MAX_RECORD_LINES:
                        pending = _unjoin(pending, emit)
                elif b'"' in line and ends_in_quotes(line, False):
                    pending = [line]
                else:
                    emit([line])
        while pending:  # a quoted field open at the end of the file: its lines one by one
            pending = _unjoin(pending, emit)
    return Prepared(tmp, spans)


# Lines that each end outside quotes when they start outside them (fields as ``ends_in_quotes`` reads
# them), each ended by LF or CRLF, the last maybe by nothing: a chunk of the file that matches has no record
# spanning lines.
_FIELD = rb'(?:"(?:[^"\r\n]|"")*+"[^,\r\n]*|[^,"\r\n][^,\r\n]*|)'
_LINE = rb"%s(?:,%s)*+" % (_FIELD, _FIELD)
_CLOSED_LINES = re.compile(rb"(?:%s\r?\n)*+(?:%s)?" % (_LINE, _LINE))


def _opens_quoted_field(path: Path) -> bool:
    """Whether some line of ``path`` (read from outside quotes) may leave a quoted field open, or holds a
    lone CR: only then can a record span lines (``prepare`` then reads it line by line)."""
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            chunk += fh.readline()  # whole lines
            if b'"' in chunk and not _CLOSED_LINES.fullmatch(chunk):
                return True
    return False


def _split(raw: bytes) -> list[bytes]:
    """The lines in one LF-ended chunk of the file (a lone CR ends a line too), without their endings."""
    if raw.endswith(b"\r\n"):
        body = raw[:-2]
    elif raw.endswith(b"\n"):
        body = raw[:-1]
    else:  # the last line, without LF
        body = raw[:-1] if raw.endswith(b"\r") else raw
    return body.split(b"\r") if b"\r" in body else [body]


def _unjoin(pending: list[bytes], emit: Callable[[list[bytes]], None]) -> list[bytes]:
    """The first of ``pending``'s lines alone; the others read again from outside quotes."""
    emit([UNCLOSED_MARK + pending[0]])
    rest: list[bytes] = []
    for line in pending[1:]:
        if rest:
            rest.append(line)
            if not ends_in_quotes(line, True):
                emit(rest)
                rest = []
        elif b'"' in line and ends_in_quotes(line, False):
            rest = [line]
        else:
            emit([line])
    return rest
