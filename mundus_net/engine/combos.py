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
    "NO_MERCHANTS", "Ids", "TurnKey", "offers", "picks", "reach", "stores", "takes",
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


# Every take there can be, made once: _TAKE_ROWS[source][card][swap], swap 0 for keeping the
# card (seats 0-5, cards and swaps 1-10; card 0 unused).
_TAKE_ROWS: Final = tuple(tuple(tuple(Take(s, v, m or None) for m in range(11))
                               for v in range(11)) for s in range(6))


def takes(sources: Iterable[int], faceup: list[list[int]],
          market: Sequence[int]) -> list[Decision]:
    """R5.5: every take of a face-up card (``faceup``: count vectors by seat) of one of
    ``sources``, kept or swapped for one of the distinct values of ``market``."""
    swaps = 0  # the market's distinct values, as bits
    for m in market:
        swaps |= 1 << m
    pick = _swap_picker(swaps)
    out: list[Decision] = []
    for s in sources:
        rows = _TAKE_ROWS[s]
        # The values it shows, read from its counts: compiled, a loop of native reads costs
        # less than a tuple of them and an lru_cache look-up of it.
        counts = faceup[s]
        for v in range(1, 11):
            if counts[v]:
                out += pick(rows[v])
    return out


_Picker = Callable[[Sequence[Decision]], Sequence[Decision]]
_pickers: Final[dict[int, _Picker]] = {}


def _swap_picker(market: int) -> _Picker:
    """What picks the takes of one card out of its row: keep it, or swap it for one of the
    distinct values of the market (``market``: bit v set for each; one C-level call per
    card). Cached under that int, at most 2**10 of them."""
    found = _pickers.get(market)
    if found is None:
        swaps = (0, *(v for v in range(1, 11) if market >> v & 1))
        # An empty market: itemgetter(0) would not return a tuple.
        found = _keep_only if len(swaps) == 1 else itemgetter(*swaps)
        _pickers[market] = found
    return found


def _keep_only(row: Sequence[Decision]) -> Sequence[Decision]:
    return (row[0],)


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
        sources = 0  # bit v set for each value held
        for v in range(1, 11):
            if natural[v]:
                sources |= 1 << v
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
    values = count = 0  # the numbered values held: bit v set for each, and how many
    for v in range(1, 10):
        if hand[v]:
            values |= 1 << v
            count += 1
    if key.series and count >= 4:
        out += _series(values)
    if key.perfect and count == 9 and relics:  # R8.1
        out.append(_PERFECT)
    return out


# The parts of a turn's options. Their keys are small and bounded (a few thousand at most),
# so they are cached without a limit, as tuples of shared decisions, each under one int made
# of its arguments' bits: compiled, an int key is made and hashed natively, where
# functools.cache built and hashed a tuple of the arguments at each call.
_converts_found: Final[dict[int, tuple[Decision, ...]]] = {}
_relic_sets_found: Final[dict[int, tuple[Decision, ...]]] = {}
_sets_found: Final[dict[int, tuple[Decision, ...]]] = {}
_series_found: Final[dict[int, tuple[Decision, ...]]] = {}


def _shared(ids: Iterable[int]) -> tuple[Decision, ...]:
    """The numbered decisions, as a tuple."""
    table = _DECISIONS
    return tuple([table[i] for i in ids])


def _converts(cls: int, sources: int) -> tuple[Decision, ...]:
    """R6.5: every conversion by a merchant of class ``cls`` of one of ``sources`` (bit v
    set for each value)."""
    key = cls | sources << 2
    found = _converts_found.get(key)
    if found is None:
        held = [src for src in range(1, 11) if sources >> src & 1]
        found = _converts_found[key] = _shared(
            _CONVERTS[src, dst] for dst in VALUES_OF_CLASS[cls] for src in held if src != dst)
    return found


def _relic_sets(relics: int) -> tuple[Decision, ...]:
    """R6.2: every relic set with ``relics`` (at most 5) relics in hand."""
    found = _relic_sets_found.get(relics)
    if found is None:
        found = _relic_sets_found[relics] = _shared(
            _RELIC_SETS[k] for k in range(1, relics + 1))
    return found


def _sets(v: int, own: int, relics: int, queue: int, draw: bool,
          cash: bool) -> tuple[Decision, ...]:
    """R6.2, R6.3: every identical set of value ``v`` from ``own`` cards of that value and
    ``relics`` relics (both at most 5), largest natural part first."""
    # Every number below 16: own and relics are at most 5, and a queue longer than 5 reaches
    # no further than 5 (R6.3).
    key = v | own << 4 | relics << 8 | min(queue, 5) << 12 | (1 << 16 if draw else 0) | (
        1 << 17 if cash else 0)
    found = _sets_found.get(key)
    if found is None:
        found = _sets_found[key] = _make_sets(v, own, relics, queue, draw, cash)
    return found


def _make_sets(v: int, own: int, relics: int, queue: int, draw: bool,
               cash: bool) -> tuple[Decision, ...]:
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


def _series(held: int) -> tuple[Decision, ...]:
    """R6.2: every series of 4 or more of the distinct values ``held`` (bit v set for
    each)."""
    found = _series_found.get(held)
    if found is None:
        values = [v for v in range(1, 10) if held >> v & 1]
        count = len(values)
        found = _series_found[held] = _shared(
            _SERIES[tuple(values[i] for i in range(count) if mask >> i & 1)]
            for mask in range(1, 1 << count) if mask.bit_count() >= 4)
    return found
