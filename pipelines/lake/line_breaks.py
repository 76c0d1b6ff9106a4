"""Counting the line endings of a file read in blocks, as a CSV reader ends lines: at an LF, a CRLF or a lone CR.

The fast path's reader (``wide_fast``), the appended-tail check (``append``) and the exact path's dialect
sniff (``dialect``) count the endings of bytes they read anyway, so the count costs no second read. A block
without a CR (every upstream file) is one pass for the LFs after a ``find`` for a CR; CRs and CRLFs are
counted only when a block holds a CR.
"""

from __future__ import annotations


class LineBreaks:
    """Line endings in the blocks given to :meth:`add`, in file order, and the last byte seen."""

    def __init__(self) -> None:
        self.lf = 0  # LF bytes, a CRLF's included
        self.cr = 0  # CR bytes, a CRLF's included
        self.crlf = 0
        self.last = b""

    def add(self, block: bytes) -> None:
        if not block:
            return
        self.lf += block.count(b"\n")
        if block.find(b"\r") >= 0:
            self.cr += block.count(b"\r")
            self.crlf += block.count(b"\r\n")
        if self.last == b"\r" and block[:1] == b"\n":  # a CRLF across two blocks
            self.crlf += 1
        self.last = block[-1:]

    @property
    def count(self) -> int:
        """Line breaks: every LF, and every CR that no LF follows (a CRLF counts once)."""
        return self.lf + self.cr - self.crlf

    @property
    def mixed(self) -> bool:
        """Endings other than all LF or all CRLF: a lone CR, or LF and CRLF lines both."""
        return self.cr > self.crlf or (self.crlf > 0 and self.lf > self.crlf)

    def lines(self) -> int:
        """Lines in what was read: the breaks, and one more when the last line has none."""
        return self.count + (1 if self.last not in (b"", b"\n", b"\r") else 0)
