"""What one seat may see of a game, and what a spectator may see.

A :class:`PlayerView` reads the live game and exposes only what its seat may know: its own
hand, stored cards and secret offer, and everyone's public state (doubloons, developments,
hand sizes, the market, the display, the queue, the face-up discard pile, revealed offers).
Other seats' hands, stored cards and unrevealed offers, and the order of the draw piles, are
never reachable through it. ``seat=None`` is a spectator: public state only.

The view is live: it reflects the game as it is when read. :meth:`PlayerView.to_dict` takes a
plain, JSON-ready snapshot (the form bots, the protocol and tests use).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from mundus_net.engine.cards import RELIC, Cards, from_counts, to_counts
from mundus_net.engine.decisions import Decision
from mundus_net.engine.deck import Deck
from mundus_net.engine.game import Game, Pending, Result

__all__ = ["PlayerView", "StateView", "View", "known_hands", "public_log"]


class PlayerView:
    __slots__ = ("_game", "_known", "seat")

    def __init__(self, game: Game, seat: int | None) -> None:
        if seat is not None and not 0 <= seat < game.players:
            raise ValueError(f"seat {seat} is not at this table")
        self._game = game
        self.seat = seat
        self._known = _KnownHands()

    @classmethod
    def for_seats(cls, game: Game) -> list[PlayerView]:
        """A view for every seat, in seat order, sharing the work of following the public
        log for :attr:`known_hands` (the same for every seat)."""
        views = [cls(game, s) for s in range(game.players)]
        for view in views[1:]:
            view._known = views[0]._known
        return views

    # -- the table ------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self._game.players

    @property
    def deck(self) -> Deck:
        """The table's development deck (public: every card's definition)."""
        return self._game.deck

    @property
    def round(self) -> int:
        return self._game.round

    @property
    def event(self) -> str | None:
        return self._game.event

    @property
    def phase(self) -> str:
        return self._game.phase

    @property
    def trade_master(self) -> int:
        return self._game.tm

    @property
    def announced(self) -> int:
        return self._game.announced

    @property
    def market(self) -> Cards:
        return tuple(self._game.market)

    @property
    def display(self) -> Cards:
        return tuple(self._game.display)

    @property
    def queue(self) -> tuple[str, ...]:
        return tuple(self._game.queue)

    @property
    def draw_size(self) -> int:
        return len(self._game.draw)

    @property
    def devpile_size(self) -> int:
        return len(self._game.devpile)

    @property
    def discard(self) -> Cards:
        """The discard pile is face up (R6.10): its contents are public."""
        return tuple(sorted(self._game.discard))

    @property
    def doubloons(self) -> tuple[int, ...]:
        return tuple(self._game.doubloons)

    @property
    def developments(self) -> tuple[tuple[str, ...], ...]:
        return tuple(map(tuple, self._game.devs))

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(map(sum, self._game.hands))

    @property
    def stored_sizes(self) -> tuple[int, ...]:
        return tuple(map(sum, self._game.stored))

    @property
    def fleets(self) -> tuple[tuple[int, tuple[str, ...]], ...]:
        return tuple(self._game.fleets)

    @property
    def offered(self) -> tuple[int, ...]:
        """Seats whose offer is fixed (still face down) in the offer step."""
        return tuple(sorted(self._game.offers)) if self._game.phase == "offer" else ()

    @property
    def faceup(self) -> tuple[Cards, ...]:
        """Revealed offers still on the table (R5.11)."""
        return tuple(from_counts(f) for f in self._game.faceup)

    @property
    def faceup_counts(self) -> tuple[tuple[int, ...], ...]:
        """:attr:`faceup` as count vectors (``counts[v]``: cards of value v, index 0 unused)."""
        return tuple(map(tuple, self._game.faceup))

    @property
    def takes(self) -> tuple[tuple[int, int], ...]:
        """(taker, source) of each take this trade step, in order (R5.11)."""
        return tuple(self._game.takes)

    @property
    def converted(self) -> tuple[tuple[int, int], ...]:
        """Merchant conversions (from, to) made in the current progression turn (public)."""
        return tuple(self._game.converted) if self._game.phase in ("turn", "store") else ()

    @property
    def merchants_used(self) -> tuple[str, ...]:
        return tuple(sorted(self._game.merchants_used))

    @property
    def promo(self) -> bool:
        """Whether the promo cards are in play (a table option, docs/rules.md §10)."""
        return self._game.options.promo

    @property
    def round_limit(self) -> int | None:
        """The table's round limit (R8.5), or None."""
        return self._game.options.round_limit

    @property
    def pick_queue(self) -> tuple[tuple[int, tuple[str, ...]], ...]:
        """The fleets still to pick from the display this round, in picking order (R4.6)."""
        return tuple(self._game.pick_queue) if self._game.phase == "pick" else ()

    @property
    def pirates_due(self) -> tuple[int, ...]:
        """Per seat, how many cards it discards to the pirates this round (R4.7)."""
        g = self._game
        if g.phase != "pirates":
            return ()
        return tuple(g.pirates_due.get(s, 0) for s in range(g.players))

    @property
    def pirates_done(self) -> tuple[int, ...]:
        """Seats whose pirate discard is fixed (still secret) in the pirates step."""
        g = self._game
        return tuple(sorted(g.pirates_chosen)) if g.phase == "pirates" else ()

    @property
    def store_due(self) -> tuple[int, ...]:
        """Per seat, how many cards it may keep in its warehouses in the storage step after
        the progression turns (R6.9; 0: it is not asked)."""
        g = self._game
        if g.phase != "store" or g.options.rules < 2:
            return ()
        return tuple(g.store_due.get(s, 0) for s in range(g.players))

    @property
    def store_done(self) -> tuple[int, ...]:
        """Seats whose storage choice is fixed (still secret) in the storage step."""
        g = self._game
        return tuple(sorted(g.store_chosen)) if g.phase == "store" else ()

    @property
    def turn_order(self) -> tuple[int, ...]:
        """The order of this round's progression turns once the TM has chosen (R6.1)."""
        g = self._game
        return tuple(g.turn_order) if g.phase in ("turn", "store") else ()

    @property
    def turn_index(self) -> int:
        """The index in :attr:`turn_order` of the progression turn being played."""
        g = self._game
        return g.turn_index if g.phase in ("turn", "store") else 0

    @property
    def perfect_shown(self) -> tuple[int, ...]:
        """Seats that showed the perfect combination this round (R8.1)."""
        return tuple(self._game.perfect_shown)

    @property
    def queue_short(self) -> bool:
        """The queue could not be refilled this round: the game ends with it (R8.3)."""
        return self._game.queue_short

    @property
    def known_hands(self) -> tuple[Cards, ...]:
        """Per seat, cards every seat has seen go into that seat's hand this round and not
        seen leave it (public: caravel picks, market buys, takes, offers returned after the
        trade). A lower bound: the hand may hold more of each."""
        return self._known.read(self._game)

    @property
    def known_counts(self) -> tuple[tuple[int, ...], ...]:
        """:attr:`known_hands` as count vectors, one per seat."""
        return self._known.read_counts(self._game)

    @property
    def result(self) -> Result | None:
        return self._game.result

    @property
    def pending(self) -> Pending | None:
        return self._game.pending

    # -- this seat ------------------------------------------------------------------------

    @property
    def hand(self) -> Cards:
        return () if self.seat is None else from_counts(self._game.hands[self.seat])

    @property
    def stored(self) -> Cards:
        return () if self.seat is None else from_counts(self._game.stored[self.seat])

    @property
    def hand_counts(self) -> tuple[int, ...]:
        """:attr:`hand` as a count vector: ``counts[v]`` cards of value v (1-9, relic 10;
        index 0 unused), as the engine keeps it: no conversion, for code that counts."""
        return () if self.seat is None else tuple(self._game.hands[self.seat])

    @property
    def stored_counts(self) -> tuple[int, ...]:
        """:attr:`stored` as a count vector (see :attr:`hand_counts`)."""
        return () if self.seat is None else tuple(self._game.stored[self.seat])

    @property
    def my_offer(self) -> Cards | None:
        if self.seat is None:
            return None
        return self._game.offers.get(self.seat)

    @property
    def legal(self) -> list[Decision]:
        """This seat's legal decisions now (empty when it has nothing to decide)."""
        return [] if self.seat is None else self._game.legal(self.seat)

    def to_dict(self) -> dict[str, Any]:
        """A plain snapshot of everything this view may see."""
        g = self._game
        pend = g.pending
        data: dict[str, Any] = {
            "seat": self.seat,
            "players": g.players,
            "round": g.round,
            "event": g.event,
            "phase": g.phase,
            "trade_master": g.tm,
            "announced": g.announced,
            "market": self.market,
            "display": self.display,
            "queue": self.queue,
            "draw_size": self.draw_size,
            "devpile_size": self.devpile_size,
            "discard": self.discard,
            "doubloons": self.doubloons,
            "developments": self.developments,
            "hand_sizes": self.hand_sizes,
            "stored_sizes": self.stored_sizes,
            "fleets": self.fleets,
            "offered": self.offered,
            "faceup": self.faceup,
            "takes": self.takes,
            "converted": self.converted,
            "merchants_used": self.merchants_used,
            "promo": self.promo,
            "round_limit": self.round_limit,
            "pick_queue": self.pick_queue,
            "pirates_due": self.pirates_due,
            "pirates_done": self.pirates_done,
            "store_due": self.store_due,
            "store_done": self.store_done,
            "turn_order": self.turn_order,
            "turn_index": self.turn_index,
            "perfect_shown": self.perfect_shown,
            "queue_short": self.queue_short,
            "known_hands": self.known_hands,
            "pending": None if pend is None else {
                "kind": pend.kind, "seats": pend.seats, "detail": pend.detail},
            "result": None if g.result is None else {
                "winners": g.result.winners, "reason": g.result.reason,
                "doubloons": g.result.doubloons, "places": g.result.places,
                "rounds": g.result.rounds},
        }
        if self.seat is not None:
            data["hand"] = self.hand
            data["stored"] = self.stored
            data["my_offer"] = self.my_offer
        return data


