"""Reading and checking a CSV file's header line before any row is parsed."""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

from pipelines.families.schemas import FileSchema

_MAX_HEADER_BYTES = 64 * 1024 * 1024


class LoadError(RuntimeError):
    """A whole file cannot be loaded; the message names the file and the rule it breaks."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


class DiskFullError(LoadError):
    """The disk filled up while a file was loaded: the family's load stops (its other files would fail alike)
    and the lake keeps what it had."""


def read_header(path: Path) -> list[str]:
    """The column names of ``path``'s first line (BOM and CR stripped, quoted names unquoted)."""
    with path.open("rb") as fh:
        raw = fh.readline(_MAX_HEADER_BYTES)
    if not raw:
        raise LoadError(path, "file is empty: expected a header line")
    raw = re.split(rb"\r\n|\r|\n", raw, maxsplit=1)[0]  # a file with lone-CR line endings reads whole here
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoadError(path, f"header line is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if not text.strip():
        raise LoadError(path, "first line is blank: expected a header line")
    if "\0" in text:
        raise LoadError(path, "header line holds a NUL byte: the file is binary or damaged; land it again")
    try:
        return next(csv.reader([text]))
    except csv.Error as exc:
        raise LoadError(path, f"header line is not CSV ({exc}): fix line 1 and land the file again") from None


# Where DuckDB's message places the error: "line 12", "Line: 12", "byte 3456", "position 3456".
_WHERE = re.compile(r"\b(line|byte|position)[:\s]+(\d+)", re.IGNORECASE)


def engine_error(path: Path | str, exc: BaseException, offset: int = 0) -> LoadError:
    """A LoadError for an error of the SQL engine while it read ``path``: the file and where the engine
    stopped (a line, or a byte offset), in the project's words (the engine's own message and exception class
    stay out of it: the command line shows LoadErrors as they are)."""
    found = _WHERE.search(str(exc))
    if found is None:
        where = "at a place the engine did not name"
    elif found.group(1).lower() == "line":
        where = f"near line {int(found.group(2)) + offset}"
    else:
        where = f"near byte {int(found.group(2))}"
    return LoadError(
        path,
        f"could not be read line by line {where}; nothing of the file was published (the lake keeps what it "
        "had). Check the file's encoding and line endings there, land it again and re-run",
    )


def check_header(path: Path, header: list[str], schema: FileSchema) -> None:
    """Raise a LoadError naming the file when the header does not fit the family's schema."""
    dupes = sorted(name for name, n in Counter(header).items() if n > 1)
    if dupes:
        names = ", ".join(dupes)
        if schema.layout == "table":
            raise LoadError(path, f"header repeats column(s) {names}")
        # a wide file's column names one node or GPU: twice, its cells could not be told apart
        raise LoadError(path, f"header repeats series column(s) {names}: each names one node or GPU")
    if any(not h.strip() for h in header) and schema.layout == "table":
        raise LoadError(path, f"header has an empty column name: {header}")
    missing = [h for h in schema.required_headers() if h not in header]
    if missing:
        raise LoadError(path, f"header lacks column(s) {', '.join(missing)} (found: {', '.join(header)})")
    if schema.unknown == "error":
        extra = [h for h in header if schema.column(h) is None]
        if extra:
            expected = ", ".join(c.header for c in schema.columns)
            raise LoadError(
                path, f"header has unexpected column(s) {', '.join(extra)} (expected: {expected})"
            )
    if schema.layout == "wide" and header[0] != "Time":
        raise LoadError(path, f"first column is {header[0]!r}: a utilization file starts with Time")
