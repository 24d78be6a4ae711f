"""Resource cards (R1.1-R1.3) and the small multiset helpers the engine uses for hands.

A resource is an int: its value 1-9, or ``RELIC`` (10) for an Inca relic, so that a card's
int is also its trade value (R1.3). A hand is a *count vector*: a list of 11 ints where
``hand[v]`` is how many cards of value ``v`` it holds (index 0 is unused).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations
from typing import Final

__all__ = [
    "CLASS_NAMES", "CLASS_OF", "CLASS_OF_NAME", "NUMBERED", "RELIC", "RESOURCE_COUNTS",
    "RESOURCE_NAMES", "TOTAL_RESOURCES", "VALUES", "VALUES_OF_CLASS", "Cards", "card_char",
    "contains", "empty_counts", "format_cards", "from_counts", "iter_multisets_upto",
    "parse_cards", "submultisets", "to_counts",
]

RELIC: Final = 10
VALUES: Final = range(1, 11)  # every resource int, relic last
NUMBERED: Final = range(1, 10)

RESOURCE_NAMES: Final = {
    1: "cocoa",
    2: "corn",
    3: "tobacco",
    4: "coffee",
    5: "cotton",
    6: "sugar cane",
    7: "potatoes",
    8: "indigo",
    9: "vanilla",
    RELIC: "relic",
}

# R1.1: how many of each resource the game has.
RESOURCE_COUNTS: Final = {1: 16, 2: 16, 3: 16, 4: 12, 5: 12, 6: 12, 7: 8, 8: 8, 9: 8, RELIC: 12}
TOTAL_RESOURCES: Final = sum(RESOURCE_COUNTS.values())  # 120

COMMON, UNCOMMON, RARE = 1, 2, 3
CLASS_NAMES: Final = {COMMON: "common", UNCOMMON: "uncommon", RARE: "rare"}
CLASS_OF_NAME: Final = {name: cls for cls, name in CLASS_NAMES.items()}
# R1.2: class of each numbered value (relics have none: 0).
CLASS_OF: Final = (0, COMMON, COMMON, COMMON, UNCOMMON, UNCOMMON, UNCOMMON, RARE, RARE, RARE, 0)
VALUES_OF_CLASS: Final = {COMMON: (1, 2, 3), UNCOMMON: (4, 5, 6), RARE: (7, 8, 9)}

Cards = tuple[int, ...]  # a sorted multiset of resources


def card_char(card: int) -> str:
    """One character per resource: ``1``-``9`` or ``R``."""
    return "R" if card == RELIC else str(card)


def format_cards(cards: Iterable[int]) -> str:
    """``(1, 1, 5, 10)`` -> ``"115R"``; the empty multiset is ``"-"``."""
    text = "".join(card_char(c) for c in sorted(cards))
    return text or "-"


def parse_cards(text: str) -> Cards:
    """Inverse of :func:`format_cards`; raises ValueError naming the bad character."""
    if text == "-":
        return ()
    cards = []
    for ch in text:
        if ch in "Rr":
            cards.append(RELIC)
        elif ch in "123456789":
            cards.append(int(ch))
        else:
            raise ValueError(f"{ch!r} is not a resource (1-9 or R)")
    return tuple(sorted(cards))


def empty_counts() -> list[int]:
    return [0] * 11


def to_counts(cards: Iterable[int]) -> list[int]:
    counts = [0] * 11
    for c in cards:
        counts[c] += 1
    return counts


def from_counts(counts: Sequence[int]) -> Cards:
    out: list[int] = []
    for v in VALUES:
        if counts[v]:
            out.extend([v] * counts[v])
    return tuple(out)


def contains(counts: Sequence[int], need: Sequence[int]) -> bool:
    """True if the multiset ``need`` (counts) fits inside ``counts``."""
    return all(counts[v] >= need[v] for v in VALUES)


def submultisets(counts: Sequence[int], size: int) -> list[Cards]:
    """Every distinct sorted multiset of ``size`` cards drawn from ``counts``, sorted."""
    cards = from_counts(counts)
    if size > len(cards):
        return []
    if size == len(cards):
        return [cards]
    # combinations() of a sorted hand lists index tuples in lexicographic order, and the first
    # time each distinct multiset comes up is in its sorted place (its earliest indices come
    # before those of any greater multiset), so dropping repeats leaves them sorted: the same
    # list as sorted(set(...)), without the sort.
    return list(dict.fromkeys(combinations(cards, size)))


def iter_multisets_upto(counts: Sequence[int], size: int) -> Iterator[Cards]:
    """Every distinct multiset of 0..``size`` cards drawn from ``counts``."""
    for k in range(size + 1):
        yield from submultisets(counts, k)