def known_hands(game: Game) -> tuple[Cards, ...]:
    """See :attr:`PlayerView.known_hands`: read afresh from the public parts of this round's
    log."""
    return _KnownHands().read(game)


def _round_start(log: Sequence[Any]) -> int:
    """The index of the first event after the last ``round`` event (0 if there is none)."""
    start = len(log)
    while start > 0 and log[start - 1].kind != "round":
        start -= 1
    return start


class _KnownHands:
    """:func:`known_hands` kept up to date as the log grows: each read folds in only the
    events since the last one (between decisions the log only grows), instead of reading the
    whole round again; the host asks for it at every update."""

    __slots__ = ("counts", "counts_value", "log", "pos", "value")

    def __init__(self) -> None:
        self.log: list[Any] | None = None
        self.pos = 0
        self.counts: list[list[int]] = []
        self.value: tuple[Cards, ...] | None = None
        self.counts_value: tuple[tuple[int, ...], ...] | None = None

    def read(self, game: Game) -> tuple[Cards, ...]:
        self._catch_up(game)
        if self.value is None:
            self.value = tuple(from_counts(h) for h in self.counts)
        return self.value

    def read_counts(self, game: Game) -> tuple[tuple[int, ...], ...]:
        self._catch_up(game)
        if self.counts_value is None:
            self.counts_value = tuple(map(tuple, self.counts))
        return self.counts_value

    def _catch_up(self, game: Game) -> None:
        log = game.log
        if log is not self.log or self.pos > len(log):
            self.log, self.pos, self.value = log, _round_start(log), None
            self.counts_value = None
            self.counts = [[0] * 11 for _ in range(game.players)]
        if self.pos < len(log):
            if _fold_known(self.counts, log, self.pos):
                self.value = self.counts_value = None  # else the same values serve again
            self.pos = len(log)


