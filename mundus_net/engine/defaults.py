"""The fixed default decision: what a seat is charged when it does not decide in time, breaks
commit-reveal, or its bot fails. It is always legal and as passive as the rules allow."""

from __future__ import annotations

from collections.abc import Sequence

from mundus_net.engine.decisions import ChooseFirst, Decision
from mundus_net.engine.game import FIRST, Game

__all__ = ["default_choice", "default_decision"]


def default_choice(phase: str, seat: int, legal: Sequence[Decision]) -> Decision:
    """The default decision from the phase and the seat's legal list alone (what a network
    client knows): ``legal[0]``, except in the first-player step, where the TM plays first."""
    if not legal:
        raise ValueError(f"seat {seat} has nothing to decide")
    if phase == FIRST:
        return ChooseFirst(seat)
    return legal[0]


def default_decision(game: Game, seat: int) -> Decision:
    """The passive choice: pass, keep one fleet, announce 2, offer and give the lowest cards,
    take the first card offered (keeping it), end the turn, store nothing; the TM plays first.

    ``legal()`` lists the passive choice first in every phase but one; raises ValueError if
    ``seat`` has nothing to decide.
    """
    return default_choice(game.phase, seat, game.legal(seat))
