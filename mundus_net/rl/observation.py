"""The observation vector of one seat: numbers made only from that seat's
:class:`~mundus_net.engine.view.PlayerView`, so it holds nothing the seat may not know (other
hands, stored cards and offers still face down, the order of the piles are not in a view).

Seats are counted from the observing seat (block "seat 0" is the seat itself, "seat 1" the
next in turn order); a block of a seat beyond the table's players is all zeros. Every value is
between 0 and 4 (counts are divided by a typical size). :meth:`Observer.layout` names every
block (docs/rl.md prints it).

:class:`Observer` makes the vector from a view; :class:`LiveObserver`, which the environments
use, gives the same vectors for every seat of one live game at a fraction of the cost, by
keeping each seat's vector and writing only what changed (tests compare the two at every
step).
"""

from __future__ import annotations

import array
from collections.abc import Hashable
from typing import Any, Final

import numpy as np

from mundus_net.engine.cards import VALUES, to_counts
from mundus_net.engine.deck import EVENTS, Deck
from mundus_net.engine.game import PHASES, QUEUE_SIZE, WIN_DOUBLOONS, Game
from mundus_net.engine.view import PlayerView, StateView

__all__ = ["BLOCK_CACHE", "HIGH", "MAX_SEATS", "LiveObserver", "Observer"]

MAX_SEATS: Final = 6
HIGH: Final = 4.0  # every value is clipped to [0, HIGH]
BLOCK_CACHE: Final = 4096  # blocks kept (count vectors, card sets, queues)
# The vectors' dtype, made once and passed by position: np.frombuffer(x, dtype=np.float32)
# parses its keyword and converts the type at every call (about twice the time).
_FLOAT32: Final = np.dtype(np.float32)
# Where each field starts in a seat's block (Observer.seat_block lists them, with sizes).
(SEAT_DOUBLOONS, SEAT_HAND, SEAT_STORED, SEAT_OFFERED, SEAT_FACEUP) = (1, 2, 3, 4, 5)
SEAT_KNOWN, SEAT_PIRATES, SEAT_STORE, SEAT_PERFECT, SEAT_CARAVELS, SEAT_DEVS = (
    15, 25, 26, 27, 28, 29)


