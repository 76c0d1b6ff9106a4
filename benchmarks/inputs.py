"""Inputs the benchmarks derive from the generated mirror (set-up, never measured).

- :func:`append_day`: a BurstGPT file with one more day — the rows of its last day again, one day later.
- :func:`grown_copies`: one wide utilization file at 0.25×, 1× and 4× its size (the first quarter of its
  rows; itself; four consecutive days made by shifting its ``Time`` column by 0–3 days).
- :func:`linked_mirror` and :func:`replace_file`: a mirror made of symlinks to the generated one, in which
  one file is then changed in place (``MANIFEST.json`` updated), so the change lands through the real
  mirror path while the other files stay unchanged for the landing's size-and-mtime check.
- :func:`append_utilization_day` and :func:`refresh_manifest`: a utilization file grown in place by one day
  (its last 24 hours again, one day later), and the mirror's manifest told its new size and sha256.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta
from pathlib import Path

from pipelines.atomic_write import replacing
from pipelines.sources import mirror_manifest as mm

SECONDS_PER_DAY = 86_400
_CHUNK = 1 << 20


def count_lines(path: Path) -> int:
    """Data lines of a CSV file: lines after the header (a last line without newline counts)."""
    lines = 0
    last = b"\n"
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    if last != b"\n":
        lines += 1
    return max(lines - 1, 0)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _data_lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as fh:
        next(fh, None)
        for line in fh:
            yield line if line.endswith(b"\n") else line + b"\n"


def _copy(src: Path, out: Path) -> bool:
    """Copy ``src`` to ``out``; True when it ended with a newline."""
    last = b"\n"
    with open(src, "rb") as fin, open(out, "wb") as fout:
        while chunk := fin.read(_CHUNK):
            fout.write(chunk)
            last = chunk[-1:]
    return last == b"\n"


def append_day(src: Path, out: Path) -> dict[str, int]:
    """Write ``src`` plus one new day: every row of its last day index (``Timestamp // 86400``) again,
    86,400 s later. BurstGPT files 1–2 only (integer ``Timestamp`` first). Returns rows and the new day."""
    with open(src, "rb") as fh:
        header = fh.readline()
    if not header.startswith(b"Timestamp,"):
        raise ValueError(f"{src}: expected a BurstGPT file whose first column is Timestamp, got {header!r}")
    last_day, last_rows = -1, []
    for line in _data_lines(src):
        stamp, _, rest = line.partition(b",")
        day = int(float(stamp)) // SECONDS_PER_DAY
        if day != last_day:
            last_day, last_rows = day, []
        last_rows.append((int(float(stamp)), rest))
    if not last_rows:
        raise ValueError(f"{src}: no data rows to repeat")
    out.parent.mkdir(parents=True, exist_ok=True)
    ended_with_newline = _copy(src, out)
    with open(out, "ab") as fh:
        if not ended_with_newline:
            fh.write(b"\n")
        fh.writelines(b"%d,%s" % (stamp + SECONDS_PER_DAY, rest) for stamp, rest in last_rows)
    return {"appended_rows": len(last_rows), "new_day_index": last_day + 1}


def _shift_days(line: bytes, days: int) -> bytes:
    """A utilization line whose ``Time`` (``YYYY-MM-DD HH:MM:SS+08:00``) is moved by ``days`` days."""
    if days == 0 or len(line) < 10:
        return line
    try:
        moved = date.fromisoformat(line[:10].decode("ascii")) + timedelta(days=days)
    except ValueError:  # a line without a date stays as it is (the loader rejects it the same way)
        return line
    return moved.isoformat().encode("ascii") + line[10:]


def grown_copies(src: Path, out_dir: Path, factors: Sequence[float] = (0.25, 1.0, 4.0)) -> dict[float, Path]:
    """``src`` at each size factor: below 1 its first rows, above 1 whole consecutive days (integers)."""
    with open(src, "rb") as fh:
        header = fh.readline()
    rows = count_lines(src)
    out_dir.mkdir(parents=True, exist_ok=True)
    made: dict[float, Path] = {}
    for factor in factors:
        out = out_dir / f"{src.stem}-{factor:g}x.csv"
        with open(out, "wb") as fh:
            fh.write(header)
            if factor <= 1:
                keep = max(1, round(rows * factor))
                for i, line in enumerate(_data_lines(src)):
                    if i >= keep:
                        break
                    fh.write(line)
            else:
                for day in range(round(factor)):
                    fh.writelines(_shift_days(line, day) for line in _data_lines(src))
        made[factor] = out
    return made


def linked_mirror(original: Path, out: Path) -> Path:
    """A mirror at ``out`` whose files are symlinks to ``original``'s (same MANIFEST.json): a copy that
    costs nothing and whose files can then be replaced one by one (:func:`replace_file`)."""
    manifest = mm.read(original)
    if manifest is None:
        raise FileNotFoundError(f"{original} has no {mm.MANIFEST_NAME}")
    for mirror_path in manifest.files:
        target = out / mirror_path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(original / mirror_path)
    mm.write(out, manifest)
    return out


def replace_file(mirror: Path, mirror_path: str, new: Path) -> None:
    """Put a copy of ``new`` at ``mirror_path`` in ``mirror`` (atomically) and give its MANIFEST.json
    entry the new bytes and sha256 — an upstream file that changed in place."""
    manifest = mm.read(mirror)
    if manifest is None or manifest.entry(mirror_path) is None:
        raise FileNotFoundError(f"{mirror} lists no {mirror_path}")
    with replacing(mirror / mirror_path) as tmp:
        _copy(new, tmp)
    refresh_manifest(mirror, [mirror_path])


def _time_of(line: bytes) -> datetime | None:
    """The ``Time`` (``YYYY-MM-DD HH:MM:SS…``) a utilization line starts with, None for a line without one."""
    try:
        return datetime.fromisoformat(line[:19].decode("ascii"))
    except ValueError:
        return None


def _last_day_lines(path: Path) -> list[bytes]:
    """The lines of ``path``'s last 24 hours (time > last time − 86,400 s), read backwards from its end;
    none when it has no line with a time."""
    with open(path, "rb") as fh:
        end = fh.seek(0, 2)
        tail, pos, last, start = b"", end, None, None
        while pos > 0:
            pos = max(0, pos - 8 * _CHUNK)
            fh.seek(pos)
            tail = fh.read(end - pos)
            lines = tail.splitlines(keepends=True)
            lines = lines[1:] if pos else lines  # a partial first line, or the header (no Time)
            times = [t for t in (_time_of(line) for line in lines) if t is not None]
            if not times:
                continue
            last = last or times[-1]
            start = last - timedelta(seconds=SECONDS_PER_DAY)
            if times[0] <= start or pos == 0:
                break
    if last is None or start is None:  # a header alone (a metric the cluster does not report)
        return []
    chosen = [line for line in lines if (t := _time_of(line)) is not None and t > start]
    return [line if line.endswith(b"\n") else line + b"\n" for line in chosen]


def append_utilization_day(path: Path) -> int:
    """Append one new day to the utilization file ``path`` in place: the rows of its last 24 hours again,
    86,400 s later (the date moved by one day, the rest of the line as it is). Returns the rows appended
    (0, the file untouched, when it has no data line)."""
    new = [_shift_days(line, 1) for line in _last_day_lines(path)]
    if not new:
        return 0
    with open(path, "rb+") as fh:
        fh.seek(-1, 2)
        newline = fh.read(1) == b"\n"
        fh.seek(0, 2)
        if not newline:
            fh.write(b"\n")
        fh.writelines(new)
    return len(new)


def refresh_manifest(mirror: Path, mirror_paths: Sequence[str]) -> None:
    """Give ``mirror_paths`` (changed in place) their new bytes and sha256 in the mirror's MANIFEST.json."""
    manifest = mm.read(mirror)
    if manifest is None:
        raise FileNotFoundError(f"{mirror} has no {mm.MANIFEST_NAME}")
    files = dict(manifest.files)
    for mirror_path in mirror_paths:
        if mirror_path not in files:
            raise FileNotFoundError(f"{mirror} lists no {mirror_path} in {mm.MANIFEST_NAME}")
        target = mirror / mirror_path
        files[mirror_path] = replace(
            files[mirror_path], bytes=target.stat().st_size, sha256=sha256_of(target)
        )
    mm.write(mirror, mm.MirrorManifest(files, manifest.extra))
