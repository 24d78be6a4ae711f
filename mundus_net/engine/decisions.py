"""Decisions: one player's choice at one decision point of the rules.

Each kind is an immutable named tuple; two decisions are equal only if they are of the same
kind with the same fields. Multisets of cards are sorted tuples of resource ints
(``mundus_net.engine.cards``). The text form of each decision is in ``mundus_net.engine.notation``.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from mundus_net.engine.cards import Cards
from mundus_net.engine.errors import MundusError

__all__ = [
    "DECISION_TYPES", "END_TURN", "TARGET_CASH", "TARGET_DRAW", "Announce", "BuyMarket",
    "ChooseEvent", "ChooseFirst", "ChooseTradeMaster", "Convert", "Decision", "EndTurn", "Gift",
    "MakePerfect", "MakeRelicSet", "MakeSeries", "MakeSet", "Offer", "PickCards", "PirateDiscard",
    "RuleError", "SplitFleet", "Store", "Take",
]

# Set targets (R6.3): a queue position 1-5, or one of these.
TARGET_DRAW: Final = 0  # Diego de Almagro: the top of the development draw pile
TARGET_CASH: Final = -1  # Vicente de la Raya: doubloons instead of a development (P04)


def _same_kind_eq(self: tuple[Any, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _same_kind_ne(self: tuple[Any, ...], other: object) -> bool:
    return not _same_kind_eq(self, other)


def _kind_hash(self: tuple[Any, ...]) -> int:
    return hash((type(self).__name__, *self))


class ChooseEvent(NamedTuple):
    """R3.3 Coronado: impose ``event`` (paying 2) or ``None`` to pass."""

    event: str | None


class SplitFleet(NamedTuple):
    """R4.4 Ponce de León: caravel ids of the second fleet; () keeps one fleet."""

    fleet: tuple[str, ...]


class PickCards(NamedTuple):
    """R4.6: the cards a fleet takes from the caravel display."""

    cards: Cards


class BuyMarket(NamedTuple):
    """P01 Sergio de Lagio: the market card to buy for 2, or ``None`` to pass."""

    card: int | None


class PirateDiscard(NamedTuple):
    """R4.7: the cards discarded to the pirates."""

    cards: Cards


class Announce(NamedTuple):
    """R5.1: the Trade Master announces N (2, 3 or 4)."""

    n: int


class Offer(NamedTuple):
    """R5.2: the cards offered, face down until all offers are fixed."""

    cards: Cards


class ChooseTradeMaster(NamedTuple):
    """R5.4: the current TM picks the new TM among the tied highest scores."""

    seat: int


class Take(NamedTuple):
    """R5.5: take ``card`` from ``seat``'s offer; keep it (``swap`` None) or put it in the
    market and take the market card ``swap`` instead."""

    seat: int
    card: int
    swap: int | None


class Gift(NamedTuple):
    """R5.9: the card the TM gives to the player left one card short."""

    card: int


class ChooseFirst(NamedTuple):
    """R6.1: the TM chooses who takes the first progression turn."""

    seat: int


class MakeSet(NamedTuple):
    """R6.2/R6.3: an identical set of declared ``value``.

    ``cards`` are the set's cards as they count (a converted card at its new value, a relic
    as 10); ``target`` is a queue position 1-5, TARGET_DRAW or TARGET_CASH.
    """

    value: int
    cards: Cards
    target: int


class MakeSeries(NamedTuple):
    """R6.2: a series of distinct values 1-9, no relic."""

    cards: Cards


class Convert(NamedTuple):
    """R6.5: an unused merchant of ``value``'s class turns one ``source`` card (not itself a
    converted card) into ``value`` for the rest of this turn."""

    source: int
    value: int


class MakeRelicSet(NamedTuple):
    """R6.2: a set of ``size`` relics alone (1-5)."""

    size: int


class MakePerfect(NamedTuple):
    """R8.1: the perfect combination, values 1-9 and one relic."""


class EndTurn(NamedTuple):
    """R6.2: no more combinations this progression turn."""


class Store(NamedTuple):
    """R6.9: the cards kept in warehouses (the rest are discarded, R6.10)."""

    cards: Cards


Decision = (
    ChooseEvent | SplitFleet | PickCards | BuyMarket | PirateDiscard | Announce | Offer
    | ChooseTradeMaster | Take | Gift | ChooseFirst | Convert | MakeSet | MakeSeries
    | MakeRelicSet | MakePerfect | EndTurn | Store
)
DECISION_TYPES: Final[tuple[type, ...]] = (
    ChooseEvent, SplitFleet, PickCards, BuyMarket, PirateDiscard, Announce, Offer,
    ChooseTradeMaster, Take, Gift, ChooseFirst, Convert, MakeSet, MakeSeries, MakeRelicSet,
    MakePerfect, EndTurn, Store,
)
for _cls in DECISION_TYPES:
    _cls.__eq__ = _same_kind_eq  # type: ignore[method-assign,assignment]
    _cls.__ne__ = _same_kind_ne  # type: ignore[method-assign,assignment]
    _cls.__hash__ = _kind_hash  # type: ignore[method-assign,assignment]

END_TURN: Final = EndTurn()


class RuleError(MundusError):
    """A refused decision. ``rule`` is the docs/rules.md ID it breaks; the state is unchanged."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message