class Observer:
    """Turns a seat's view into its observation vector (float32, ``size`` values)."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        self.dev_index = {card.id: i for i, card in enumerate(deck.cards)}
        devs = len(deck.cards)
        cards = len(VALUES)
        parts: list[tuple[str, str, int]] = [
            ("players", "players (one-hot, 2-6)", 5),
            ("round", "round / 20", 1),
            ("phase", "phase (one-hot: " + ", ".join(PHASES) + ")", len(PHASES)),
            ("event", "event (one-hot: none, " + ", ".join(EVENTS) + ")", 1 + len(EVENTS)),
            ("tm", "trade master (one-hot, seat offset)", MAX_SEATS),
            ("announced", "announced N (one-hot: 2, 3, 4)", 3),
            ("hand", "hand (count of each card 1-9, relic) / 4", cards),
            ("stored", "stored / 4", cards),
            ("market", "market (counts)", cards),
            ("display", "caravel display (counts)", cards),
            ("discard", "discard pile / 12", cards),
            ("piles", "resource pile / 120, development pile / deck size", 2),
            ("queue", f"queue: position 1-5, each a one-hot over the deck's {devs} cards",
             QUEUE_SIZE * devs),
            ("flags", "queue short (R8.3), promo cards", 2),
            ("takes_by", "takes this trade step, by each seat offset / 6", MAX_SEATS),
            ("takes_from", "takes this trade step, from each seat offset / 6", MAX_SEATS),
        ]
        self.seat_block = [("present", 1), ("doubloons / 75", 1), ("hand size / 10", 1),
                           ("stored size / 10", 1), ("offer fixed", 1),
                           ("face-up offer / 4", cards), ("cards known in its hand / 4", cards),
                           ("pirate discards due", 1), ("storage capacity due / 5", 1),
                           ("showed the perfect combination", 1),
                           ("caravels in its fleets / 6", 1), ("developments (multi-hot)", devs)]
        seat_size = sum(n for _, n in self.seat_block)
        starts = [sum(n for _, n in self.seat_block[:i]) for i in range(len(self.seat_block))]
        assert starts[1:] == [SEAT_DOUBLOONS, SEAT_HAND, SEAT_STORED, SEAT_OFFERED,
                              SEAT_FACEUP, SEAT_KNOWN, SEAT_PIRATES, SEAT_STORE,
                              SEAT_PERFECT, SEAT_CARAVELS, SEAT_DEVS]
        what = ", ".join(f"{name} ({n})" if n > 1 else name for name, n in self.seat_block)
        for s in range(MAX_SEATS):
            parts.append((f"seat{s}", f"seat offset {s} (0: this seat): {what}", seat_size))
        self.parts = parts
        self.size = sum(n for _, _, n in parts)
        self._at: dict[str, int] = {}
        start = 0
        for key, _, n in parts:
            self._at[key] = start
            start += n
        self._seat0 = self._at["seat0"]
        self._seat_size = seat_size
        self._phase = {p: i for i, p in enumerate(PHASES)}
        self._event = {e: i + 1 for i, e in enumerate(EVENTS)}
        self._zeros = array.array("f", bytes(4 * self.size))
        # Blocks made once and copied in: count vectors, development sets, queues.
        self._blocks: dict[Hashable, array.array[float]] = {}
        self._devs = max(1, devs)
        at = self._at  # each block's start as an attribute: read every step
        self._o_players, self._o_round, self._o_phase = at["players"], at["round"], at["phase"]
        self._o_event, self._o_tm, self._o_announced = at["event"], at["tm"], at["announced"]
        self._o_hand, self._o_stored, self._o_market = at["hand"], at["stored"], at["market"]
        self._o_display, self._o_discard, self._o_piles = (at["display"], at["discard"],
                                                           at["piles"])
        self._o_queue, self._o_flags = at["queue"], at["flags"]
        self._o_takes_by, self._o_takes_from = at["takes_by"], at["takes_from"]

    def _quarters(self, counts: tuple[int, ...]) -> array.array[float]:
        """A count vector's block: ``counts[v] / 4`` for v = 1..10 (the same vectors come
        back step after step, so each block is made once)."""
        block = self._blocks.get(counts)
        if block is None:
            block = self._keep(counts, array.array("f", [c / 4 for c in counts[1:11]]))
        return block

    def _card_block(self, cards: tuple[int, ...], each: float) -> array.array[float]:
        """The block of a multiset of resource cards: ``each`` per card at ``card - 1``,
        clipped at HIGH (a market or display of more than 4 equal cards)."""
        key = ("cards", each, cards)
        block = self._blocks.get(key)
        if block is None:
            counts = to_counts(cards)[1:]
            block = self._keep(key, array.array("f", [min(c * each, HIGH) for c in counts]))
        return block

    def _count_block(self, counts: tuple[int, ...], each: float) -> array.array[float]:
        """:meth:`_card_block` of the multiset whose count vector is ``counts``."""
        key = ("counts", each, counts)
        block = self._blocks.get(key)
        if block is None:
            block = self._keep(key, array.array("f", [min(c * each, HIGH) for c in counts[1:]]))
        return block

    def _hot(self, cards: tuple[str, ...], ordered: bool) -> array.array[float]:
        """The block of a set of development cards (multi-hot over the deck, up to the last
        one set) or, ``ordered``, of a queue (a one-hot over the deck per position)."""
        key = ("queue" if ordered else "devs", cards)
        block = self._blocks.get(key)
        if block is None:
            index, devs = self.dev_index, self._devs
            spots = ([p * devs + index[c] for p, c in enumerate(cards)] if ordered
                     else [index[c] for c in cards])
            block = array.array("f", bytes(4 * (max(spots) + 1)))
            for i in spots:
                block[i] = 1.0
            self._keep(key, block)
        return block

    def _keep(self, key: Hashable, block: array.array[float]) -> array.array[float]:
        """Keep a block made for ``key``; all are dropped once BLOCK_CACHE are kept."""
        if len(self._blocks) >= BLOCK_CACHE:
            self._blocks.clear()
        self._blocks[key] = block
        return block

    def layout(self) -> list[tuple[int, int, str]]:
        """(first index, length, what) of each block."""
        return [(self._at[key], n, what) for key, what, n in self.parts]

    def observe(self, view: PlayerView | StateView) -> np.ndarray:
        seat = view.seat
        if seat is None:
            raise ValueError("an observation is a seat's: this view is a spectator's")
        # An array.array copied from zeros, then shared with numpy: its item assignment
        # costs a fraction of a numpy array's, and handing it over copies nothing.
        x = array.array("f", self._zeros)
        players = view.players
        x[self._o_players + players - 2] = 1.0
        x[self._o_round] = view.round / 20
        x[self._o_phase + self._phase[view.phase]] = 1.0
        x[self._o_event + self._event.get(view.event or "", 0)] = 1.0
        x[self._o_tm + (view.trade_master - seat) % players] = 1.0
        announced = view.announced
        if announced in (2, 3, 4):
            x[self._o_announced + announced - 2] = 1.0
        quarters = self._quarters
        for at, counts in ((self._o_hand, view.hand_counts),
                           (self._o_stored, view.stored_counts)):
            if any(counts):
                x[at:at + 10] = quarters(counts)
        for at, cards, each in ((self._o_market, view.market, 1.0),
                                (self._o_display, view.display, 1.0),
                                (self._o_discard, view.discard, 1 / 12)):
            if cards:
                x[at:at + 10] = self._card_block(cards, each)
        x[self._o_piles] = view.draw_size / 120
        x[self._o_piles + 1] = view.devpile_size / self._devs
        queue = view.queue
        if queue:
            at = self._o_queue
            block = self._hot(queue, True)
            x[at:at + len(block)] = block
        x[self._o_flags] = float(view.queue_short)
        x[self._o_flags + 1] = float(view.promo)
        takes = view.takes
        if takes:
            by, source_at = self._o_takes_by, self._o_takes_from
            for taker, source in takes:
                x[by + (taker - seat) % players] += 1 / 6
                x[source_at + (source - seat) % players] += 1 / 6
        self._seats(x, view, seat, players)
        return np.frombuffer(x, _FLOAT32)

    def _seats(self, x: array.array[float], view: PlayerView | StateView, seat: int, players: int
               ) -> None:
        doubloons, hands, stored = view.doubloons, view.hand_sizes, view.stored_sizes
        faceup, known, devs = view.faceup_counts, view.known_counts, view.developments
        offered, perfect = view.offered, view.perfect_shown
        pirates, store = view.pirates_due, view.store_due
        caravels = [0] * players
        for owner, ids in view.fleets:
            caravels[owner] += len(ids)
        size, seat0 = self._seat_size, self._seat0
        quarters, hot = self._quarters, self._hot
        for s in range(players):
            base = seat0 + ((s - seat) % players) * size
            x[base] = 1.0
            x[base + SEAT_DOUBLOONS] = doubloons[s] / WIN_DOUBLOONS
            x[base + SEAT_HAND] = hands[s] / 10
            x[base + SEAT_STORED] = stored[s] / 10
            if s in offered:
                x[base + SEAT_OFFERED] = 1.0
            if faceup and any(faceup[s]):
                x[base + SEAT_FACEUP:base + SEAT_KNOWN] = quarters(faceup[s])
            if known and any(known[s]):
                x[base + SEAT_KNOWN:base + SEAT_PIRATES] = quarters(known[s])
            if pirates:
                x[base + SEAT_PIRATES] = min(pirates[s], HIGH)
            if store:
                x[base + SEAT_STORE] = store[s] / 5
            if s in perfect:
                x[base + SEAT_PERFECT] = 1.0
            x[base + SEAT_CARAVELS] = caravels[s] / 6
            if devs[s]:
                block = hot(devs[s], False)
                at = base + SEAT_DEVS
                x[at:at + len(block)] = block


class LiveObserver:
    """The observations of every seat of one live game: what :meth:`Observer.observe` gives
    from the seat's view, at a fraction of the cost (the environments' path; tests check the
    two are equal at every step).

    Almost all of a vector is public, the same for every seat up to the order of the seat
    blocks: it is kept once (``_shared``, seat blocks in seat order), brought up to date
    once per change of the game, field by field and only where an event since the last
    update may have changed it (``_CHANGES``). A seat's vector is a copy of it with the
    seat blocks rotated to start at the seat, its own hand and stored cards, and the trade
    master and the takes counted from the seat.

    It reads the game itself, but only what :class:`PlayerView` shows the seat: its own hand
    and stored cards; of the others, their sizes and the public state (doubloons,
    developments, face-up offers, which seats have offered, cards known in hands through the
    view's own reader of the public log).
    """

    def __init__(self, observer: Observer, game: Game) -> None:
        self.observer = observer
        self.game = game
        self.views = PlayerView.for_seats(game)
        n = game.players
        o = observer
        self._shared = array.array("f", o._zeros)
        self._shared[o._o_players + n - 2] = 1.0
        self._shared[o._o_flags + 1] = float(game.options.promo)
        self._seen: dict[str, Any] = {}
        size = o._seat_size
        self._bases = [o._seat0 + s * size for s in range(n)]
        for base in self._bases:
            self._shared[base] = 1.0  # present
        self._seats_end = o._seat0 + n * size
        # Takes this trade step by each seat and from each seat, in seat order (float32
        # sums, made as Observer makes them: one 1/6 at a time).
        self._takes_by = array.array("f", bytes(4 * n))
        self._takes_from = array.array("f", bytes(4 * n))
        self._takes_counted = 0
        self._synced = -1  # the log's length at the last _sync
        self._store_rules = game.options.rules >= 2
        self._none_offered = [False] * n
        # Each seat's hand and stored counts at the last sync (None: not yet written).
        self._hands: list[list[int] | None] = [None] * n
        self._stored: list[list[int] | None] = [None] * n
        # (the pile, its length, its count vector) when last counted (_discard_counts).
        self._discard: tuple[list[int], int, tuple[int, ...]] | None = None

    def observe(self, seat: int) -> np.ndarray:
        g, o = self.game, self.observer
        log = g.log
        if self._synced != len(log):
            self._sync(_changes(log, self._synced))
            self._synced = len(log)
        x = array.array("f", self._shared)
        n = g.players
        first, cut, end = o._seat0, self._bases[seat], self._seats_end
        if seat:  # the seat blocks, from this seat's on
            x[first:first + end - cut] = self._shared[cut:end]
            x[first + end - cut:end] = self._shared[first:cut]
        x[o._o_tm + (g.tm - seat) % n] = 1.0
        for at, counts in ((o._o_hand, g.hands[seat]), (o._o_stored, g.stored[seat])):
            if any(counts):
                x[at:at + 10] = o._quarters(tuple(counts))
        if g.takes:
            for at, counted in ((o._o_takes_by, self._takes_by),
                                (o._o_takes_from, self._takes_from)):
                x[at:at + n - seat] = counted[seat:]
                x[at + n - seat:at + n] = counted[:seat]
        return np.frombuffer(x, _FLOAT32)

    def _sync(self, changed: int) -> None:
        """Bring the shared vector up to date with the game: ``changed`` says which fields
        the events since the last update may have changed."""
        g, o, x, seen = self.game, self.observer, self._shared, self._seen
        header = (g.round, g.phase, g.event, g.announced)
        if header != seen.get("header"):
            seen["header"] = header
            start = o._o_round
            x[start:o._o_tm] = o._zeros[start:o._o_tm]
            x[o._o_announced:o._o_hand] = o._zeros[o._o_announced:o._o_hand]
            x[o._o_round] = header[0] / 20
            x[o._o_phase + o._phase[header[1]]] = 1.0
            x[o._o_event + o._event.get(header[2] or "", 0)] = 1.0
            if header[3] in (2, 3, 4):
                x[o._o_announced + header[3] - 2] = 1.0
        if changed & _PILES:
            for key, at, cards in (("market", o._o_market, g.market),
                                   ("display", o._o_display, g.display)):
                if cards != seen.get(key):
                    seen[key] = cards[:]
                    x[at:at + 10] = (o._card_block(tuple(sorted(cards)), 1.0) if cards
                                     else o._zeros[at:at + 10])
        if changed & _DISCARD:
            discard = self._discard_counts()
            if discard is not seen.get("discard"):
                seen["discard"] = discard
                at = o._o_discard
                x[at:at + 10] = (o._count_block(discard, 1 / 12) if len(g.discard)
                                 else o._zeros[at:at + 10])
        x[o._o_piles] = len(g.draw) / 120
        x[o._o_piles + 1] = len(g.devpile) / o._devs
        queue = g.queue
        if changed & _QUEUE and queue != seen.get("queue"):
            seen["queue"] = queue[:]
            at = o._o_queue
            x[at:o._o_flags] = o._zeros[at:o._o_flags]
            if queue:
                block = o._hot(tuple(queue), True)
                x[at:at + len(block)] = block
        x[o._o_flags] = float(g.queue_short)
        if changed & _TAKES:
            self._count_takes()
        self._sync_seats(g.players, changed)

    def _count_takes(self) -> None:
        """The takes by and from each seat this trade step: only those since the last count,
        unless a new trade step began."""
        takes = self.game.takes
        before = self._seen.get("takes")
        if takes == before:
            return
        done = len(before) if before is not None else 0
        if not done or takes[:done] != before:  # a new trade step: count afresh
            done = 0
            self._takes_by = array.array("f", bytes(4 * self.game.players))
            self._takes_from = array.array("f", bytes(4 * self.game.players))
        self._seen["takes"] = takes[:]
        by, source = self._takes_by, self._takes_from
        for taker, giver in takes[done:]:
            by[taker] += 1 / 6
            source[giver] += 1 / 6

    def _discard_counts(self) -> tuple[int, ...]:
        """The discard pile's count vector, the same tuple while the pile is unchanged; the
        pile only grows until a reshuffle replaces it, so only the new cards are counted."""
        pile = self.game.discard
        known = self._discard
        if known is not None and known[0] is pile and known[1] == len(pile):
            return known[2]
        if known is not None and known[0] is pile and known[1] < len(pile):
            counts = list(known[2])
            start = known[1]
        else:
            counts, start = [0] * 11, 0
        for card in pile[start:]:
            counts[card] += 1
        value = tuple(counts)
        self._discard = (pile, len(pile), value)
        return value

    def _sync_seats(self, n: int, changed: int) -> None:
        """The seat blocks, field by field: a field that ``changed`` (the log's events since
        the last sync) may have changed is compared, and if it did, written again for every
        seat (most steps change one or two fields)."""
        g, o, x = self.game, self.observer, self._shared
        seen, bases, zeros = self._seen, self._bases, o._zeros
        phase = g.phase
        if phase != seen.get("phase"):
            seen["phase"] = phase
            changed |= _PHASED
        doubloons = g.doubloons
        if changed & _DOUBLOONS and doubloons != seen.get("doubloons"):
            seen["doubloons"] = doubloons[:]
            for s in range(n):
                x[bases[s] + SEAT_DOUBLOONS] = doubloons[s] / WIN_DOUBLOONS
        if changed & _SIZES:
            # Each seat's hand and stored cards compared with their copies from the last
            # sync; a size counted again only where they changed (a step changes one or two).
            for at, piles, kept in ((SEAT_HAND, g.hands, self._hands),
                                    (SEAT_STORED, g.stored, self._stored)):
                if piles != kept:
                    for s in range(n):
                        pile = piles[s]
                        if pile != kept[s]:
                            kept[s] = pile[:]
                            x[bases[s] + at] = sum(pile) / 10
        if changed & _PHASED:
            offered = (list(map(g.offers.__contains__, range(n))) if phase == "offer"
                       else self._none_offered)
            if offered != seen.get("offered"):
                seen["offered"] = offered
                for s in range(n):
                    x[bases[s] + SEAT_OFFERED] = 1.0 if offered[s] else 0.0
        quarters = o._quarters
        # Face-up offers and known cards: only the seats whose counts changed are written.
        faceup = g.faceup
        before = seen.get("faceup")
        if changed & _FACEUP and faceup != before:
            seen["faceup"] = [f[:] for f in faceup]
            for s in range(n):
                if before is None or faceup[s] != before[s]:
                    at = bases[s] + SEAT_FACEUP
                    x[at:at + 10] = (quarters(tuple(faceup[s])) if any(faceup[s])
                                     else zeros[:10])
        known_before: tuple[tuple[int, ...], ...] | None = seen.get("known")
        # the same tuple while nothing changed it
        known = (self.views[0].known_counts if changed & _KNOWN or known_before is None
                 else known_before)
        if known is not known_before:
            seen["known"] = known
            for s in range(n):
                if known_before is None or known[s] != known_before[s]:
                    at = bases[s] + SEAT_KNOWN
                    x[at:at + 10] = quarters(known[s]) if any(known[s]) else zeros[:10]
        if changed & _PHASED:  # set when their step starts, fixed during it
            pirates = ([min(g.pirates_due.get(s, 0), HIGH) for s in range(n)]
                       if phase == "pirates" else None)
            if pirates != seen.get("pirates"):
                seen["pirates"] = pirates
                for s in range(n):
                    x[bases[s] + SEAT_PIRATES] = 0.0 if pirates is None else pirates[s]
            store = ([g.store_due.get(s, 0) / 5 for s in range(n)]
                     if phase == "store" and self._store_rules else None)
            if store != seen.get("store"):
                seen["store"] = store
                for s in range(n):
                    x[bases[s] + SEAT_STORE] = 0.0 if store is None else store[s]
        perfect = g.perfect_shown
        if changed & _PERFECT and perfect != seen.get("perfect"):
            seen["perfect"] = perfect[:]
            for s in range(n):
                x[bases[s] + SEAT_PERFECT] = 1.0 if s in perfect else 0.0
        fleets = g.fleets
        if changed & _FLEETS and fleets != seen.get("fleets"):
            seen["fleets"] = fleets[:]
            caravels = [0] * n
            for owner, ids in fleets:
                caravels[owner] += len(ids)
            for s in range(n):
                x[bases[s] + SEAT_CARAVELS] = caravels[s] / 6
        devs = g.devs
        if changed & _DEVS and devs != seen.get("devs"):
            seen["devs"] = [d[:] for d in devs]
            hot, width = o._hot, o._seat_size - SEAT_DEVS
            for s in range(n):
                at = bases[s] + SEAT_DEVS
                x[at:at + width] = zeros[:width]
                if devs[s]:
                    block = hot(tuple(devs[s]), False)
                    x[at:at + len(block)] = block


# What each kind of log event may change in an observation: LiveObserver looks at a field
# again only after an event that may change it (every change to a game is logged, and the
# log only grows). A kind not listed (setup, round, any new one) may change everything.
(_HAND, _PILES, _DISCARD, _QUEUE, _TAKES, _DOUBLOONS, _SIZES, _PHASED, _FACEUP, _KNOWN,
 _PERFECT, _FLEETS, _DEVS) = (1 << bit for bit in range(13))
_EVERYTHING: Final = (1 << 13) - 1
_CARDS: Final = _HAND | _SIZES | _KNOWN  # cards moved to or from hands (known ones too)
_CHANGES: Final = {
    "decision": 0, "first": 0, "round_end": 0, "game_over": 0,
    "event": _DOUBLOONS, "income": _DOUBLOONS,
    "unstore": _HAND | _SIZES, "deal": _HAND | _SIZES, "store": _HAND | _SIZES,
    "revert": _HAND, "convert": _HAND | _KNOWN,
    "reshuffle": _DISCARD,
    "display": _PILES | _FLEETS, "split": _FLEETS,
    "pick": _PILES | _CARDS,
    "buy": _PILES | _CARDS | _DOUBLOONS,
    "pirates": _CARDS | _DISCARD,
    "announce": _PHASED, "offer": _PHASED,
    "reveal": _CARDS | _FACEUP | _PHASED | _TAKES,
    "trade_master": _TAKES,
    "take": _CARDS | _FACEUP | _PILES | _TAKES | _DOUBLOONS,
    "trade_end": _CARDS | _FACEUP,
    "gift": _CARDS,
    "set": _CARDS | _DISCARD | _QUEUE | _DEVS | _DOUBLOONS,
    "series": _CARDS | _DISCARD | _DOUBLOONS,
    "relics": _CARDS | _DISCARD | _DOUBLOONS,
    "perfect": _CARDS | _DISCARD | _PERFECT,
    "discard": _CARDS | _DISCARD,
}


def _changes(log: list[Any], start: int) -> int:
    """The fields the events ``log[start:]`` may have changed (everything for a start of -1,
    before the first look)."""
    if start < 0 or start > len(log):
        return _EVERYTHING
    found, get = 0, _CHANGES.get
    for event in log[start:]:
        found |= get(event.kind, _EVERYTHING)
    return found
