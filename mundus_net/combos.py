"""Enumerating the legal trade offers and progression-turn combinations (R5.2, R6.2-R6.5).

These lists depend only on a small key (a hand's count vector and a few flags), and the same
keys come back again and again over a game, so each list is computed once and cached. The
lists are shared: callers must not mutate them.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import CLASS_OF, RELIC, VALUES_OF_CLASS, submultisets
from .decisions import (
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
)

_CACHE_LIMIT = 200_000


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


_offer_cache: dict[tuple[tuple[int, ...], int, int], list[Decision]] = {}
_turn_cache: dict[TurnKey, list[Decision]] = {}


def offers(hand: tuple[int, ...], least: int, most: int) -> list[Decision]:
    """Every distinct offer of ``least`` to ``most`` cards from ``hand`` (R5.2)."""
    key = (hand, least, most)
    found = _offer_cache.get(key)
    if found is None:
        found = [Offer(c) for k in range(least, most + 1) for c in submultisets(hand, k)]
        if len(_offer_cache) > _CACHE_LIMIT:
            _offer_cache.clear()
        _offer_cache[key] = found
    return found


def reach(cls: int, size: int) -> int:
    """R6.3: the furthest queue position an identical set of ``size`` cards reaches."""
    if size >= 5 or cls == 3 or (cls == 2 and size == 4):
        return 5
    if (cls == 1 and size == 4) or (cls == 2 and size == 3):
        return 3
    return 1


def turn_options(key: TurnKey) -> list[Decision]:
    """Every legal decision in a progression-turn step, in a fixed order."""
    found = _turn_cache.get(key)
    if found is None:
        found = _turn_options(key)
        if len(_turn_cache) > _CACHE_LIMIT:
            _turn_cache.clear()
        _turn_cache[key] = found
    return found


def _turn_options(key: TurnKey) -> list[Decision]:
    hand = key.hand
    out: list[Decision] = [END_TURN]
    natural = key.natural or hand
    merchants = key.merchants
    if any(merchants):  # R6.5
        sources = [v for v in range(1, 11) if natural[v]]
        for cls in (1, 2, 3):
            if merchants[cls]:
                for dst in VALUES_OF_CLASS[cls]:
                    out.extend(Convert(src, dst) for src in sources if src != dst)
    relics = hand[RELIC]
    if key.relics:
        out.extend(MakeRelicSet(k) for k in range(1, min(5, relics) + 1))
    if key.sets and relics + max(hand[1:10]) >= 3:  # R6.2, R6.3
        for v in range(1, 10):
            cls = CLASS_OF[v]
            for own in range(min(hand[v], 5), -1, -1):
                for wild in range(min(relics, 5 - own) + 1):
                    size = own + wild
                    if size < 3:
                        continue
                    cards = (v,) * own + (RELIC,) * wild
                    last = min(key.queue, reach(cls, size))
                    out.extend(MakeSet(v, cards, t) for t in range(1, last + 1))
                    if key.draw:
                        out.append(MakeSet(v, cards, TARGET_DRAW))
                    if key.cash and size == 3:
                        out.append(MakeSet(v, cards, TARGET_CASH))
    present = [v for v in range(1, 10) if hand[v]]
    if key.series and len(present) >= 4:
        count = len(present)
        for mask in range(1, 1 << count):
            if mask.bit_count() >= 4:
                out.append(MakeSeries(tuple(present[i] for i in range(count) if mask >> i & 1)))
    if key.perfect and len(present) == 9 and relics:  # R8.1
        out.append(MakePerfect())
    return out
