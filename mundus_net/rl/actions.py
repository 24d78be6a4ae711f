"""A fixed, numbered action space for learning agents: every decision a seat can make, each at
one index that means the same thing in every game (docs/rl.md lists the blocks).

Seats in decisions (``Take``, ``ChooseTradeMaster``, ``ChooseFirst``) are numbered from the
acting seat: offset 0 is the seat itself, 1 the next seat in turn order, and so on, so an
index means the same to an agent whatever seat it plays. Multisets of cards are bounded by
the rules (an offer has at most 4 cards, R5.1; a set 3 to 5, R6.2; a pirate discard one card
per fleet of two caravels or more, R4.7) or, where the rules allow more than any game
reaches, by :data:`MAX_PICK` and :data:`MAX_STORE`: a legal decision beyond them has no
index, and is never needed to move (storing fewer cards is always legal; a fleet of more
caravels than that is charged its default pick, counted in ``ActionSpace.unrepresentable``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Final

from mundus_net.engine.cards import NUMBERED, RELIC, VALUES, Cards
from mundus_net.engine.decisions import (
    TARGET_CASH,
    TARGET_DRAW,
    Announce,
    BuyMarket,
    ChooseEvent,
    ChooseFirst,
    ChooseTradeMaster,
    Convert,
    Decision,
    EndTurn,
    Gift,
    MakePerfect,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
    Offer,
    PickCards,
    PirateDiscard,
    SplitFleet,
    Store,
    Take,
)
from mundus_net.engine.deck import EVENTS, Deck, default_deck

__all__ = [
    "MAX_OFFER", "MAX_PICK", "MAX_PIRATES", "MAX_SEATS", "MAX_SPLIT", "MAX_STORE", "SET_SIZES",
    "SET_TARGETS", "ActionSpace", "cards_of", "multisets",
]

MAX_SEATS: Final = 6
MAX_OFFER: Final = 4  # R5.1: N is 2, 3 or 4
MAX_PIRATES: Final = 2  # R4.7: one card per fleet of two caravels or more; a seat has 1 or 2 fleets
MAX_PICK: Final = 5  # R4.6: one card per caravel of the fleet; no game in 10,000 reached 5
MAX_STORE: Final = 5  # R6.9: the warehouses' capacity; storing fewer is always legal
MAX_SPLIT: Final = 3  # R4.4: caravels in Ponce's second fleet
SET_SIZES: Final = (3, 4, 5)  # R6.2
SET_TARGETS: Final = (TARGET_CASH, TARGET_DRAW, 1, 2, 3, 4, 5)  # R6.3, P04


def multisets(most: int, least: int = 0) -> list[Cards]:
    """Every sorted multiset of resource cards (1-9 and the relic) of ``least`` to ``most``
    cards, shortest first."""
    out: list[Cards] = []
    for size in range(least, most + 1):
        out.extend(itertools.combinations_with_replacement(VALUES, size))
    return out


_KEPT_LIMIT: Final = 200_000  # decision objects index_list remembers before starting afresh


def _relative(decision: Decision, seat: int, players: int) -> Decision:
    """A decision with its seat field counted from ``seat`` (offset 0: the seat itself)."""
    if isinstance(decision, Take):
        return Take((decision.seat - seat) % players, decision.card, decision.swap)
    if isinstance(decision, ChooseTradeMaster):
        return ChooseTradeMaster((decision.seat - seat) % players)
    if isinstance(decision, ChooseFirst):
        return ChooseFirst((decision.seat - seat) % players)
    return decision


def _absolute(decision: Decision, seat: int, players: int) -> Decision:
    if isinstance(decision, Take):
        return Take((seat + decision.seat) % players, decision.card, decision.swap)
    if isinstance(decision, ChooseTradeMaster):
        return ChooseTradeMaster((seat + decision.seat) % players)
    if isinstance(decision, ChooseFirst):
        return ChooseFirst((seat + decision.seat) % players)
    return decision


class ActionSpace:
    """The numbered decisions of a deck (its caravels name the fleets Ponce may split off).

    ``blocks``: (kind, first index, count) in index order. ``decision(i, seat, players)``
    is index ``i`` as ``seat`` would play it; ``index(decision, seat, players)`` the other
    way (None for a decision beyond the bounds)."""

    def __init__(self, deck: Deck | None = None) -> None:
        deck = deck if deck is not None else default_deck()
        caravels = sorted(card.id for card in deck.cards if card.kind == "caravel")
        blocks: list[tuple[str, list[Decision]]] = [
            ("ChooseEvent", [ChooseEvent(None), *(ChooseEvent(e) for e in EVENTS)]),
            ("SplitFleet", [SplitFleet(tuple(ids)) for size in range(MAX_SPLIT + 1)
                            for ids in itertools.combinations(caravels, size)]),
            ("PickCards", [PickCards(c) for c in multisets(MAX_PICK, 1)]),
            ("BuyMarket", [BuyMarket(None), *(BuyMarket(c) for c in VALUES)]),
            ("PirateDiscard", [PirateDiscard(c) for c in multisets(MAX_PIRATES, 1)]),
            ("Announce", [Announce(n) for n in (2, 3, 4)]),
            ("Offer", [Offer(c) for c in multisets(MAX_OFFER)]),
            ("ChooseTradeMaster", [ChooseTradeMaster(k) for k in range(MAX_SEATS)]),
            ("Take", [Take(k, card, swap) for k in range(MAX_SEATS) for card in VALUES
                      for swap in (None, *VALUES)]),
            ("Gift", [Gift(card) for card in VALUES]),
            ("ChooseFirst", [ChooseFirst(k) for k in range(MAX_SEATS)]),
            ("Convert", [Convert(source, value) for source in VALUES for value in NUMBERED]),
            ("MakeSet", [MakeSet(value, tuple(sorted((value,) * (size - relics)
                                                     + (RELIC,) * relics)), target)
                         for value in NUMBERED for size in SET_SIZES
                         for relics in range(size + 1) for target in SET_TARGETS]),
            ("MakeSeries", [MakeSeries(c) for size in range(4, 10)
                            for c in itertools.combinations(NUMBERED, size)]),
            ("MakeRelicSet", [MakeRelicSet(size) for size in range(1, 6)]),
            ("MakePerfect", [MakePerfect()]),
            ("EndTurn", [EndTurn()]),
            ("Store", [Store(c) for c in multisets(MAX_STORE)]),
        ]
        self.decisions: list[Decision] = []
        self.blocks: list[tuple[str, int, int]] = []
        for kind, items in blocks:
            self.blocks.append((kind, len(self.decisions), len(items)))
            self.decisions.extend(items)
        self._index = {d: i for i, d in enumerate(self.decisions)}
        if len(self._index) != len(self.decisions):  # pragma: no cover - a catalog bug
            raise AssertionError("two indexes for one decision")
        # Per (seat, players): absolute decision -> index, made when first needed, so that
        # mapping a legal list is one dictionary look-up per decision.
        self._absolute: dict[tuple[int, int], dict[Decision, int]] = {}
        # The kinds named by their cards alone, looked up by the cards (a tuple of ints
        # hashes in C; a decision hashes in Python), and Take by arithmetic: the long lists.
        self._by_cards: dict[type, dict[Cards, int]] = {}
        starts = {name: (first, count) for name, first, count in self.blocks}
        carded: tuple[type, ...] = (Offer, Store, PickCards, PirateDiscard, MakeSeries)
        for cls in carded:
            first, count = starts[cls.__name__]
            self._by_cards[cls] = {cards_of(self.decisions[i]): i
                                   for i in range(first, first + count)}
        self._take0 = starts["Take"][0]
        # index_list's memory: per (seat, players), id(decision) -> index (-1: none).
        self._by_id: dict[tuple[int, int], dict[int, int]] = {}
        self._kept: list[Decision] = []

    @classmethod
    def for_deck(cls, deck: Deck) -> ActionSpace:
        """The action space of ``deck``, made once per deck and shared (its tables and the
        memory of :meth:`legal_indexes` are then built once, not for every environment)."""
        found = _SPACES.get(deck)
        if found is None:
            found = _SPACES[deck] = cls(deck)
        return found

    def __len__(self) -> int:
        return len(self.decisions)

    def index(self, decision: Decision, seat: int, players: int) -> int | None:
        return self._index.get(_relative(decision, seat, players))

    def _table(self, seat: int, players: int) -> dict[Decision, int]:
        found = self._absolute.get((seat, players))
        if found is None:
            found = {_absolute(d, seat, players): i for i, d in enumerate(self.decisions)
                     if not (isinstance(d, (Take, ChooseTradeMaster, ChooseFirst))
                             and d.seat >= players)}
            self._absolute[seat, players] = found
        return found

    def decision(self, index: int, seat: int, players: int) -> Decision:
        return _absolute(self.decisions[index], seat, players)

    def legal_indexes(self, legal: Iterable[Decision], seat: int, players: int
                      ) -> dict[int, Decision]:
        """index -> decision for every legal decision that has an index (in the list's
        order; tests compare it with :meth:`index_of`)."""
        legal = legal if isinstance(legal, list) else list(legal)
        found = dict(zip(self.index_list(legal, seat, players), legal, strict=True))
        found.pop(-1, None)  # the decisions without an index
        return found

    def index_list(self, legal: list[Decision], seat: int, players: int) -> list[int]:
        """The index of each decision of ``legal``, in its order (-1: none).

        The engine shares its decision objects from list to list, so each object's index is
        kept by its id (the object also in ``_kept``, so that its id is not reused): a legal
        list is then mapped in one C-level pass, with no dictionary made per list."""
        ids = self._by_id.get((seat, players))
        if ids is None:
            ids = self._by_id[seat, players] = {}
        try:
            return list(map(ids.__getitem__, map(id, legal)))
        except KeyError:  # an object not seen before
            if len(self._kept) >= _KEPT_LIMIT:
                self._kept.clear()
                for table in self._by_id.values():
                    table.clear()
            kept = self._kept
            for decision in legal:
                if id(decision) not in ids:
                    index = self.index_of(decision, seat, players)
                    ids[id(decision)] = -1 if index is None else index
                    kept.append(decision)
            return list(map(ids.__getitem__, map(id, legal)))

    def index_of(self, decision: Decision, seat: int, players: int) -> int | None:
        """The index of one of ``seat``'s decisions (None if it has none), computed."""
        kind = type(decision)
        found = self._by_cards.get(kind)
        if found is not None:
            return found.get(cards_of(decision))
        if isinstance(decision, Take):
            cards = len(VALUES)
            return self._take0 + (((decision.seat - seat) % players) * cards
                                  + decision.card - 1) * (cards + 1) + (
                0 if decision.swap is None else decision.swap)
        return self._table(seat, players).get(decision)

    def describe(self) -> list[str]:
        """One line per block: its indexes and what they are (docs/rl.md)."""
        return [f"{start:>5}-{start + count - 1:<5} {kind} ({count})"
                for kind, start, count in self.blocks]


_SPACES: Final[dict[Deck, ActionSpace]] = {}


def cards_of(decision: Decision) -> Cards:
    """The cards a decision names (empty for the others)."""
    cards = getattr(decision, "cards", None)
    return cards if isinstance(cards, tuple) else ()
