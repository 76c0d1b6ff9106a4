"""Counting the line breaks of a file read in blocks, as a CSV reader ends lines: at an LF, a CRLF or a lone CR.

Both the fast path's reader (``wide_fast``) and the appended-tail check (``append``) count the lines of bytes
they read anyway, so the count costs no second read. A block without a CR (every upstream file) is one pass
for the LFs after a ``find`` for a CR; CR and CRLF endings are counted only when a block holds a CR.
"""

from __future__ import annotations


class LineBreaks:
    """Line breaks in the blocks given to :meth:`add`, in file order, and the last byte seen."""

    def __init__(self) -> None:
        self.count = 0
        self.last = b""

    def add(self, block: bytes) -> None:
        if not block:
            return
        breaks = block.count(b"\n")
        if block.find(b"\r") >= 0:  # a CR ends a line unless an LF follows it (a CRLF counts once)
            breaks += block.count(b"\r") - block.count(b"\r\n")
        if self.last == b"\r" and block[:1] == b"\n":  # a CRLF across two blocks: counted twice
            breaks -= 1
        self.count += breaks
        self.last = block[-1:]

    def lines(self) -> int:
        """Lines in what was read: the breaks, and one more when the last line has none."""
        return self.count + (1 if self.last not in (b"", b"\n", b"\r") else 0)
