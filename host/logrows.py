"""The game log's row encoding that the table writes: no import of host/table.py or
host/gamelog.py, so that both import this and not each other.

``Journal`` is what a table writes its rows to (host/gamelog.py's ``GameLog`` is one);
``bot_row`` is a host bot's turn as a row holds it; ``dumps`` is the canonical JSON that is
stored and hashed.
"""

from __future__ import annotations

import json
from typing import Any, Protocol, cast

from mundus_net.engine.decisions import DECISION_TYPES, Decision
from mundus_net.protocol.codec import decision_to_wire

__all__ = ["Journal", "bot_choice_wire", "bot_row", "dumps"]


class Journal(Protocol):
    """What a :class:`~host.table.Table` writes its log rows to."""

    def write(self, kind: str, data: dict[str, Any]) -> None: ...

    def mark(self) -> int: ...

    def undo(self, mark: int) -> None: ...

    def commit(self, table: Any) -> None: ...  # a Table: not imported, so no circle


def dumps(data: Any) -> str:
    """Canonical JSON: what is stored and hashed."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def bot_row(seat: int, round_: int, choice: object, raised: str | None,
            nonce: bytes | None) -> dict[str, Any]:
    """A host bot's turn: its choice in wire form (or, when it is not a decision, how it
    failed: the exception's class, or what it returned), and its offer's nonce."""
    wire = bot_choice_wire(choice)
    shown = None if wire is not None or raised is not None else repr(choice)[:1000]
    return {"seat": seat, "round": round_, "decision": wire, "raised": raised, "shown": shown,
            "nonce": None if nonce is None else nonce.hex()}


def bot_choice_wire(choice: object) -> dict[str, Any] | None:
    """A host bot's choice as a log row holds it (None: not a decision)."""
    if not isinstance(choice, DECISION_TYPES):
        return None
    try:
        wire = decision_to_wire(cast(Decision, choice))
        json.loads(dumps(wire))  # stored as JSON: must survive the trip
    except (TypeError, ValueError, KeyError):
        return None
    return wire
