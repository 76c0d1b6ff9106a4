"""Reading and checking a CSV file's header line before any row is parsed."""

from __future__ import annotations

import csv
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


def read_header(path: Path) -> list[str]:
    """The column names of ``path``'s first line (BOM and CR stripped, quoted names unquoted)."""
    with path.open("rb") as fh:
        raw = fh.readline(_MAX_HEADER_BYTES)
    if not raw:
        raise LoadError(path, "file is empty: expected a header line")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoadError(path, f"header line is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    text = text.rstrip("\r\n")
    if not text.strip():
        raise LoadError(path, "first line is blank: expected a header line")
    return next(csv.reader([text]))


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
