"""The commit-reveal state of one offer step (docs/protocol.md §7; rule R5.3), without the
table: which seats are asked to commit or reveal, when the commitments open and when the
step is done, and the public events that tell it. host/table.py drives it (the engine, the
log, the record, the deadlines) and asks it these questions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["COMMIT", "OFFER_STAGE_NEXT", "REVEAL", "Cards", "OfferStage", "OfferStep"]

Cards = tuple[int, ...]
Message = dict[str, Any]

# The pending kinds of the wire (§7), and the phases of its timeout and violation events.
COMMIT = "commit"
REVEAL = "reveal"


class OfferStage(StrEnum):
    """Where an offer step is (§7): its seats commit, then reveal, then it is done. A str
    (``"commit"``...), so that it compares equal to the pending kinds of the wire."""

    COMMIT = COMMIT
    REVEAL = REVEAL
    DONE = "done"


# The only moves of an offer step: commit -> reveal -> done.
OFFER_STAGE_NEXT = {OfferStage.COMMIT: OfferStage.REVEAL, OfferStage.REVEAL: OfferStage.DONE}


@dataclass
class OfferStep:
    """Commit-reveal state of one offer step (§7)."""

    round: int
    asked: tuple[int, ...]  # seats with a real choice; forced offers are the engine's
    stage: OfferStage = OfferStage.COMMIT
    commitments: dict[int, bytes] = field(default_factory=dict)
    # The host bots' offers: cards, nonce, and who chose (bot, or default for a failed bot)
    secrets: dict[int, tuple[Cards, bytes, str]] = field(default_factory=dict)
    timed_out: set[int] = field(default_factory=set)  # no commitment by the deadline
    revealed: dict[int, tuple[Cards, bytes]] = field(default_factory=dict)
    broken: set[int] = field(default_factory=set)  # defaulted after the commitments

    def move_to(self, stage: OfferStage) -> None:
        """The step's next stage (commit -> reveal -> done; any other move is a bug)."""
        if OFFER_STAGE_NEXT.get(self.stage) is not stage:
            raise AssertionError(f"offer step: {self.stage} cannot move to {stage}")
        self.stage = stage

    def asks(self, seat: int) -> str | None:
        """What ``seat`` owes the step now: ``COMMIT``, ``REVEAL`` or None."""
        if seat not in self.asked:
            return None
        if self.stage is OfferStage.COMMIT and seat not in self.commitments \
                and seat not in self.timed_out:
            return COMMIT
        if self.stage is OfferStage.REVEAL and seat in self.commitments \
                and seat not in self.revealed and seat not in self.broken:
            return REVEAL
        return None

    def owes_reveal(self, seat: int) -> bool:
        """Committed, and its reveal is still to come: not revealed, not broken (a reveal
        that timed out), the step not done."""
        return self.stage is not OfferStage.DONE and seat in self.commitments \
            and seat not in self.revealed and seat not in self.broken

    def next_to_commit(self, chooses: Callable[[int], bool]) -> int | None:
        """The first asked seat that ``chooses`` (a host bot) and has not committed, while the
        step takes commitments."""
        if self.stage is not OfferStage.COMMIT:
            return None
        return next((s for s in self.asked if chooses(s) and s not in self.commitments), None)

    def open_reveals(self) -> Message | None:
        """Once every asked seat is committed (or timed out): the step moves to reveal and
        the ``commitments`` event to publish is returned; else None, nothing changed."""
        if self.stage is not OfferStage.COMMIT or any(
                s not in self.commitments and s not in self.timed_out for s in self.asked):
            return None
        self.move_to(OfferStage.REVEAL)
        return {"kind": "commitments", "round": self.round,
                "commitments": {str(s): h for s, h in sorted(self.commitments.items())}}

    def close(self) -> Message | None:
        """Once every asked seat revealed (or broke): the step is done and the ``reveals``
        event to publish is returned; else None, nothing changed."""
        if self.stage is not OfferStage.REVEAL or any(
                s not in self.revealed and s not in self.broken for s in self.asked):
            return None
        self.move_to(OfferStage.DONE)
        return {"kind": "reveals", "round": self.round, "reveals": {
            str(s): {"offer": list(o), "nonce": n} for s, (o, n) in sorted(self.revealed.items())
        }}

