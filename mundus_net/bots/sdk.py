"""Helpers for writing a bot (docs/bots.md).

A bot is any object with ``decide(view, legal) -> decision`` whose class (or factory) takes
the bot's seed as its only argument. :class:`PhaseBot` is a convenient base: it keeps a seeded
generator and sends each decision to a method named after the phase (``on_offer``,
``on_take``, ...); a phase without a method is played by the bot's ``fallback_strategy``:
greedy's choice unless the class chooses another (``"passive"``: the default decision).
"""

from __future__ import annotations

import contextlib
import difflib
import random
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, TypeVar

from mundus_net.bots.base import Bot, load_bot, question_seed
from mundus_net.engine.decisions import Decision
from mundus_net.engine.defaults import default_choice
from mundus_net.engine.game import OVER, PHASES
from mundus_net.engine.notation import format_decision
from mundus_net.engine.view import PlayerView

__all__ = ["PASSIVE", "PHASES", "PhaseBot", "best", "by_kind", "check_handlers", "describe",
           "of_kind"]

PASSIVE = "passive"  # PhaseBot.fallback_strategy: the default decision, as a failed bot's

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
    handler (``on_trun``) would otherwise never be called, and the bot would silently leave
    that phase to its fallback."""
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
    (phases: ``mundus_net.engine.game.PHASES``), else :meth:`fallback`.

    :meth:`fallback` plays the phases the class does not handle with ``fallback_strategy``:
    ``"greedy"`` (the default: the greedy bot's choice, which scores), ``"passive"`` (the
    default decision, as a failed bot is charged: a bot that handles few phases then scores
    next to nothing), or any strategy ``load_bot`` knows (``"search"``, ``"mybots:Other"``),
    made with this bot's seed. Which phases it plays is said once per process on stderr when
    the first bot of the class is made (not for ``"passive"``, the old silent behaviour).

    ``self.rng`` is a ``random.Random`` reseeded for every question from the bot's seed and
    the question (:func:`~mundus_net.bots.base.question_seed`): draw every random choice from
    it, and the same seed plays the same game, and a question asked again (a host resumed
    from its log) gets the same answer. A single legal choice is never asked: the engine
    plays it.
    """

    fallback_strategy: ClassVar[str] = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        check_handlers(type(self))
        self._handlers: dict[str, Callable[[PlayerView, Sequence[Decision]], Decision]] = {}
        for phase in PHASES:
            handler: Any = getattr(self, f"on_{phase}", None)
            if callable(handler):
                self._handlers[phase] = handler
        strategy = self.fallback_strategy
        unhandled = [p for p in PHASES if p not in self._handlers and p != OVER]
        # Made even when every phase has a handler: a handler may call fallback(). A strategy
        # that cannot be loaded raises ValueError here: the bot is refused when made.
        self._fallback_bot: Bot | None = None if strategy == PASSIVE else load_bot(strategy, seed)
        if self._fallback_bot is not None and unhandled:
            _say_once(fallback_sentence(type(self).__name__, list(self._handlers),
                                        strategy, unhandled))

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        self.rng.seed(question_seed(self.seed, view, legal))
        handler = self._handlers.get(view.phase)
        if handler is None:
            return self.fallback(view, legal)
        return handler(view, legal)

    def fallback(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        """The decision of ``fallback_strategy`` (see the class): what a phase without a
        handler plays; a handler may return it too, to leave a question to it."""
        if self._fallback_bot is not None:
            return self._fallback_bot.decide(view, legal)
        return default_choice(view.phase, view.seat or 0, legal)


def fallback_sentence(name: str, handled: Sequence[str], strategy: str,
                      unhandled: Sequence[str]) -> str:
    """What a :class:`PhaseBot` says on stderr when it is made: which phases it handles and
    which ``strategy`` plays."""
    who = "greedy's choices play" if strategy == "greedy" else f"the {strategy!r} bot plays"
    rest = (f"{who} the other phases: {', '.join(unhandled)}" if handled
            else f"{who} every phase")
    return (f"{name} handles {', '.join(handled) or 'no phase'}; {rest} (to choose "
            f"another: fallback_strategy, docs/bots.md)")


_SAID: set[str] = set()


def _say_once(sentence: str) -> None:
    """``sentence`` on stderr, the first time this process is told it (a bot is made for
    every game: the sentence is for the person running them, once)."""
    if sentence not in _SAID:
        _SAID.add(sentence)
        with contextlib.suppress(OSError, ValueError, AttributeError):  # no stderr: no word
            # 80 columns, broken between words (the phases' names stay whole).
            print("\n".join(textwrap.wrap(sentence, 80, subsequent_indent="  ",
                                           break_long_words=False, break_on_hyphens=False)),
                  file=sys.stderr, flush=True)
