"""The ``hash_ids`` of a Mooncake-style trace line, from token counts alone.

In a Mooncake trace each id names one block of ``BLOCK_SIZE`` prompt tokens; two requests that share a
leading run of ids share that prompt prefix (a KV-cache hit when replayed). aiperf rebuilds a prompt from
``input_length`` and ``hash_ids`` and requires ``len(hash_ids) == ceil(input_length / block_size)`` (its
last block holds the remainder). BurstGPT has no prompt text, so real prefix sharing is unknown; the rule
here is stated, deterministic and conservative:

- a request's prompt has ``ceil(input_length / block_size)`` blocks (``BLOCK_SIZE`` 512 unless the export
  says ``--block-size``); ``input_length = 0`` has no block;
- within one BurstGPT session (``Session ID``, conversation rows of BurstGPT_3), each turn reuses as its
  prefix the previous exported turn's *full* blocks, as many as its own full blocks allow
  (``min(full(previous), full(this))``, ``full(n) = n // block_size``): a conversation resends its history;
- every other block gets a new id. Ids are consecutive integers from 0 in the order of the file's lines
  (Dynamo's convention: each new id is the next integer after the last one used);
- rows without a session (API-log rows, files 1-2) share nothing. Sharing starts at the window's first
  turn of a session: turns before the window are not exported, so their blocks are not referenced.

:class:`HashIds` keeps, per open session, only the ids of its last turn's full blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BLOCK_SIZE = 512


def rule(block_size: int = BLOCK_SIZE) -> str:
    """The rule, as the sidecar states it, at ``block_size``."""
    return (
        f"block size {block_size} tokens; ceil(input_length / {block_size}) ids per request; within a BurstGPT "
        "session (Session ID) each turn reuses the previous exported turn's first min(full blocks of both) ids "
        "as its prefix; every other block gets the next unused integer (from 0, in file order); requests "
        "without a session share nothing"
    )


RULE = rule()


def blocks(tokens: int, block_size: int = BLOCK_SIZE) -> int:
    """Blocks of a prompt of ``tokens`` tokens: the last one holds the remainder."""
    return -(-max(tokens, 0) // block_size)


@dataclass
class HashIds:
    """Assigns ``hash_ids`` line by line, in file order."""

    block_size: int = BLOCK_SIZE
    next_id: int = 0
    _prefix: dict[str, list[int]] = field(default_factory=dict)  # session -> last turn's full-block ids

    def assign(self, input_length: int, session_id: str | None = None) -> list[int]:
        n = blocks(input_length, self.block_size)
        full = max(input_length, 0) // self.block_size
        previous = self._prefix.get(session_id, []) if session_id else []
        shared = previous[: min(len(previous), full)]
        fresh = list(range(self.next_id, self.next_id + n - len(shared)))
        self.next_id += len(fresh)
        ids = shared + fresh
        if session_id:
            self._prefix[session_id] = ids[:full]
        return ids