def _fold_known(known: list[list[int]], log: Sequence[Any], start: int) -> bool:
    """Apply the public events ``log[start:]`` to the known counts; a round starts afresh.
    Whether any of them could change the counts."""

    def lose(seat: int, cards: Any) -> None:
        hand = known[seat]
        for c in cards:
            if hand[c]:
                hand[c] -= 1

    changed = False
    for index in range(start, len(log)):
        event = log[index]
        kind = event.kind
        if kind not in _CARD_EVENTS:
            continue  # decisions (the most frequent events) and others that show no card
        pub = event.public  # built on first read (game.Event): not for the others
        changed = True
        if kind == "round":
            for hand in known:
                hand[:] = [0] * 11
        elif kind == "pick":
            for c in pub["cards"]:
                known[pub["seat"]][c] += 1
        elif kind == "buy":
            known[pub["seat"]][pub["card"]] += 1
        elif kind == "take":
            swap = pub["swap"]
            known[pub["seat"]][pub["card"] if swap is None else swap] += 1
        elif kind == "trade_end":
            for seat, cards in pub["returned"].items():
                for c in cards:
                    known[seat][c] += 1
        elif kind == "reveal":
            for seat, cards in pub["offers"].items():
                lose(seat, cards)
        elif kind == "pirates":
            for seat, cards in pub["discards"].items():
                lose(seat, cards)
        elif kind == "convert":
            lose(pub["seat"], (pub["source"],))
        elif kind in ("set", "series", "perfect"):
            lose(pub["seat"], pub["spent"])
        elif kind == "relics":
            lose(pub["seat"], (RELIC,) * pub["size"])
        elif kind == "gift":  # a secret card left the giver's hand: any known one may be it
            known[pub["seat"]] = [max(0, k - 1) for k in known[pub["seat"]]]
        elif kind == "discard":
            known[pub["seat"]] = [0] * 11
    return changed


