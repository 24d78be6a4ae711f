"""The rules engine: a game state that applies validated decisions (docs/rules.md R1-R8).

The state is plain data (lists, dicts, ints) so that it copies and serialises quickly. At any
moment :attr:`Game.pending` says which seat(s) must decide what, :meth:`Game.legal` lists the
legal choices and :meth:`Game.apply` validates and applies one. A refused decision raises
:class:`RuleError` naming the rule and leaves the state untouched: every ``_do_*`` method
checks everything before it changes anything.

Decisions with a single legal choice are applied by the engine itself (logged as ``auto``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Self, TypeVar, cast

from mundus_net.engine import combos
from mundus_net.engine.cards import (
    CLASS_NAMES,
    CLASS_OF,
    RELIC,
    RESOURCE_COUNTS,
    VALUES,
    Cards,
    from_counts,
    submultisets,
    to_counts,
)
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
    RuleError,
    SplitFleet,
    Store,
    Take,
)
from mundus_net.engine.deck import EVENTS, Deck, default_deck

__all__ = [
    "ANNOUNCE", "CORONADO", "CORONADO_COST", "END_RULES", "ESTEFANO_GAIN", "FIELDS", "FIRST",
    "GIFT", "HAND_DEAL", "MARKET_SIZE", "OFFER", "ORELLANA_GAIN", "OVER", "PHASES", "PHASE_RULES",
    "PICK",
    "PIRATES", "QUEUE_SIZE", "REASON_WORDS", "RELIC_PAY", "RULES_EDITION", "RULES_EDITIONS",
    "SERGIO", "SERGIO_COST", "SERIES_PAY", "SIMULTANEOUS", "SPLIT", "STORE", "TAKE", "TM_TIE",
    "TURN", "VALDIVIA_BONUS", "VICENTE_PAY", "WIN_DOUBLOONS", "Event", "Game", "GameState",
    "Options", "Pending", "Result", "decision_phase",
]

# Phases: the kind of the pending decision ("over" when the game has ended).
CORONADO: Final = "coronado"
SPLIT: Final = "split"
PICK: Final = "pick"
SERGIO: Final = "sergio"
PIRATES: Final = "pirates"
ANNOUNCE: Final = "announce"
OFFER: Final = "offer"
TM_TIE: Final = "tm_tie"
TAKE: Final = "take"
GIFT: Final = "gift"
FIRST: Final = "first"
TURN: Final = "turn"
STORE: Final = "store"
OVER: Final = "over"
PHASES: Final = (CORONADO, SPLIT, PICK, SERGIO, PIRATES, ANNOUNCE, OFFER, TM_TIE, TAKE, GIFT,
                 FIRST, TURN, STORE, OVER)
SIMULTANEOUS: Final = (OFFER, PIRATES, STORE)
# The rule that says who makes the decision of each phase: a decision from another seat
# breaks it (RuleError names it).
PHASE_RULES: Final = {
    CORONADO: "R3.3", SPLIT: "R4.4", PICK: "R4.6", SERGIO: "P01", PIRATES: "R4.7",
    ANNOUNCE: "R5.1", OFFER: "R5.2", TM_TIE: "R5.4", TAKE: "R5.6", GIFT: "R5.9",
    FIRST: "R6.1", TURN: "R6.1", STORE: "R6.9"}
# After the end, the rule that ended the game.
END_RULES: Final = {"perfect": "R8.1", "doubloons": "R8.2", "queue": "R8.3", "round_limit": "R8.5"}

RULES_EDITION: Final = 2  # R6.9/R6.10: storage and discard once, after every progression turn
RULES_EDITIONS: Final = (1, 2)
HAND_DEAL: Final = 5  # R4.2
MARKET_SIZE: Final = 3  # R2.2
QUEUE_SIZE: Final = 5  # R2.3
WIN_DOUBLOONS: Final = 75  # R8.2
SERIES_PAY: Final = {4: 5, 5: 7, 6: 10, 7: 15, 8: 20, 9: 25}  # R6.2
RELIC_PAY: Final = {1: 3, 2: 7, 3: 12, 4: 18, 5: 25}  # R6.2

# How a game ended (Result.reason), in words that follow "the game ended ..." (R8.1-R8.5).
REASON_WORDS: Final = {
    "perfect": "by a perfect combination",
    "doubloons": "when a player reached 75 doubloons",
    "queue": "when the queue ran out",
    "round_limit": "at the round limit",
}
VICENTE_PAY: Final = {1: 3, 2: 4, 3: 5}  # P04, by class
CORONADO_COST: Final = 2  # R3.3
SERGIO_COST: Final = 2  # P01
ORELLANA_GAIN: Final = 2  # R5.10
ESTEFANO_GAIN: Final = 3  # P03
VALDIVIA_BONUS: Final = 3  # R5.4


class Event:
    """One entry of the game log: its ``kind``, ``public`` (what every seat may see: a dict
    of field names to values) and ``private``, which maps a seat to what only that seat may
    see (None: nothing). Two events are equal when all three are.

    The game makes an event without a dict: its kind's field names (one of the constants
    below, shared by every event of the kind) and a tuple of values, where a dict of them
    cost more to build, to walk for the garbage collector and to free; ``public`` builds the
    dict when it is first read, and keeps it. ``Event(kind, public, private)`` makes one from a
    dict."""

    __slots__ = ("_names", "_public", "_values", "kind", "private")

    def __init__(self, kind: str, public: dict[str, Any] | None = None,
                 private: dict[int, dict[str, Any]] | None = None) -> None:
        self.kind = kind
        self._public = public
        self._names: tuple[str, ...] = ()
        self._values: tuple[object, ...] = ()
        self.private = private

    @property
    def public(self) -> dict[str, Any]:
        public = self._public
        if public is None:
            # A loop, not dict(zip(...)): compiled, one dict insertion a field, where dict()
            # walks the pairs through the generic iterator protocol.
            names, values = self._names, self._values
            public = {}
            for i in range(len(names)):
                public[names[i]] = values[i]
            self._public = public
        return public

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.kind == other.kind and self.public == other.public
                and self.private == other.private)

    __hash__ = None  # type: ignore[assignment]  # equal by content, like the dicts it holds

    def __repr__(self) -> str:
        return f"Event(kind={self.kind!r}, public={self.public!r}, private={self.private!r})"


def _event(kind: str, names: tuple[str, ...], values: tuple[object, ...],
           private: dict[int, dict[str, Any]] | None) -> Event:
    """An event of ``kind`` whose public fields ``names`` hold ``values``, in order."""
    event = Event(kind, None, private)
    event._names = names
    event._values = values
    return event


# The public fields of each kind of event, in order (docs/engine.md, "The event log"): the
# keys of Event.public. A kind logged in two shapes has a constant for each.
_SETUP: Final = ("players", "promo", "tm", "deck", "market", "queue")
_RESHUFFLE: Final = ("size", "number")
_ROUND: Final = ("round", "tm")
_EVENT: Final = ("event", "source")
_EVENT_CHOSEN: Final = ("event", "source", "seat")
_SEAT_COUNT: Final = ("seat", "count")  # unstore, offer, store (their cards are private)
_DEAL: Final = ("counts",)
_CARDS: Final = ("cards",)  # display
_SPLIT: Final = ("seat", "fleets")
_PICK: Final = ("seat", "fleet", "cards")
_BUY: Final = ("seat", "card", "market")
_PIRATES: Final = ("discards",)
_ANNOUNCE: Final = ("seat", "n")
_REVEAL: Final = ("offers", "scores")
_TRADE_MASTER: Final = ("seat", "previous")
_TAKE: Final = ("seat", "source", "card", "swap", "market", "orellana")
_TRADE_END: Final = ("last", "returned")
_GIFT: Final = ("seat", "to")
_FIRST: Final = ("seat", "first")
_CONVERT: Final = ("seat", "merchant", "source", "value")
_SET_CASH: Final = ("seat", "value", "cards", "spent", "target", "gain")
_SET_DRAW: Final = ("seat", "value", "cards", "spent", "target", "development")
_SET: Final = ("seat", "value", "cards", "spent", "target", "development", "refill")
_SERIES: Final = ("seat", "cards", "spent", "gain")
_RELICS: Final = ("seat", "size", "gain")
_PERFECT: Final = ("seat", "spent")
_INCOME: Final = ("seat", "gain", "parts")
_SEAT_CARDS: Final = ("seat", "cards")  # revert, discard
_ROUND_END: Final = ("round", "doubloons")
_GAME_OVER: Final = ("winners", "reason", "doubloons", "places", "rounds")


@dataclass(frozen=True, slots=True)
class Pending:
    """Who must decide what. ``detail`` holds the public constraints of the decision."""

    kind: str
    seats: tuple[int, ...]
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Result:
    """R8: how the game ended. ``reason`` is perfect, doubloons, queue or round_limit."""

    winners: tuple[int, ...]
    reason: str
    doubloons: tuple[int, ...]
    places: tuple[int, ...]
    rounds: int


@dataclass(frozen=True, slots=True)
class Options:
    """Table options. ``first_tm`` None draws the first TM at random (R2.4).

    ``rules`` is the edition of the rules the game follows: 2 (the default) stores and
    discards once for everyone after every progression turn (R6.9, R6.10); 1 is the earlier
    reading, kept so that records and positions made before the correction still replay:
    each player stored and discarded at the end of his own turn."""

    players: int
    seed: int = 0
    promo: bool = False
    first_tm: int | None = 0
    round_limit: int | None = None
    rules: int = RULES_EDITION


@dataclass(frozen=True, slots=True, kw_only=True)
class GameState:
    """A complete position: every field of a game's state, the way :meth:`Game.from_state`
    takes it and :meth:`Game.state` gives it (the text of docs/notation.md holds the same
    fields). What a game derives from ``devs`` (the owners of the powers, caravels, merchants,
    warehouse capacity, shipyards) is rebuilt by the game itself; the log is not part of a
    position.

    Per-seat fields (``doubloons``, ``hands``, ``stored``, ``devs``, ``faceup``) hold one
    entry per seat, or nothing for "zero, empty" at every seat. Resource counts are vectors
    indexed by value (``[0] * 11`` for none, :func:`~mundus_net.engine.cards.to_counts`).
    Building a game from a state checks no rule: :func:`~mundus_net.engine.notation.parse_position`
    checks a position written by hand before it builds one."""

    options: Options
    round: int = 0
    tm: int = 0
    event: str | None = None
    phase: str = ANNOUNCE
    active: int = 0
    market: list[int] = field(default_factory=list)
    display: list[int] = field(default_factory=list)
    queue: list[str] = field(default_factory=list)
    doubloons: Sequence[int] = ()
    hands: Sequence[Sequence[int]] = ()
    stored: Sequence[Sequence[int]] = ()
    devs: Sequence[Sequence[str]] = ()
    faceup: Sequence[Sequence[int]] = ()
    fleets: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    pick_queue: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    pirates_due: dict[int, int] = field(default_factory=dict)
    pirates_chosen: dict[int, Cards] = field(default_factory=dict)
    announced: int = 0
    offers: dict[int, Cards] = field(default_factory=dict)
    tie: tuple[int, ...] = ()
    takes: list[tuple[int, int]] = field(default_factory=list)
    gift_to: int | None = None
    turn_order: list[int] = field(default_factory=list)
    turn_index: int = 0
    turn_sets: int = 0
    turn_series: bool = False
    turn_relics: bool = False
    turn_perfect: bool = False
    converted: list[tuple[int, int]] = field(default_factory=list)
    merchants_used: frozenset[str] | set[str] = frozenset()
    store_due: dict[int, int] = field(default_factory=dict)
    store_chosen: dict[int, Cards] = field(default_factory=dict)
    perfect_shown: list[int] = field(default_factory=list)
    queue_short: bool = False
    result: Result | None = None
    reshuffles: int = 0
    draw: list[int] = field(default_factory=list)
    discard: list[int] = field(default_factory=list)
    devpile: list[str] = field(default_factory=list)


# The per-seat fields of a GameState.
_PER_SEAT: Final = ("doubloons", "hands", "stored", "devs", "faceup")


# Every field of a Game, in one place: its slots, what Game.copy copies, what the notation
# compares. A constant, not Game.__slots__: a compiled class has no __slots__ to read.
FIELDS: Final[tuple[str, ...]] = (
    "_keep_log",
    "_legal",
    "_on_round_end",
    "active",
    "announced",
    "capacity",
    "caravels",
    "converted",
    "deck",
    "devpile",
    "devs",
    "discard",
    "display",
    "doubloons",
    "draw",
    "event",
    "faceup",
    "fleets",
    "gift_to",
    "hands",
    "log",
    "market",
    "merchants",
    "merchants_used",
    "offers",
    "options",
    "owner",
    "perfect_shown",
    "phase",
    "pick_queue",
    "pirates_chosen",
    "pirates_due",
    "players",
    "queue",
    "queue_short",
    "reshuffles",
    "result",
    "round",
    "shipyards",
    "store_chosen",
    "store_due",
    "stored",
    "takes",
    "tie",
    "tm",
    "turn_index",
    "turn_order",
    "turn_perfect",
    "turn_relics",
    "turn_series",
    "turn_sets",
)


class Game:
    """The authoritative state of one game of Mundus Novus."""

    __slots__ = FIELDS

    def __new__(cls, *args: object, **kwargs: object) -> Self:
        """A game with no field set: __init__ sets one up, copy() and from_state() fill it.
        (Written out because a compiled class's own __new__ would run __init__.)"""
        return super().__new__(cls)

    # -- construction -------------------------------------------------------------------

    def __init__(self, options: Options, deck: Deck | None = None) -> None:
        """A new game, set up (R2) and advanced to its first decision."""
        n = options.players
        _check_options(options)
        self._blank(options, deck or default_deck())
        rng = random.Random(options.seed)  # R2.6: one seeded generator for the setup
        self.draw: list[int] = [v for v in VALUES for _ in range(RESOURCE_COUNTS[v])]
        rng.shuffle(self.draw)
        self.market: list[int] = sorted(self.draw.pop() for _ in range(MARKET_SIZE))  # R2.2
        cards = [c.id for c in self.deck.for_players(n, options.promo)]
        rng.shuffle(cards)  # R2.3
        self.devpile: list[str] = cards
        dealt = min(QUEUE_SIZE, len(self.devpile))
        self.queue: list[str] = [self.devpile.pop() for _ in range(dealt)]
        self.tm = rng.randrange(n) if options.first_tm is None else options.first_tm  # R2.4
        # The seed is never logged: it would tell every seat the order of every pile.
        self._log("setup", _SETUP, (n, options.promo, self.tm, self.deck.name,
                                    tuple(self.market), tuple(self.queue)))
        self._begin_round()
        self._settle()

    def _blank(self, options: Options, deck: Deck) -> None:
        n = options.players
        self.options = options
        self.deck = deck
        self.players = n
        self.reshuffles = 0
        self.round = 0
        self.tm = 0
        self.event: str | None = None
        self.phase = ANNOUNCE
        self.active = 0
        self.draw = []
        self.discard: list[int] = []
        self.market = []
        self.display: list[int] = []
        self.queue = []
        self.devpile = []
        self.hands = [[0] * 11 for _ in range(n)]
        self.stored = [[0] * 11 for _ in range(n)]
        self.doubloons = [0] * n
        self.devs: list[list[str]] = [[] for _ in range(n)]
        self.owner: dict[str, int] = {}
        self.caravels: list[list[str]] = [[] for _ in range(n)]
        self.merchants: list[list[str]] = [[] for _ in range(n)]
        self.capacity = [0] * n
        self.shipyards = [0] * n
        self.fleets: list[tuple[int, tuple[str, ...]]] = []
        self.pick_queue: list[tuple[int, tuple[str, ...]]] = []
        self.pirates_due: dict[int, int] = {}
        self.pirates_chosen: dict[int, Cards] = {}
        self.store_due: dict[int, int] = {}
        self.store_chosen: dict[int, Cards] = {}
        self.announced = 0
        self.offers: dict[int, Cards] = {}
        self.faceup = [[0] * 11 for _ in range(n)]
        self.tie: tuple[int, ...] = ()
        self.takes: list[tuple[int, int]] = []
        self.gift_to = -1
        self.turn_order: list[int] = []
        self.turn_index = 0
        self.turn_sets = 0
        self.turn_series = False
        self.turn_relics = False
        self.turn_perfect = False
        self.converted: list[tuple[int, int]] = []
        self.merchants_used: set[str] = set()
        self.perfect_shown: list[int] = []
        self.queue_short = False
        self.result: Result | None = None
        self.log: list[Event] = []
        self._legal: dict[int, list[Decision]] = {}
        self._keep_log = True
        self._on_round_end: Callable[[Game], bool] | None = None

    @classmethod
    def from_state(cls, state: GameState, deck: Deck | None = None) -> Self:
        """A game in the position ``state``, built by the game itself as python-chess's
        ``Board(fen)`` is: every field set from ``state`` (copied), what the developments
        bring (owners, caravels, merchants, capacity, shipyards) rebuilt from ``state.devs``,
        an empty log. ``deck``: the development deck the position uses (default: the
        built-in one). Options no table has raise RuleError (as :class:`Game` does); a
        per-seat field without one entry per seat raises ValueError. No rule is checked
        beyond that: :func:`~mundus_net.engine.notation.parse_position` does it for a
        position written by hand."""
        _check_options(state.options)
        g = cls.__new__(cls)
        g._blank(state.options, deck or default_deck())
        g._set_fields(state)
        return g

    def set_state(self, state: GameState) -> None:
        """Put this game in the position ``state`` (python-chess's ``Board.set_fen``), as
        :meth:`from_state` builds one; the deck, the log, :attr:`keep_log` and
        :attr:`on_round_end` stay as they are. For arranging a position by hand (tests):
        change what :meth:`state` returns, then set it."""
        _check_options(state.options)
        log, keep_log, on_round_end = self.log, self._keep_log, self._on_round_end
        self._blank(state.options, self.deck)
        self.log, self._keep_log, self._on_round_end = log, keep_log, on_round_end
        self._set_fields(state)

    def state(self) -> GameState:
        """This game's position, in copies: :meth:`from_state` makes the same game of it."""
        return GameState(
            options=self.options, round=self.round, tm=self.tm, event=self.event,
            phase=self.phase, active=self.active, market=self.market[:],
            display=self.display[:], queue=self.queue[:], doubloons=self.doubloons[:],
            hands=[h[:] for h in self.hands], stored=[h[:] for h in self.stored],
            devs=[d[:] for d in self.devs], faceup=[h[:] for h in self.faceup],
            fleets=self.fleets[:], pick_queue=self.pick_queue[:],
            pirates_due=dict(self.pirates_due), pirates_chosen=dict(self.pirates_chosen),
            announced=self.announced, offers=dict(self.offers), tie=self.tie,
            takes=self.takes[:], gift_to=None if self.gift_to == -1 else self.gift_to,
            turn_order=self.turn_order[:], turn_index=self.turn_index,
            turn_sets=self.turn_sets, turn_series=self.turn_series,
            turn_relics=self.turn_relics, turn_perfect=self.turn_perfect,
            converted=self.converted[:], merchants_used=set(self.merchants_used),
            store_due=dict(self.store_due), store_chosen=dict(self.store_chosen),
            perfect_shown=self.perfect_shown[:], queue_short=self.queue_short,
            result=self.result, reshuffles=self.reshuffles, draw=self.draw[:],
            discard=self.discard[:], devpile=self.devpile[:])

    def _set_fields(self, state: GameState) -> None:
        """Every field from ``state`` on a blank game (:meth:`_blank`), the developments
        acquired as in play."""
        n = self.players
        for name in _PER_SEAT:
            given = len(getattr(state, name))
            if given not in (0, n):
                raise ValueError(f"GameState.{name} holds {given} entries for {n} seats")
        self.round = state.round
        self.tm = state.tm
        self.event = state.event
        self.phase = state.phase
        self.active = state.active
        self.market = list(state.market)
        self.display = list(state.display)
        self.queue = list(state.queue)
        if state.doubloons:
            self.doubloons = list(state.doubloons)
        if state.hands:
            self.hands = [list(h) for h in state.hands]
        if state.stored:
            self.stored = [list(h) for h in state.stored]
        if state.faceup:
            self.faceup = [list(h) for h in state.faceup]
        self.fleets = list(state.fleets)
        self.pick_queue = list(state.pick_queue)
        self.pirates_due = dict(state.pirates_due)
        self.pirates_chosen = dict(state.pirates_chosen)
        self.announced = state.announced
        self.offers = dict(state.offers)
        self.tie = tuple(state.tie)
        self.takes = list(state.takes)
        self.gift_to = -1 if state.gift_to is None else state.gift_to
        self.turn_order = list(state.turn_order)
        self.turn_index = state.turn_index
        self.turn_sets = state.turn_sets
        self.turn_series = state.turn_series
        self.turn_relics = state.turn_relics
        self.turn_perfect = state.turn_perfect
        self.converted = list(state.converted)
        self.merchants_used = set(state.merchants_used)
        self.store_due = dict(state.store_due)
        self.store_chosen = dict(state.store_chosen)
        self.perfect_shown = list(state.perfect_shown)
        self.queue_short = state.queue_short
        self.result = state.result
        self.reshuffles = state.reshuffles
        self.draw = list(state.draw)
        self.discard = list(state.discard)
        self.devpile = list(state.devpile)
        for seat, ids in enumerate(state.devs):  # devs, owner, caravels, merchants...
            for card_id in ids:
                self._acquire(seat, card_id)

    # -- look-ahead: settings that are not part of the position ---------------------------

    @property
    def keep_log(self) -> bool:
        """True (the default): the game logs every event. False: it logs nothing from now
        on (a look-ahead copy nobody reads, such as a search's rollouts; faster)."""
        return self._keep_log

    @keep_log.setter
    def keep_log(self, value: bool) -> None:
        self._keep_log = value

    @property
    def on_round_end(self) -> Callable[[Game], bool] | None:
        """Called with the game when a round ends and the game goes on (R8 found no end),
        before the next round begins; if it returns True the game halts there: phase
        over, no result. A search plays its rollouts to the end of a round so; copies
        (:meth:`copy`) share it. None (the default): nothing is called."""
        return self._on_round_end

    @on_round_end.setter
    def on_round_end(self, hook: Callable[[Game], bool] | None) -> None:
        self._on_round_end = hook

    def next_round(self) -> None:
        """Begin the next round now from the state as it is (R3 event, R4 supply...) and
        apply the forced decisions up to the first real one. For positions arranged by hand
        (tests); in play a round begins when the previous one ends (R7)."""
        self._legal = {}
        self._begin_round()
        self._settle()

    @classmethod
    def new(cls, players: int, seed: int = 0, *, promo: bool = False, deck: Deck | None = None,
            first_tm: int | None = 0, round_limit: int | None = None,
            rules: int = RULES_EDITION) -> Game:
        return cls(Options(players, seed, promo, first_tm, round_limit, rules), deck)

    def copy(self) -> Self:
        """An independent copy of the same class (the log is shared up to this point, not
        after); a subclass's own slots are its to copy.

        Every field of FIELDS written out (tests/test_game_state.py checks that none is left
        out): a loop of getattr and setattr over the names is generic attribute access, each
        value's type tested at run time, even compiled; read by name, each is a native read."""
        g = type(self).__new__(type(self))
        g._keep_log = self._keep_log
        g._legal = self._legal.copy()  # its lists shared, as they were
        g._on_round_end = self._on_round_end
        g.active = self.active
        g.announced = self.announced
        g.capacity = self.capacity[:]
        g.caravels = [c[:] for c in self.caravels]
        g.converted = self.converted[:]
        g.deck = self.deck
        g.devpile = self.devpile[:]
        g.devs = [d[:] for d in self.devs]
        g.discard = self.discard[:]
        g.display = self.display[:]
        g.doubloons = self.doubloons[:]
        g.draw = self.draw[:]
        g.event = self.event
        g.faceup = [h[:] for h in self.faceup]
        g.fleets = self.fleets[:]
        g.gift_to = self.gift_to
        g.hands = [h[:] for h in self.hands]
        g.log = self.log[:]
        g.market = self.market[:]
        g.merchants = [m[:] for m in self.merchants]
        g.merchants_used = self.merchants_used.copy()
        g.offers = self.offers.copy()
        g.options = self.options
        g.owner = self.owner.copy()
        g.perfect_shown = self.perfect_shown[:]
        g.phase = self.phase
        g.pick_queue = self.pick_queue[:]
        g.pirates_chosen = self.pirates_chosen.copy()
        g.pirates_due = self.pirates_due.copy()
        g.players = self.players
        g.queue = self.queue[:]
        g.queue_short = self.queue_short
        g.reshuffles = self.reshuffles
        g.result = self.result
        g.round = self.round
        g.shipyards = self.shipyards[:]
        g.store_chosen = self.store_chosen.copy()
        g.store_due = self.store_due.copy()
        g.stored = [h[:] for h in self.stored]
        g.takes = self.takes[:]
        g.tie = self.tie
        g.tm = self.tm
        g.turn_index = self.turn_index
        g.turn_order = self.turn_order[:]
        g.turn_perfect = self.turn_perfect
        g.turn_relics = self.turn_relics
        g.turn_series = self.turn_series
        g.turn_sets = self.turn_sets
        return g

    # -- public API ---------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def pending(self) -> Pending | None:
        """The decision the game waits for, or None once it is over."""
        phase = self.phase
        if phase == OVER:
            return None
        if phase == OFFER:
            seats = tuple(s for s in range(self.players) if s not in self.offers)
            return Pending(OFFER, seats, {"n": self.announced, "sizes": {
                s: self._offer_sizes(s) for s in seats}})
        # The details of the simultaneous steps name every seat of the step, not only those
        # still waiting: one seat's answer leaves the others' question as it was (§8).
        if phase == PIRATES:
            seats = tuple(s for s in sorted(self.pirates_due) if s not in self.pirates_chosen)
            return Pending(PIRATES, seats, {"counts": dict(sorted(self.pirates_due.items()))})
        if phase == STORE:
            seats = self.waiting_seats()
            step = sorted(self.store_due) if self.options.rules >= 2 else [self.active]
            return Pending(STORE, seats, {"capacity": {s: self.capacity[s] for s in step}})
        detail: dict[str, Any] = {}
        if phase == PICK:
            fleet = self.pick_queue[0][1]
            detail = {"fleet": fleet, "count": min(len(fleet), len(self.display))}
        elif phase == TM_TIE:
            detail = {"candidates": self.tie}
        elif phase == GIFT:
            detail = {"to": self.gift_to}
        elif phase == TURN:
            detail = {"sets": self.turn_sets, "series": self.turn_series,
                      "relics": self.turn_relics, "perfect": self.turn_perfect}
        return Pending(phase, (self.active,), detail)

    def legal(self, seat: int) -> list[Decision]:
        """Every legal decision for ``seat`` now (empty if it has nothing to decide)."""
        cached = self._legal.get(seat)
        if cached is None:
            cached = self._compute_legal(seat)
            self._legal[seat] = cached
        return cached

    def apply(self, seat: int, decision: Decision | object) -> None:
        """Validate and apply ``seat``'s decision; raise RuleError (state untouched) if it is
        not allowed now. (``object``: anything else, a bot's bug, is refused as R7 here, also
        in the compiled build, which would refuse it with a TypeError at the call.)"""
        phase = self.phase
        handler = _HANDLERS.get(type(decision))
        if handler is None or handler[0] != phase:  # never true when the game is over
            if phase == OVER:
                reason = self.result.reason if self.result is not None else ""
                raise RuleError(END_RULES.get(reason, "R8.4"), "the game is over")
            raise RuleError("R7", f"{type(decision).__name__} is not the decision pending "
                                  f"now (the game waits for {phase})")
        if phase in SIMULTANEOUS:
            if not self.legal(seat):  # empty exactly when the seat is not waited for
                raise RuleError(PHASE_RULES[phase], f"seat {seat} has nothing to decide now")
        elif seat != self.active:
            raise RuleError(PHASE_RULES[phase],
                            f"it is seat {self.active}'s decision, not seat {seat}'s")
        mark = len(self.log)
        try:
            handler[1](self, seat, decision)
        except (TypeError, ValueError) as exc:
            # A field of the wrong type (a bot's or a parser's bug). Handlers check before
            # they change anything, so the state is still untouched.
            raise RuleError("R7", f"malformed {type(decision).__name__}: {exc}") from None
        self._record(mark, seat, cast(Decision, decision), auto=False)  # a handler took it
        if phase in SIMULTANEOUS and self.phase == phase:
            # Until the last one is in, a simultaneous decision is only recorded (R4.7, R5.3):
            # what the other waiting seats may choose is unchanged, so their lists are kept.
            self._legal.pop(seat, None)
        else:
            self._legal = {}
        self._settle()

    # -- bookkeeping ----------------------------------------------------------------------

    def _log(self, kind: str, names: tuple[str, ...], values: tuple[object, ...],
             private: dict[int, dict[str, Any]] | None = None) -> None:
        """Log an event of ``kind``: its public fields ``names`` (a constant of the kind)
        hold ``values``; ``private``, by seat, what only that seat may see."""
        if self._keep_log:
            self.log.append(_event(kind, names, values, private))

    def _record(self, mark: int, seat: int, decision: Decision, auto: bool) -> None:
        """Log a decision before the events it caused (they start at index ``mark``)."""
        if not self._keep_log:
            return
        # Its dict made at once: the public part of a decision is read nearly always (the
        # records, the host, the benchmarks count the bots' decisions by "auto").
        kind = type(decision)
        if kind in _SECRET_DECISIONS:
            event = Event("decision", {"seat": seat, "type": kind.__name__, "auto": auto},
                          {seat: {"decision": decision}})
        else:
            event = Event("decision", {"seat": seat, "type": kind.__name__, "auto": auto,
                                       "decision": decision})
        self.log.insert(mark, event)

    def _settle(self) -> None:
        """Apply every decision that has a single legal choice, until a real one is pending."""
        while self.phase != OVER:
            if self.phase in SIMULTANEOUS:
                waiting = self.waiting_seats()
                forced = next((s for s in waiting if len(self.legal(s)) == 1), None)
                if forced is None:
                    return
                seat = forced
            else:
                seat = self.active
                # legal(seat), without re-checking the phase and the seat: this runs after
                # every decision.
                options = self._legal.get(seat)
                if options is None:
                    options = self._legal[seat] = _LEGAL[self.phase](self, seat)
                if len(options) != 1:
                    return
            choice = self._legal[seat][0]
            mark = len(self.log)
            _HANDLERS[type(choice)][1](self, seat, choice)
            self._record(mark, seat, choice, auto=True)
            self._legal = {}

    def waiting_seats(self) -> tuple[int, ...]:
        """The seats whose decision the game waits for now."""
        phase = self.phase
        if phase == OFFER:
            offers = self.offers
            return tuple([s for s in range(self.players) if s not in offers])
        if phase == PIRATES:
            return tuple(s for s in sorted(self.pirates_due) if s not in self.pirates_chosen)
        if phase == STORE and self.options.rules >= 2:
            return tuple(s for s in sorted(self.store_due) if s not in self.store_chosen)
        if phase == OVER:
            return ()
        return (self.active,)

    def _draw_resource(self) -> int | None:
        """R4.2: the top resource; reshuffle the discard pile when the draw pile is empty."""
        if not self.draw:
            if not self.discard:
                return None
            self.reshuffles += 1
            pile = self.discard
            self.discard = []
            random.Random(f"{self.options.seed}/reshuffle/{self.reshuffles}").shuffle(pile)
            self.draw = pile
            self._log("reshuffle", _RESHUFFLE, (len(pile), self.reshuffles))
        return self.draw.pop()

    def _draw_resources(self, count: int) -> list[int]:
        """R4.2: up to ``count`` resources in the order ``count`` calls of _draw_resource()
        would draw them, taking what the pile holds in one slice."""
        got: list[int] = []
        while len(got) < count:
            card = self._draw_resource()  # reshuffles if the pile is empty
            if card is None:
                break
            got.append(card)
            more = min(count - len(got), len(self.draw))
            if more:
                got.extend(reversed(self.draw[-more:]))  # the top of the pile is its end
                del self.draw[-more:]
        return got

    def affected(self, seat: int) -> bool:
        """R3.4: does this round's event act on ``seat``?"""
        return self.event is not None and self.owner.get("cosa") != seat

    def _acquire(self, seat: int, card_id: str) -> None:
        card = self.deck[card_id]
        self.devs[seat].append(card_id)
        if card.power:
            self.owner[card.power] = seat
        if card.kind == "caravel":
            self.caravels[seat].append(card_id)
            self.caravels[seat].sort(key=lambda c: (self.deck[c].caravel, c))
        elif card.kind == "merchant":
            self.merchants[seat].append(card_id)
        elif card.kind == "warehouse":
            self.capacity[seat] += card.capacity
        elif card.kind == "shipyard":
            self.shipyards[seat] += 1

    def _discard_counts(self, counts: Sequence[int]) -> None:
        for v in VALUES:
            if counts[v]:
                self.discard.extend([v] * counts[v])

    # -- R3 event step ------------------------------------------------------------------

    def _begin_round(self) -> None:
        self.round += 1
        self.perfect_shown = []
        self.queue_short = False
        self.merchants_used = set()
        event = None
        if self.round >= 2 and self.queue:  # R3.1, R3.2
            event = self.deck[self.queue[0]].icon
        self.event = event
        self._log("round", _ROUND, (self.round, self.tm))
        coronado = self.owner.get("coronado")
        if (self.round >= 2 and event is None and coronado is not None
                and self.doubloons[coronado] >= CORONADO_COST):  # R3.3
            self.phase = CORONADO
            self.active = coronado
            return
        self._log("event", _EVENT, (event, "queue" if event else "none"))
        self._supply()

    def _do_choose_event(self, seat: int, d: ChooseEvent) -> None:
        if d.event is not None:
            if d.event not in EVENTS:
                raise RuleError("R3.3", f"{d.event!r} is not an event ({', '.join(EVENTS)})")
            if self.doubloons[seat] < CORONADO_COST:
                raise RuleError("R1.4", "imposing an event costs 2 doubloons")
            self.doubloons[seat] -= CORONADO_COST
            self.event = d.event
        self._log("event", _EVENT_CHOSEN,
                  (self.event, "coronado" if d.event else "none", seat))
        self._supply()

    # -- R4 supply step -----------------------------------------------------------------

    def _supply(self) -> None:
        n = self.players
        for s in range(n):  # R4.1
            if _holds(self.stored[s]):
                back = from_counts(self.stored[s])
                for v in back:
                    self.hands[s][v] += 1
                self.stored[s] = [0] * 11
                self._log("unstore", _SEAT_COUNT, (s, len(back)), {s: {"cards": back}})
        dealt: dict[int, dict[str, Any]] = {}
        sizes = {}
        drawn = self._draw_resources(HAND_DEAL * n)  # as if each seat drew its 5 in turn
        for i in range(n):  # R4.2, dealt from the TM clockwise
            s = (self.tm + i) % n
            got = drawn[HAND_DEAL * i:HAND_DEAL * (i + 1)]
            hand = self.hands[s]
            for card in got:
                hand[card] += 1
            dealt[s] = {"cards": tuple(sorted(got))}
            sizes[s] = len(got)
        self._log("deal", _DEAL, (sizes,), dealt)
        total = sum(map(len, self.caravels))  # R4.3
        self.display = sorted(self._draw_resources(total))
        self._log("display", _CARDS, (tuple(self.display),))
        self.fleets = [(s, tuple(self.caravels[s])) for s in range(n) if self.caravels[s]]
        ponce = self.owner.get("ponce")
        if ponce is not None and len(self.caravels[ponce]) >= 2:  # R4.4
            self.phase = SPLIT
            self.active = ponce
            return
        self._start_picks()

    def _do_split(self, seat: int, d: SplitFleet) -> None:
        own = self.caravels[seat]
        chosen = set(d.fleet)
        if len(chosen) != len(d.fleet) or not chosen <= set(own):
            raise RuleError("R4.4", "a split names caravels you own, each once")
        if chosen and len(chosen) == len(own):
            raise RuleError("R4.4", "both fleets must hold at least one caravel")
        if chosen:
            if own[0] in chosen:  # the second fleet is the one without the lowest caravel
                chosen = set(own) - chosen
            first = tuple(c for c in own if c not in chosen)
            second = tuple(c for c in own if c in chosen)
            self.fleets = [f for f in self.fleets if f[0] != seat] + [(seat, first),
                                                                      (seat, second)]
        self._log("split", _SPLIT, (seat, tuple(f for s, f in self.fleets if s == seat)))
        self._start_picks()

    def fleet_strength(self, seat: int, fleet: Sequence[str]) -> tuple[int, int]:
        """R4.5: (fleet value, lowest caravel value) with Pizarro's highest caravel at 0."""
        values = [self.deck[c].caravel for c in fleet]
        if self.owner.get("pizarro") == seat and self.caravels[seat]:
            top = self.caravels[seat][-1]
            values = [0 if c == top else v for c, v in zip(fleet, values, strict=True)]
        return sum(values), min(values)

    def ranked_fleets(self) -> list[tuple[int, tuple[str, ...]]]:
        """R4.6: this round's fleets in the order they pick from the display."""
        n, tm = self.players, self.tm

        def order(item: tuple[int, tuple[int, tuple[str, ...]]]) -> tuple[int, int, int, int]:
            index, (seat, fleet) = item
            value, lowest = self.fleet_strength(seat, fleet)
            return value, lowest, (seat - tm) % n, index  # R4.6

        return [f for _, f in sorted(enumerate(self.fleets), key=order)]

    def _start_picks(self) -> None:
        self.pick_queue = self.ranked_fleets()
        self._next_pick()

    def _next_pick(self) -> None:
        while self.pick_queue and not self.display:
            self.pick_queue.pop(0)
        if self.pick_queue:
            self.phase = PICK
            self.active = self.pick_queue[0][0]
            return
        self._after_picks()

    def _do_pick(self, seat: int, d: PickCards) -> None:
        fleet = self.pick_queue[0][1]
        want = min(len(fleet), len(self.display))
        if len(d.cards) != want:
            raise RuleError("R4.6", f"this fleet takes {want} card(s), one per caravel")
        counts = to_counts(self.display)
        for v in d.cards:
            if not 1 <= v <= RELIC or counts[v] == 0:
                raise RuleError("R4.6", "pick cards from the caravel display")
            counts[v] -= 1
        for v in d.cards:
            self.display.remove(v)
            self.hands[seat][v] += 1
        self.pick_queue.pop(0)
        self._log("pick", _PICK, (seat, fleet, tuple(sorted(d.cards))))
        self._next_pick()

    def _after_picks(self) -> None:
        sergio = self.owner.get("sergio")
        if sergio is not None and self.doubloons[sergio] >= SERGIO_COST and self.market:
            self.phase = SERGIO
            self.active = sergio
            return
        self._start_pirates()

    def _do_buy(self, seat: int, d: BuyMarket) -> None:
        if d.card is not None:
            if d.card not in self.market:
                raise RuleError("P01", "buy a card that is in the market")
            if self.doubloons[seat] < SERGIO_COST:
                raise RuleError("R1.4", "buying a market card costs 2 doubloons")
            self.doubloons[seat] -= SERGIO_COST
            self.market.remove(d.card)
            self.hands[seat][d.card] += 1
            refill = self._draw_resource()
            if refill is not None:
                self.market.append(refill)
                self.market.sort()
            self._log("buy", _BUY, (seat, d.card, tuple(self.market)))
        self._start_pirates()

    def pirates_owed(self) -> dict[int, int]:
        """R4.7: the cards each seat the Pirates strike discards now, by seat (no entry for a
        seat that discards none)."""
        owed = {}
        if self.event == "PI":
            for s in range(self.players):
                if not self.affected(s):
                    continue
                big = sum(1 for seat, f in self.fleets if seat == s and len(f) >= 2)
                due = min(big, sum(self.hands[s]))
                if due:
                    owed[s] = due
        return owed

    def _start_pirates(self) -> None:
        self.pirates_due = self.pirates_owed()
        self.pirates_chosen = {}
        if self.pirates_due:
            self.phase = PIRATES
            return
        self._start_trade()

    def _do_pirates(self, seat: int, d: PirateDiscard) -> None:
        due = self.pirates_due[seat]
        if len(d.cards) != due:
            raise RuleError("R4.7", f"discard exactly {due} card(s) to the pirates")
        self._check_in_hand(seat, d.cards, "R4.7")
        self.pirates_chosen[seat] = tuple(sorted(d.cards))
        if len(self.pirates_chosen) == len(self.pirates_due):
            for s, cards in sorted(self.pirates_chosen.items()):
                for v in cards:
                    self.hands[s][v] -= 1
                    self.discard.append(v)
            self._log("pirates", _PIRATES, (dict(sorted(self.pirates_chosen.items())),))
            self._start_trade()

    def _check_in_hand(self, seat: int, cards: Sequence[int], rule: str) -> None:
        counts = [0] * 11
        hand = self.hands[seat]
        for v in cards:
            if type(v) is not int or not 1 <= v <= RELIC:
                raise RuleError(rule, f"{v!r} is not a resource")
            counts[v] += 1
            if counts[v] > hand[v]:
                raise RuleError(rule, "those cards are not all in your hand")

    # -- R5 trade step ------------------------------------------------------------------

    def _start_trade(self) -> None:
        self.phase = ANNOUNCE
        self.active = self.tm

    def _do_announce(self, seat: int, d: Announce) -> None:
        if d.n not in (2, 3, 4):
            raise RuleError("R5.1", "announce 2, 3 or 4")
        self.announced = d.n
        self.offers = {}
        self._log("announce", _ANNOUNCE, (seat, d.n))
        self.phase = OFFER

    def _offer_sizes(self, seat: int) -> tuple[int, int]:
        most = min(self.announced, sum(self.hands[seat]))
        least = 0 if self.owner.get("casas") == seat else most  # R5.2
        return least, most

    def _do_offer(self, seat: int, d: Offer) -> None:
        least, most = self._offer_sizes(seat)
        if not least <= len(d.cards) <= most:
            if least == most:
                raise RuleError("R5.2", f"offer exactly {most} card(s)")
            raise RuleError("R5.2", f"offer {least} to {most} cards")
        self._check_in_hand(seat, d.cards, "R5.2")
        self.offers[seat] = tuple(sorted(d.cards))
        self._log("offer", _SEAT_COUNT, (seat, len(d.cards)),
                  {seat: {"cards": self.offers[seat]}})
        if len(self.offers) == self.players:
            self._reveal_offers()

    def offer_score(self, seat: int, cards: Sequence[int]) -> int:
        """R5.4: trade values offered, plus Valdivia's 3."""
        bonus = VALDIVIA_BONUS if self.owner.get("valdivia") == seat else 0
        return sum(cards) + bonus

    def _reveal_offers(self) -> None:
        scores = []
        for s in range(self.players):  # R5.3: all at once
            cards = self.offers[s]
            face = [0] * 11
            for v in cards:
                self.hands[s][v] -= 1
                face[v] += 1
            self.faceup[s] = face
            scores.append(self.offer_score(s, cards))
        best = max(scores)
        tied = tuple(s for s in range(self.players) if scores[s] == best)
        self._log("reveal", _REVEAL,
                  ({s: self.offers[s] for s in range(self.players)}, tuple(scores)))
        self.offers = {}
        if self.tm in tied or len(tied) == 1:  # R5.4
            new_tm = self.tm if self.tm in tied else tied[0]
            self._set_tm(new_tm)
            self._start_takes()
        else:
            self.tie = tied
            self.phase = TM_TIE
            self.active = self.tm

    def _set_tm(self, seat: int) -> None:
        self._log("trade_master", _TRADE_MASTER, (seat, self.tm))
        self.tm = seat

    def _do_choose_tm(self, seat: int, d: ChooseTradeMaster) -> None:
        if d.seat not in self.tie:
            raise RuleError("R5.4", "choose the new TM among the highest offers")
        self.tie = ()
        self._set_tm(d.seat)
        self._start_takes()

    def _start_takes(self) -> None:
        self.takes = []
        self._next_taker(self.tm)

    def _next_taker(self, seat: int) -> None:
        self.active = seat
        faceup = self.faceup
        for s in range(self.players):
            if s != seat and _holds(faceup[s]):  # another seat's card on the table
                self.phase = TAKE
                return
        self._end_trade(seat)

    def take_sources(self, seat: int) -> list[int]:
        """Seats ``seat`` may take from now (R5.5, with R5.7's no ping-pong)."""
        faceup = self.faceup
        sources = [s for s in range(self.players) if s != seat and _holds(faceup[s])]
        if len(sources) > 1:
            blocked = self._ping_pong(seat)
            if blocked in sources:
                sources.remove(blocked)
        return sources

    def _ping_pong(self, seat: int) -> int | None:
        """R5.7: the seat that ``seat`` took from and that then took from ``seat``, which
        ``seat`` may not take from now unless it is the only one offering cards; or None."""
        takes = self.takes
        if self.players > 2 and len(takes) >= 2:
            # One pair at a time: the pair of pairs was a tuple unpacked through the
            # iterator protocol once compiled (750 instructions a call, 2.5% of a game).
            x1, y1 = takes[-2]
            x2, y2 = takes[-1]
            if x1 == seat and x2 == y1 and y2 == seat:
                return y1
        return None

    def _do_take(self, seat: int, d: Take) -> None:
        source, card, swap = d  # the fields, read once: a take is the most frequent decision
        if source == seat:
            raise RuleError("R5.5", "take a card of another player, not your own")
        if type(source) is not int or not 0 <= source < self.players:
            raise RuleError("R5.5", f"there is no seat {source!r}")
        if type(card) is not int or not 1 <= card <= RELIC or not self.faceup[source][card]:
            raise RuleError("R5.5", f"seat {source} has no such card on the table")
        # source offers the card, so only a ping-pong can rule it out (rarely: check it then).
        if source == self._ping_pong(seat) and source not in self.take_sources(seat):
            raise RuleError("R5.7", f"no ping-pong: you may not take from seat {source} again "
                                    "right after they took from you")
        market = self.market
        if swap is not None and swap not in market:
            raise RuleError("R5.5", "swap for a card that is in the market")
        self.faceup[source][card] -= 1
        gained = 0
        if swap is None:
            self.hands[seat][card] += 1
        else:
            market.remove(swap)
            market.append(card)
            market.sort()
            self.hands[seat][swap] += 1
            if self.owner.get("orellana") == seat and _orellana_market(market):  # R5.10
                gained = ORELLANA_GAIN
                self.doubloons[seat] += gained
        self.takes.append((seat, source))
        self._log("take", _TAKE, (seat, source, card, swap, tuple(market), gained))
        self._next_taker(source)

    def _end_trade(self, last: int) -> None:
        returned = {}
        for s in range(self.players):  # R5.8
            if _holds(self.faceup[s]):
                returned[s] = from_counts(self.faceup[s])
                for v in VALUES:
                    self.hands[s][v] += self.faceup[s][v]
                self.faceup[s] = [0] * 11
        self._log("trade_end", _TRADE_END, (last, returned))
        if last != self.tm and _holds(self.hands[self.tm]):  # R5.9
            self.gift_to = last
            self.phase = GIFT
            self.active = self.tm
            return
        self._start_progression()

    def _do_gift(self, seat: int, d: Gift) -> None:
        self._check_in_hand(seat, (d.card,), "R5.9")
        self.hands[seat][d.card] -= 1
        self.hands[self.gift_to][d.card] += 1
        card = {"card": d.card}
        self._log("gift", _GIFT, (seat, self.gift_to), {seat: card, self.gift_to: card})
        self.gift_to = -1
        self._start_progression()

    # -- R6 progression step ------------------------------------------------------------

    def _start_progression(self) -> None:
        self.phase = FIRST
        self.active = self.tm

    def _do_first(self, seat: int, d: ChooseFirst) -> None:
        if type(d.seat) is not int or not 0 <= d.seat < self.players:
            raise RuleError("R6.1", f"there is no seat {d.seat!r}")
        self.turn_order = [(d.seat + i) % self.players for i in range(self.players)]
        self.turn_index = 0
        self._log("first", _FIRST, (seat, d.seat))
        self._start_turn()

    def _start_turn(self) -> None:
        self.phase = TURN
        self.active = self.turn_order[self.turn_index]
        self.turn_sets = 0
        self.turn_series = False
        self.turn_relics = False
        self.turn_perfect = False
        self.converted = []

    def free_merchants(self, seat: int) -> list[int]:
        """Unused merchants of ``seat`` this round, counted by class: [_, common, unc, rare]."""
        counts = [0, 0, 0, 0]
        for m in self.merchants[seat]:
            if m not in self.merchants_used:
                counts[self.deck[m].merchant_class] += 1
        return counts

    def natural_counts(self, seat: int) -> list[int]:
        """``seat``'s hand without the cards converted this turn (those may not be converted
        again, R6.5)."""
        counts = self.hands[seat][:]
        for _, dst in self.converted:
            counts[dst] -= 1
        return counts

    def _do_convert(self, seat: int, d: Convert) -> None:
        src, dst = d.source, d.value
        if type(dst) is not int or not 1 <= dst <= 9:
            raise RuleError("R6.5", "a merchant makes a value 1-9")
        if type(src) is not int or not 1 <= src <= RELIC:
            raise RuleError("R6.5", f"{src!r} is not a resource")
        if src == dst:
            raise RuleError("R6.5", f"the card is a {dst} already")
        merchant = next((m for m in self.merchants[seat] if m not in self.merchants_used
                         and self.deck[m].merchant_class == CLASS_OF[dst]), None)
        if merchant is None:
            raise RuleError("R6.5", f"no unused merchant of the class of {dst} this round")
        if self.natural_counts(seat)[src] < 1:
            raise RuleError("R6.5", f"you hold no unconverted {src} to convert")
        self.merchants_used.add(merchant)
        self.hands[seat][src] -= 1
        self.hands[seat][dst] += 1
        self.converted.append((src, dst))
        self._log("convert", _CONVERT, (seat, merchant, src, dst))

    def _check_holds(self, seat: int, need: Sequence[int], rule: str) -> None:
        hand = self.hands[seat]
        for v in VALUES:
            if need[v] > hand[v]:
                raise RuleError(rule, "you do not hold those cards")

    def _spend(self, seat: int, need: Sequence[int]) -> Cards:
        """Remove ``need`` from the hand (converted cards first) and discard the real cards;
        return what was discarded."""
        hand = self.hands[seat]
        spent = []
        for v in VALUES:
            k = need[v]
            if not k:
                continue
            hand[v] -= k
            for i in range(len(self.converted) - 1, -1, -1):
                if k and self.converted[i][1] == v:
                    spent.append(self.converted.pop(i)[0])
                    k -= 1
            spent.extend([v] * k)
        spent.sort()
        self.discard.extend(spent)
        return tuple(spent)

    def _do_set(self, seat: int, d: MakeSet) -> None:
        v = d.value
        if type(v) is not int or not 1 <= v <= 9:
            raise RuleError("R6.2", "an identical set declares a value 1-9")
        if not 3 <= len(d.cards) <= 5:
            raise RuleError("R6.2", "an identical set has 3, 4 or 5 cards")
        if any(c != v and c != RELIC for c in d.cards):
            raise RuleError("R6.2", f"every card of a set of {v}s is a {v} or a relic")
        if self.turn_sets and not (self.event == "KA" and self.affected(seat)):
            raise RuleError("R6.2", "one identical set per turn (King's Aid allows more)")
        need = to_counts(d.cards)
        self._check_holds(seat, need, "R6.2")
        size, cls = len(d.cards), CLASS_OF[v]
        if d.target == TARGET_CASH:
            if self.owner.get("vicente") != seat:
                raise RuleError("P04", "only Vicente de la Raya's owner sells a set for cash")
            if size != 3:
                raise RuleError("P04", "Vicente sells a set of exactly 3 cards")
        elif d.target == TARGET_DRAW:
            if self.owner.get("almagro") != seat:
                raise RuleError("R6.3", "only Diego de Almagro's owner draws from the pile")
            if not self.devpile:
                raise RuleError("R6.3", "the development draw pile is empty")
        else:
            if type(d.target) is not int or not 1 <= d.target <= len(self.queue):
                raise RuleError("R6.3", f"the queue has positions 1 to {len(self.queue)}")
            if self.event == "ST" and self.affected(seat):
                if d.target != 1:
                    raise RuleError("R6.3", "Storm: a set reaches queue card 1 only")
            elif d.target > combos.reach(cls, size):
                raise RuleError("R6.3", f"a set of {size} {CLASS_NAMES[cls]} cards reaches "
                                        f"queue card {combos.reach(cls, size)} at most")
        spent = self._spend(seat, need)
        self.turn_sets += 1
        if d.target == TARGET_CASH:
            gain = VICENTE_PAY[cls]
            self.doubloons[seat] += gain
            self._log("set", _SET_CASH, (seat, v, d.cards, spent, "cash", gain))
            return
        if d.target == TARGET_DRAW:
            card = self.devpile.pop()
            self._log("set", _SET_DRAW, (seat, v, d.cards, spent, "draw", card))
        else:
            card = self.queue.pop(d.target - 1)
            refill = None
            if self.devpile:  # R6.4
                refill = self.devpile.pop()
                self.queue.append(refill)
            else:
                self.queue_short = True
            self._log("set", _SET, (seat, v, d.cards, spent, d.target, card, refill))
        self._acquire(seat, card)

    def _do_series(self, seat: int, d: MakeSeries) -> None:
        cards = d.cards
        if not 4 <= len(cards) <= 9:
            raise RuleError("R6.2", "a series has 4 to 9 cards")
        if any(type(c) is not int or not 1 <= c <= 9 for c in cards) \
                or len(set(cards)) != len(cards):
            raise RuleError("R6.2", "a series has distinct values 1-9 and no relic")
        if self.turn_series:
            raise RuleError("R6.2", "one series per turn")
        need = to_counts(cards)
        self._check_holds(seat, need, "R6.2")
        spent = self._spend(seat, need)
        self.turn_series = True
        size = len(cards)
        gain = size if self.event == "IP" and self.affected(seat) else SERIES_PAY[size]
        self.doubloons[seat] += gain
        self._log("series", _SERIES, (seat, tuple(sorted(cards)), spent, gain))

    def _do_relics(self, seat: int, d: MakeRelicSet) -> None:
        if type(d.size) is not int or not 1 <= d.size <= 5:
            raise RuleError("R6.2", "a relic set has 1 to 5 relics")
        if self.turn_relics:
            raise RuleError("R6.2", "one relic set per turn")
        if self.hands[seat][RELIC] < d.size:
            raise RuleError("R6.2", "you do not hold that many relics")
        self.hands[seat][RELIC] -= d.size
        self.discard.extend([RELIC] * d.size)
        self.turn_relics = True
        gain = RELIC_PAY[d.size]
        self.doubloons[seat] += gain
        self._log("relics", _RELICS, (seat, d.size, gain))

    def _do_perfect(self, seat: int, d: MakePerfect) -> None:
        if self.turn_perfect:
            raise RuleError("R6.2", "the perfect combination is shown once")
        need = [0] + [1] * 10
        self._check_holds(seat, need, "R8.1")
        spent = self._spend(seat, need)
        self.turn_perfect = True
        if seat not in self.perfect_shown:
            self.perfect_shown.append(seat)
        self._log("perfect", _PERFECT, (seat, spent))

    def income_of(self, seat: int) -> dict[str, int]:
        """R6.7 and promo incomes: what ``seat`` would receive at the end of its turn now."""
        parts: dict[str, int] = {}
        cards = self.deck.by_id
        printed = sum(cards[c].income for c in self.devs[seat])
        if printed:
            parts["printed"] = printed
        if self.owner.get("buron") == seat:  # P02
            parts["buron"] = sum(1 for c in self.devs[seat] if self.deck[c].is_character)
        if self.owner.get("tradingpost") == seat:  # P05
            parts["tradingpost"] = len(self.merchants[seat]) + sum(
                1 for c in self.devs[seat] if self.deck[c].kind == "warehouse")
        if self.owner.get("estefano") == seat and self.tm == seat:  # P03
            parts["estefano"] = ESTEFANO_GAIN
        if self.shipyards[seat]:  # R6.8
            mine = len(self.caravels[seat])
            richer = sum(1 for s in range(self.players)
                         if s != seat and len(self.caravels[s]) > mine)
            if richer:
                parts["shipyards"] = self.shipyards[seat] * richer
        return parts

    def _do_end_turn(self, seat: int, d: EndTurn) -> None:
        parts = self.income_of(seat)
        gain = sum(parts.values())
        self.doubloons[seat] += gain
        self._log("income", _INCOME, (seat, gain, parts))
        if self.converted:  # R6.5: a converted card counts as its new value for this turn only
            hand = self.hands[seat]
            for src, dst in self.converted:
                hand[dst] -= 1
                hand[src] += 1
            self._log("revert", _SEAT_CARDS, (seat, tuple(self.converted)))
            self.converted = []
        if self.options.rules >= 2:  # R6.9, R6.10: the hand waits for the end of the step
            self._next_turn()
            return
        if self._may_store(seat):  # the first edition: storage at the end of each turn
            self.phase = STORE
            return
        self._discard_hand(seat)
        self._next_turn()

    def _may_store(self, seat: int) -> bool:
        """R6.9: warehouses, cards in hand, and no Fire (unless Juan de la Cosa, R3.4)."""
        return bool(self.capacity[seat]) and _holds(self.hands[seat]) and not (
            self.event == "FI" and self.affected(seat))

    def _next_turn(self) -> None:
        self.turn_index += 1
        if self.turn_index < self.players:
            self._start_turn()
        elif self.options.rules >= 2:
            self._start_storage()
        else:
            self._end_round()

    def _start_storage(self) -> None:
        """R6.9: every player who can store chooses at once and in secret; not in the last
        round (ruling, docs/rules.md R6.9): storage, the discard and the doubloons change
        nothing R8 reads, so when the end of this round ends the game (round_result), it is
        certain now and no stored card would ever come back."""
        if self.round_result() is not None:
            self._discard_all()
            return
        self.store_due = {s: self.capacity[s] for s in range(self.players) if self._may_store(s)}
        self.store_chosen = {}
        if self.store_due:
            self.phase = STORE
            return
        self._discard_all()

    def _do_store(self, seat: int, d: Store) -> None:
        room = self.store_due.get(seat, 0) if self.options.rules >= 2 else self.capacity[seat]
        if len(d.cards) > room:
            raise RuleError("R6.9", f"your warehouses hold {room} card(s)")
        self._check_in_hand(seat, d.cards, "R6.9")
        if self.options.rules < 2:
            self._store(seat, d.cards)
            self._discard_hand(seat)
            self._next_turn()
            return
        # Secret until the last one is in (R6.9), then stored and discarded all at once.
        self.store_chosen[seat] = tuple(sorted(d.cards))
        if len(self.store_chosen) == len(self.store_due):
            for s, cards in sorted(self.store_chosen.items()):
                self._store(s, cards)
            self._discard_all()

    def _store(self, seat: int, cards: Cards) -> None:
        for v in cards:
            self.hands[seat][v] -= 1
            self.stored[seat][v] += 1
        self._log("store", _SEAT_COUNT, (seat, len(cards)),
                  {seat: {"cards": tuple(sorted(cards))}})

    def _discard_hand(self, seat: int) -> None:
        """R6.10: every card left in the hand, face up to the discard pile."""
        left = from_counts(self.hands[seat])
        if left:
            self.discard.extend(left)
            self.hands[seat] = [0] * 11
        self._log("discard", _SEAT_CARDS, (seat, left))

    def _discard_all(self) -> None:
        """R6.10: every hand at once, face up, in seat order; then the round ends (R8)."""
        self.store_due = {}
        self.store_chosen = {}
        for s in range(self.players):
            self._discard_hand(s)
        self._end_round()

    # -- R8 end of the game -------------------------------------------------------------

    def round_result(self) -> Result | None:
        """R8: how the game ends if the round ends now, or None if it goes on."""
        money = self.doubloons
        candidates: Sequence[int] = range(self.players)
        if self.perfect_shown:  # R8.1
            reason = "perfect"
            candidates = self.perfect_shown
        elif max(money) >= WIN_DOUBLOONS:  # R8.2
            reason = "doubloons"
        elif self.queue_short:  # R8.3
            reason = "queue"
        elif self.options.round_limit is not None and self.round >= self.options.round_limit:
            reason = "round_limit"  # R8.5
        else:
            return None
        best = max(money[s] for s in candidates)
        winners = tuple(sorted(s for s in candidates if money[s] == best))  # R8.4
        places = []
        for s in range(self.players):
            if s in winners:
                places.append(1)
            else:
                ahead = sum(1 for t in range(self.players)
                            if t not in winners and money[t] > money[s])
                places.append(len(winners) + ahead + 1)
        return Result(winners, reason, tuple(money), tuple(places), self.round)

    def _end_round(self) -> None:
        result = self.round_result()
        self._log("round_end", _ROUND_END, (self.round, tuple(self.doubloons)))
        if result is None:
            hook = self._on_round_end
            if hook is not None and hook(self):  # halted: phase over, no result
                self.phase = OVER
                self._legal = {}
                return
            self._begin_round()
            return
        self.result = result
        self.phase = OVER
        self._legal = {}
        self._log("game_over", _GAME_OVER, (result.winners, result.reason, result.doubloons,
                                            result.places, result.rounds))

    # -- legal decisions ----------------------------------------------------------------

    def _compute_legal(self, seat: int) -> list[Decision]:
        phase = self.phase
        # The simultaneous steps test "is seat in waiting_seats()" without building the tuple.
        if phase == OFFER:
            if seat not in range(self.players) or seat in self.offers:
                return []
            least, most = self._offer_sizes(seat)
            return combos.offers(tuple(self.hands[seat]), least, most)
        if phase == PIRATES:
            if seat not in self.pirates_due or seat in self.pirates_chosen:
                return []
            return list(map(_pirate_discard,
                            submultisets(self.hands[seat], self.pirates_due[seat])))
        if phase == STORE and self.options.rules >= 2:
            if seat not in self.store_due or seat in self.store_chosen:
                return []
            return combos.stores(tuple(self.hands[seat]), self.store_due[seat])
        if seat != self.active or phase == OVER:
            return []
        return _LEGAL[phase](self, seat)

    def _legal_coronado(self, seat: int) -> list[Decision]:
        return list(_CORONADO_CHOICES)

    def _legal_split(self, seat: int) -> list[Decision]:
        own = self.caravels[seat]
        out: list[Decision] = [_split_fleet(())]
        rest = own[1:]
        for mask in range(1, 1 << len(rest)):
            out.append(_split_fleet(tuple(c for i, c in enumerate(rest) if mask >> i & 1)))
        return out

    def _legal_pick(self, seat: int) -> list[Decision]:
        fleet = self.pick_queue[0][1]
        want = min(len(fleet), len(self.display))
        return combos.picks(to_counts(self.display), want)

    def _legal_sergio(self, seat: int) -> list[Decision]:
        return [BuyMarket(v) for v in (None, *sorted(set(self.market)))]

    def _legal_announce(self, seat: int) -> list[Decision]:
        return list(_ANNOUNCES)

    def _legal_tm_tie(self, seat: int) -> list[Decision]:
        return [_TM_CHOICES[s] for s in self.tie]

    def _legal_take(self, seat: int) -> list[Decision]:
        return combos.takes(self.take_sources(seat), self.faceup, tuple(self.market))

    def _legal_gift(self, seat: int) -> list[Decision]:
        hand = self.hands[seat]
        return [_GIFTS[v] for v in VALUES if hand[v]]

    def _legal_first(self, seat: int) -> list[Decision]:
        return list(_FIRSTS[:self.players])

    def _legal_turn(self, seat: int) -> list[Decision]:
        event = self.event if self.affected(seat) else None
        # Positional, in TurnKey's field order: a named tuple built from keywords costs
        # twice as much, and this runs for every decision of every progression turn.
        key = combos.TurnKey(
            tuple(self.hands[seat]),  # hand
            tuple(self.natural_counts(seat)) if self.converted else None,  # natural
            tuple(self.free_merchants(seat)) if self.merchants[seat] else combos.NO_MERCHANTS,
            not self.turn_sets or event == "KA",  # sets
            not self.turn_series,  # series
            not self.turn_relics,  # relics
            not self.turn_perfect,  # perfect
            min(len(self.queue), 1) if event == "ST" else len(self.queue),  # queue
            self.owner.get("almagro") == seat and bool(self.devpile),  # draw
            self.owner.get("vicente") == seat,  # cash
        )
        return combos.turn_options(key)

    def _legal_store(self, seat: int) -> list[Decision]:
        return combos.stores(tuple(self.hands[seat]), self.capacity[seat])


def _check_options(options: Options) -> None:
    """RuleError if no table has these options."""
    n = options.players
    if not 2 <= n <= 6:
        raise RuleError("R2.1", f"a game has 2 to 6 players, not {n}")
    if options.first_tm is not None and not 0 <= options.first_tm < n:
        raise RuleError("R2.4", f"seat {options.first_tm} is not at this table")
    if options.round_limit is not None and options.round_limit < 1:
        raise RuleError("R8.5", "the round limit must be at least 1")
    if options.rules not in RULES_EDITIONS:
        raise RuleError("R7", f"rules edition {options.rules!r} is not one of "
                              f"{', '.join(map(str, RULES_EDITIONS))}")


def _holds(counts: list[int]) -> bool:
    """Whether a count vector holds any card: any(counts), written as the loop it is, which
    compiled reads the list natively where any() is a builtin called generically."""
    for k in counts:  # noqa: SIM110 - any() is what this avoids
        if k:
            return True
    return False


def _orellana_market(market: Sequence[int]) -> bool:
    """R5.10: three identical resources, or three consecutive values (no relic)."""
    a, b, c = sorted(market) if len(market) == 3 else (0, 0, -1)
    if a == b == c:
        return True
    return c != RELIC and a + 1 == b and b + 1 == c


_Handler = Callable[[Game, int, Any], None]
_HANDLERS: Final[dict[type, tuple[str, _Handler]]] = {
    ChooseEvent: (CORONADO, Game._do_choose_event),
    SplitFleet: (SPLIT, Game._do_split),
    PickCards: (PICK, Game._do_pick),
    BuyMarket: (SERGIO, Game._do_buy),
    PirateDiscard: (PIRATES, Game._do_pirates),
    Announce: (ANNOUNCE, Game._do_announce),
    Offer: (OFFER, Game._do_offer),
    ChooseTradeMaster: (TM_TIE, Game._do_choose_tm),
    Take: (TAKE, Game._do_take),
    Gift: (GIFT, Game._do_gift),
    ChooseFirst: (FIRST, Game._do_first),
    Convert: (TURN, Game._do_convert),
    MakeSet: (TURN, Game._do_set),
    MakeSeries: (TURN, Game._do_series),
    MakeRelicSet: (TURN, Game._do_relics),
    MakePerfect: (TURN, Game._do_perfect),
    EndTurn: (TURN, Game._do_end_turn),
    Store: (STORE, Game._do_store),
}


def decision_phase(decision: Decision) -> str | None:
    """The phase in which a decision of this kind is made (None: not a decision)."""
    handler = _HANDLERS.get(type(decision))
    return None if handler is None else handler[0]


_LEGAL: Final[dict[str, Callable[[Game, int], list[Decision]]]] = {
    CORONADO: Game._legal_coronado,
    SPLIT: Game._legal_split,
    PICK: Game._legal_pick,
    SERGIO: Game._legal_sergio,
    ANNOUNCE: Game._legal_announce,
    TM_TIE: Game._legal_tm_tie,
    TAKE: Game._legal_take,
    GIFT: Game._legal_gift,
    FIRST: Game._legal_first,
    TURN: Game._legal_turn,
    STORE: Game._legal_store,
}
# The few decisions of these kinds there can be, made once: listing them is then a lookup.
_ANNOUNCES: Final = (Announce(2), Announce(3), Announce(4))
_FIRSTS: Final = tuple(ChooseFirst(s) for s in range(6))  # by seat
_GIFTS: Final = (Gift(0), *(Gift(v) for v in VALUES))  # by card (Gift(0) is never listed)
_CORONADO_CHOICES: Final = tuple(ChooseEvent(e) for e in (None, *EVENTS))
_TM_CHOICES: Final = tuple(ChooseTradeMaster(s) for s in range(6))  # by seat
# Pirate discards and fleet splits, made once per distinct content and shared like the
# others: a fresh decision object per question kept the bots' per-object digests
# (bots/base.py) from ever hitting and grew what the garbage collector walks (issue 29).
# Bounded: both are keyed by small tuples of cards, forgotten wholesale when full.
_SHARED_LIMIT: Final = 20_000
_PIRATE_DISCARDS: Final[dict[tuple[int, ...], PirateDiscard]] = {}
_SPLITS: Final[dict[tuple[str, ...], SplitFleet]] = {}


_K = TypeVar("_K")
_D = TypeVar("_D")


def _shared(table: dict[_K, _D], key: _K, make: Callable[[_K], _D]) -> _D:
    """The one decision object for ``key`` (made by ``make`` the first time), from a table
    forgotten wholesale when full."""
    found = table.get(key)
    if found is None:
        if len(table) >= _SHARED_LIMIT:
            table.clear()
        found = table[key] = make(key)
    return found


def _pirate_discard(cards: tuple[int, ...]) -> PirateDiscard:
    return _shared(_PIRATE_DISCARDS, cards, PirateDiscard)


def _split_fleet(caravels: tuple[str, ...]) -> SplitFleet:
    return _shared(_SPLITS, caravels, SplitFleet)
# Decisions other seats may not see when they are made (R5.3, R5.9, R6.9, R4.7). A set: its
# test is a hash lookup, where a tuple compares the decision's type with each in turn.
_SECRET_DECISIONS: Final = frozenset((Offer, Gift, Store, PirateDiscard))
