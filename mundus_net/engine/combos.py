"""Enumerating the legal trade offers, takes, storage choices, caravel picks and
progression-turn combinations (R4.6, R5.2, R5.5, R6.2-R6.5, R6.9).

These lists depend only on a small key (a hand's count vector and a few flags), and the same
keys come back again and again, so they are cached. Every public function returns a fresh
list, which the caller may keep or change.

How the caches are kept matters for speed as much as what they hold (benchmarks/README.md).
The cyclic garbage collector walks every container it tracks, and everything in it, in each
full collection; it never stops tracking a named tuple, so a decision is tracked for ever.
Caching tens of thousands of lists of freshly made decisions (the first version) made those
walks more than half the run time of a 1000-game benchmark. So:

* every decision is made once and shared: ``_Interned`` numbers them, and takes come from a
  fixed table;
* the large caches, keyed by whole hands (offers, storage), hold tuples of decision numbers,
  which the collector stops tracking after one look, and turn them back into decisions on
  the way out;
* a progression turn's options are assembled afresh each time from parts cached under small,
  bounded keys (a few thousand tuples of shared decisions in all).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import cache, lru_cache
from operator import itemgetter
from typing import Any, Final, NamedTuple

from mundus_net.engine.cards import (
    CLASS_OF,
    RELIC,
    VALUES_OF_CLASS,
    iter_multisets_upto,
    submultisets,
)
from mundus_net.engine.decisions import (
    END_TURN,
    TARGET_CASH,
    TARGET_DRAW,
    Convert,
    Decision,
    MakePerfect,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
    Offer,
    PickCards,
    Store,
    Take,
)

__all__ = [
    "NO_MERCHANTS", "Ids", "TurnKey", "offers", "picks", "present", "reach", "stores", "takes",
    "turn_options",
]

_CACHE_LIMIT: Final = 200_000


class TurnKey(NamedTuple):
    """Everything the legal combinations of one progression-turn step depend on."""

    hand: tuple[int, ...]  # count vector, converted cards at their new value
    natural: tuple[int, ...] | None  # hand without converted cards (None: same as hand)
    merchants: tuple[int, ...]  # unused merchants by class [_, common, uncommon, rare]
    sets: bool  # may still make an identical set
    series: bool
    relics: bool
    perfect: bool
    queue: int  # queue positions a set can reach at all (1 under Storm)
    draw: bool  # Almagro may draw from the development pile
    cash: bool  # Vicente may sell a set of 3


_DECISIONS: Final[list[Decision]] = []  # every decision this module hands out, by number


def _number(decision: Decision) -> int:
    _DECISIONS.append(decision)
    return len(_DECISIONS) - 1


NO_MERCHANTS: Final = (0, 0, 0, 0)  # TurnKey.merchants of a seat without unused merchants


class _Interned(dict[Hashable, int]):
    """The number of the one shared decision ``make(key)``, made on first use. There are only
    a few thousand distinct decisions in all (1,001 offers of 0-4 cards, 90 conversions, a few
    hundred sets), while the lists they appear in are counted in tens of thousands."""

    def __init__(self, make: Callable[[Any], Decision]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: Hashable) -> int:
        number = self[key] = _number(self.make(key))
        return number


_OFFERS: Final = _Interned(Offer)
_STORES: Final = _Interned(Store)
_PICKS: Final = _Interned(PickCards)
_CONVERTS: Final = _Interned(lambda key: Convert(*key))
_SETS: Final = _Interned(lambda key: MakeSet(*key))
_SERIES: Final = _Interned(MakeSeries)
_RELIC_SETS: Final = _Interned(MakeRelicSet)
_PERFECT: Final = MakePerfect()

Ids = tuple[int, ...]  # a cached list of decisions, by number (see the module docstring)

_offer_cache: Final[dict[tuple[tuple[int, ...], int, int], Ids]] = {}
_store_cache: Final[dict[tuple[tuple[int, ...], int], Ids]] = {}


def _remember(cache: dict[Any, Ids], key: Any, found: Ids) -> None:
    """Keep ``found`` under ``key``, forgetting everything first if the cache is full."""
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    cache[key] = found


def _decisions(ids: Sequence[int]) -> list[Decision]:
    """The numbered decisions, as a fresh list."""
    table = _DECISIONS
    return [table[i] for i in ids]


def offers(hand: tuple[int, ...], least: int, most: int) -> list[Decision]:
    """Every distinct offer of ``least`` to ``most`` cards from ``hand`` (R5.2)."""
    key = (hand, least, most)
    found = _offer_cache.get(key)
    if found is None:
        cards = [c for k in range(least, most + 1) for c in submultisets(hand, k)]
        found = tuple(map(_OFFERS.__getitem__, cards))
        _remember(_offer_cache, key, found)
    return _decisions(found)


def stores(hand: tuple[int, ...], capacity: int) -> list[Decision]:
    """Every distinct choice of 0 to ``capacity`` cards of ``hand`` to keep (R6.9)."""
    key = (hand, capacity)
    found = _store_cache.get(key)
    if found is None:
        found = tuple(map(_STORES.__getitem__, iter_multisets_upto(hand, capacity)))
        _remember(_store_cache, key, found)
    return _decisions(found)


def picks(display: Sequence[int], want: int) -> list[Decision]:
    """R4.6: every distinct choice of ``want`` cards from the caravel display (counts)."""
    return _decisions(tuple(map(_PICKS.__getitem__, submultisets(display, want))))


@lru_cache(maxsize=4096)
def present(counts: tuple[int, ...]) -> tuple[int, ...]:
    """The values 1-10 a count vector holds (face-up offers come in a few hundred kinds)."""
    return tuple(v for v in range(1, 11) if counts[v])


# Every take there can be, made once: _TAKE_ROWS[source][card][swap], swap 0 for keeping the
# card (seats 0-5, cards and swaps 1-10; card 0 unused).
_TAKE_ROWS: Final = tuple(tuple(tuple(Take(s, v, m or None) for m in range(11))
                               for v in range(11)) for s in range(6))


def takes(sources: Iterable[int], faceup: Sequence[Sequence[int]],
          market: Sequence[int]) -> list[Decision]:
    """R5.5: every take of a face-up card (``faceup``: count vectors by seat) of one of
    ``sources``, kept or swapped for one of the distinct values of ``market``."""
    pick = _swap_picker(tuple(market))
    out: list[Decision] = []
    for s in sources:
        rows = _TAKE_ROWS[s]
        for v in present(tuple(faceup[s])):
            out += pick(rows[v])
    return out


@cache
def _swap_picker(market: tuple[int, ...]) -> Callable[[Sequence[Decision]], Sequence[Decision]]:
    """What picks the takes of one card out of its row: keep it, or swap it for one of the
    distinct values of ``market`` (one C-level call per card)."""
    swaps = (0, *sorted(set(market)))
    if len(swaps) == 1:  # an empty market: itemgetter(0) would not return a tuple
        return lambda row: (row[0],)
    return itemgetter(*swaps)


def reach(cls: int, size: int) -> int:
    """R6.3: the furthest queue position an identical set of ``size`` cards reaches."""
    if size >= 5 or cls == 3 or (cls == 2 and size == 4):
        return 5
    if (cls == 1 and size == 4) or (cls == 2 and size == 3):
        return 3
    return 1


def turn_options(key: TurnKey) -> list[Decision]:
    """Every legal decision in a progression-turn step, in a fixed order."""
    # Assembled afresh from parts cached under much smaller keys: about half of all TurnKeys
    # are new ones, so caching whole lists as well cost more (the key's hash, the misses)
    # than it saved.
    hand = key.hand
    out: list[Decision] = [END_TURN]
    merchants = key.merchants
    if merchants != NO_MERCHANTS:  # R6.5
        natural = key.natural or hand
        sources = tuple([v for v in range(1, 11) if natural[v]])
        for cls in (1, 2, 3):
            if merchants[cls]:
                out += _converts(cls, sources)
    relics = hand[RELIC]
    if key.relics and relics:
        out += _relic_sets(min(5, relics))
    if key.sets:  # R6.2, R6.3
        wild = min(relics, 5)
        for v in [w for w in range(1, 10) if hand[w] + relics >= 3]:  # the others make none
            out += _sets(v, min(hand[v], 5), wild, key.queue, key.draw, key.cash)
    values = tuple([v for v in range(1, 10) if hand[v]])
    if key.series and len(values) >= 4:
        out += _series(values)
    if key.perfect and len(values) == 9 and relics:  # R8.1
        out.append(_PERFECT)
    return out


# The parts of a turn's options. Their keys are small and bounded (a few thousand at most),
# so they are cached without a limit, as tuples of shared decisions.


def _shared(ids: Iterable[int]) -> tuple[Decision, ...]:
    """The numbered decisions, as a tuple."""
    table = _DECISIONS
    return tuple([table[i] for i in ids])


@cache
def _converts(cls: int, sources: tuple[int, ...]) -> tuple[Decision, ...]:
    """R6.5: every conversion by a merchant of class ``cls`` of one of ``sources``."""
    return _shared(_CONVERTS[src, dst] for dst in VALUES_OF_CLASS[cls] for src in sources
                   if src != dst)


@cache
def _relic_sets(relics: int) -> tuple[Decision, ...]:
    """R6.2: every relic set with ``relics`` (at most 5) relics in hand."""
    return _shared(_RELIC_SETS[k] for k in range(1, relics + 1))


@cache
def _sets(v: int, own: int, relics: int, queue: int, draw: bool,
          cash: bool) -> tuple[Decision, ...]:
    """R6.2, R6.3: every identical set of value ``v`` from ``own`` cards of that value and
    ``relics`` relics (both at most 5), largest natural part first."""
    out: list[int] = []
    cls = CLASS_OF[v]
    for mine in range(own, -1, -1):
        for wild in range(min(relics, 5 - mine) + 1):
            size = mine + wild
            if size < 3:
                continue
            cards = (v,) * mine + (RELIC,) * wild
            last = min(queue, reach(cls, size))
            out.extend(_SETS[v, cards, t] for t in range(1, last + 1))
            if draw:
                out.append(_SETS[v, cards, TARGET_DRAW])
            if cash and size == 3:
                out.append(_SETS[v, cards, TARGET_CASH])
    return _shared(out)


@cache
def _series(values: tuple[int, ...]) -> tuple[Decision, ...]:
    """R6.2: every series of 4 or more of the distinct ``values``."""
    count = len(values)
    return _shared(_SERIES[tuple(values[i] for i in range(count) if mask >> i & 1)]
                   for mask in range(1, 1 << count) if mask.bit_count() >= 4)