# The events _fold_known reads: every other kind leaves the known hands as they are.
_CARD_EVENTS = frozenset({"round", "pick", "buy", "take", "trade_end", "reveal", "pirates",
                          "convert", "set", "series", "perfect", "relics", "gift", "discard"})


def public_log(game: Game, seat: int | None = None, start: int = 0) -> list[dict[str, Any]]:
    """The log as ``seat`` (or a spectator, None) may read it: public parts, plus the private
    parts addressed to ``seat``."""
    out = []
    for event in game.log[start:]:
        entry = {"kind": event.kind, **event.public}
        if seat is not None and event.private and seat in event.private:
            entry.update(event.private[seat])
        out.append(entry)
    return out


# Not a native class when compiled: it keeps each field it reads as an attribute of its own.
@mypyc_attr(native_class=False)
class StateView:
    """The same reading API as :class:`PlayerView`, over a snapshot dict (the shape of
    ``PlayerView.to_dict()``, as it arrives over the network with lists for tuples).

    Network bots see the table through this; ``legal`` is the list the host sent.
    """

    def __init__(self, data: dict[str, Any], deck: Deck, legal: list[Decision] | None = None,
                 pending: Pending | None = None,
                 frozen: dict[str, tuple[Any, Any]] | None = None) -> None:
        self._data = data
        self.deck = deck
        self.seat: int | None = data.get("seat")
        self.legal: list[Decision] = legal or []
        self._pending = pending
        # name -> (the wire value, its tuple form), kept by the caller across views: a value
        # that is still the same object is not converted again.
        self._frozen = {} if frozen is None else frozen

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in _VIEW_FIELDS:
            raise AttributeError(name)
        raw = self._data.get(name)
        if type(raw) is list:
            known = self._frozen.get(name)
            if known is not None and known[0] is raw:
                value = known[1]
            else:
                value = _freeze(raw)
                self._frozen[name] = (raw, value)  # holds raw: its id is not reused
        else:
            value = raw
        setattr(self, name, value)  # read once per view
        return value

    # The count vectors PlayerView reads from the engine, made here from the card tuples.
    @property
    def hand_counts(self) -> tuple[int, ...]:
        return () if self.seat is None else tuple(to_counts(self.hand))

    @property
    def stored_counts(self) -> tuple[int, ...]:
        return () if self.seat is None else tuple(to_counts(self.stored))

    @property
    def faceup_counts(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(to_counts(cards)) for cards in self.faceup)

    @property
    def known_counts(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(to_counts(cards)) for cards in self.known_hands)

    @property
    def pending(self) -> Pending | None:
        if self._pending is not None:
            return self._pending
        raw = self._data.get("pending")
        if raw is None:
            return None
        return Pending(raw["kind"], tuple(raw["seats"]), raw.get("detail") or {})

    @property
    def result(self) -> Result | None:
        raw = self._data.get("result")
        if raw is None:
            return None
        return Result(tuple(raw["winners"]), raw["reason"], tuple(raw["doubloons"]),
                      tuple(raw["places"]), raw["rounds"])

    def to_dict(self) -> dict[str, Any]:
        return dict(self._data)


# What a seat's strategy reads: a PlayerView in-process, a StateView over the network (the same
# reading API). The bots and the determinizer take either; compiled, a view typed PlayerView
# alone would refuse the network's.
View = PlayerView | StateView

_VIEW_FIELDS = frozenset({
    "players", "round", "event", "phase", "trade_master", "announced", "market", "display",
    "queue", "draw_size", "devpile_size", "discard", "doubloons", "developments",
    "hand_sizes", "stored_sizes", "fleets", "offered", "faceup", "takes", "converted",
    "merchants_used", "hand", "stored", "my_offer", "promo", "round_limit", "pick_queue",
    "pirates_due", "pirates_done", "store_due", "store_done", "turn_order", "turn_index",
    "perfect_shown", "queue_short", "known_hands",
})


def _freeze(value: Any) -> Any:
    """Lists from the wire back to the tuples PlayerView returns."""
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value
