"""A command under a pseudo-terminal, and what its output leaves on the screen.

:func:`run_in_terminal` runs a command with stdin, stdout and stderr on a pty of a given size (so it sees a
terminal, as a user's shell would give it) and returns everything it wrote. :func:`screen_lines` replays
that output the way a terminal does — carriage returns, cursor up/down, erased lines — so a display that
redraws itself in place counts as the few lines a user sees, not as every redraw.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import termios
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

_TOKEN = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b[()][A-Za-z0-9]|\x1b[=>]|(\r)|(\n)|([^\x1b\r\n]+)")


def run_in_terminal(
    cmd: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    columns: int = 120,
    rows: int = 40,
    timeout: float = 1800,
) -> tuple[int, str]:
    """Run ``cmd`` on a fresh pty; return its exit code and all it printed (ANSI sequences included)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    try:
        proc = subprocess.Popen(
            list(cmd), cwd=cwd, env=dict(env), stdin=slave, stdout=slave, stderr=slave, close_fds=True
        )
    finally:
        os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer has closed the pty
                break
            if not data:
                break
            chunks.append(data)
        else:
            proc.kill()
            raise TimeoutError(f"{cmd} still running after {timeout:.0f}s")
        return proc.wait(timeout=60), b"".join(chunks).decode("utf-8", errors="replace")
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


def screen_lines(output: str) -> list[str]:
    """The lines ``output`` leaves on an endless terminal (no scrolling limit), trailing blanks dropped."""
    lines: list[str] = [""]
    row = col = 0
    for m in _TOKEN.finditer(output):
        params, command, cr, lf, text = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
        if text:
            line = lines[row].ljust(col)
            lines[row] = line[:col] + text + line[col + len(text) :]
            col += len(text)
        elif cr:
            col = 0
        elif lf:
            row, col = row + 1, 0
        elif command in ("A", "B", "F", "E"):
            n = int(params or "1")
            row = max(0, row - n) if command in ("A", "F") else row + n
            col = 0 if command in ("E", "F") else col
        elif command == "G":
            col = max(0, int(params or "1") - 1)
        elif command == "K":
            lines[row] = "" if params == "2" else lines[row][:col] if params in ("", "0") else lines[row]
        elif command == "J" and params in ("", "0"):
            del lines[row + 1 :]
            lines[row] = lines[row][:col]
        while len(lines) <= row:
            lines.append("")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines
