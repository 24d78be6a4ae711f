"""Helpers for writing a bot (docs/bots.md).

A bot is any object with ``decide(view, legal) -> decision`` whose class (or factory) takes
the bot's seed as its only argument. :class:`PhaseBot` is a convenient base: it keeps a seeded
generator and sends each decision to a method named after the phase (``on_offer``,
``on_take``, ...); phases without a method get the default decision, which is always legal.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from mundus_net.bots.base import question_seed
from mundus_net.engine.decisions import Decision
from mundus_net.engine.defaults import default_choice
from mundus_net.engine.game import PHASES
from mundus_net.engine.notation import format_decision
from mundus_net.engine.view import PlayerView

__all__ = ["PHASES", "PhaseBot", "best", "by_kind", "check_handlers", "describe", "of_kind"]

D = TypeVar("D")


def of_kind(legal: Iterable[Decision], kind: type[D]) -> list[D]:
    """The decisions of one kind (``Take``, ``MakeSet``, ...) among ``legal``, in order."""
    return [d for d in legal if isinstance(d, kind)]


def by_kind(legal: Iterable[Decision]) -> dict[str, list[Decision]]:
    """``legal`` grouped by kind name (``"MakeSet"``, ``"EndTurn"``, ...), in order."""
    groups: dict[str, list[Decision]] = {}
    for d in legal:
        groups.setdefault(type(d).__name__, []).append(d)
    return groups


def describe(decision: Decision, seat: int | None = None) -> str:
    """A decision in the text notation of docs/notation.md (``take:5@2``, ``offer:135``)."""
    return format_decision(decision, seat)


def best(options: Sequence[D], score: Callable[[D], float], rng: random.Random | None = None
         ) -> D:
    """The option with the highest score; ties go to the first one, or to a draw from
    ``rng`` (a seeded generator keeps the bot deterministic). ``options`` must not be
    empty."""
    if not options:
        raise ValueError("no options to choose from")
    scored = [(score(o), o) for o in options]
    top = max(s for s, _ in scored)
    tied = [o for s, o in scored if s == top]
    return tied[0] if rng is None or len(tied) == 1 else tied[rng.randrange(len(tied))]


def check_handlers(cls: type) -> None:
    """ValueError for a method ``on_<name>`` of ``cls`` whose name is no phase: a misspelled
    handler (``on_trun``) would otherwise never be called, and the bot would silently play
    the default decision there."""
    for name in sorted(n for n in dir(cls) if n.startswith("on_")):
        phase = name[3:]
        if phase in PHASES or not callable(getattr(cls, name)):
            continue
        close = difflib.get_close_matches(phase, PHASES, n=1)
        hint = f"; did you mean on_{close[0]}?" if close else ""
        raise ValueError(f"{cls.__name__}.{name} handles no phase{hint} (the phases: "
                         f"{', '.join(PHASES)})")


class PhaseBot:
    """A bot base class: ``decide`` calls ``on_<phase>(view, legal)`` if the subclass has it
    (phases: ``mundus_net.engine.game.PHASES``), else :meth:`fallback`, the default decision.

    ``self.rng`` is a ``random.Random`` reseeded for every question from the bot's seed and
    the question (:func:`~mundus_net.bots.base.question_seed`): draw every random choice from
    it, and the same seed plays the same game, and a question asked again (a host resumed
    from its log) gets the same answer. A single legal choice is never asked: the engine
    plays it.
    """

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        check_handlers(type(self))
        self._handlers: dict[str, Callable[[PlayerView, Sequence[Decision]], Decision]] = {}
        for phase in PHASES:
            handler: Any = getattr(self, f"on_{phase}", None)
            if callable(handler):
                self._handlers[phase] = handler

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        self.rng.seed(question_seed(self.seed, view, legal))
        handler = self._handlers.get(view.phase)
        if handler is None:
            return self.fallback(view, legal)
        return handler(view, legal)

    def fallback(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        """The default decision (what a failed bot is charged): pass, the lowest cards, the
        first card offered, end the turn, store nothing; as TM, play first."""
        return default_choice(view.phase, view.seat or 0, legal)
