"""Text notation for positions (one line, the whole game state) and decisions (one token).

The exact grammar is in docs/notation.md. In short, a position is ``mn1`` followed by
space-separated ``key=value`` fields, one per state field of :class:`~mundus_net.engine.game.Game`;
a decision is a token such as ``take:5@2:9`` with an optional seat prefix ``2.``.

Parsing validates everything and raises :class:`NotationError` (a ``ValueError``) naming the
field and the problem: a parsed position is one the engine can continue, and one a game can
reach (:func:`position_problems` lists, by name and rule, why one cannot be reached).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar
from urllib.parse import quote, unquote

from mundus_net.engine.cards import (
    CLASS_OF,
    RELIC,
    RESOURCE_COUNTS,
    RESOURCE_NAMES,
    TOTAL_RESOURCES,
    VALUES,
    Cards,
    from_counts,
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
from mundus_net.engine.deck import EVENTS, Deck, builtin_decks, deck_for_record
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import (
    ANNOUNCE,
    CORONADO,
    CORONADO_COST,
    END_RULES,
    FIELDS,
    FIRST,
    GIFT,
    HAND_DEAL,
    MARKET_SIZE,
    OFFER,
    OVER,
    PHASE_RULES,
    PHASES,
    PICK,
    PIRATES,
    QUEUE_SIZE,
    RELIC_PAY,
    SERGIO,
    SERGIO_COST,
    SERIES_PAY,
    SPLIT,
    STORE,
    TAKE,
    TM_TIE,
    TURN,
    WIN_DOUBLOONS,
    Game,
    GameState,
    Options,
    Result,
)

__all__ = [
    "DECISION_KINDS", "DERIVED_SLOTS", "EMPTY", "EXCLUDED_SLOTS", "FIELDS_OF_EDITION",
    "POSITION_FIELDS", "POSITION_TAG", "POSITION_TAGS", "RESULT_REASONS", "STORE_FIELDS",
    "NotationError", "PositionProblem", "apply_decision", "card_text", "decision_seat",
    "format_decision", "format_position", "legal_texts", "multiset_text", "parse_decision",
    "parse_position", "pile_text", "position_differences", "position_problems", "positions_equal",
]

# The tag names the rules edition (Options.rules): ``mn2`` the current rules, ``mn1`` a position
# written before the correction of R6.9/R6.10 (storage at the end of each turn), still read
# and written as it was, and played by the first edition's rules.
POSITION_TAGS = {1: "mn1", 2: "mn2"}
POSITION_TAG = POSITION_TAGS[2]
# Every field of a position, in the order format_position writes them.
POSITION_FIELDS = (
    "players", "seed", "promo", "first_tm", "round_limit", "deck",
    "round", "tm", "event", "phase", "active",
    "market", "display", "queue",
    "doubloons", "hands", "stored", "devs", "faceup",
    "fleets", "pick_queue", "pirates_due", "pirates_chosen",
    "announced", "offers", "tie", "takes", "gift_to",
    "turn_order", "turn_index", "turn_sets", "turn_series", "turn_relics", "turn_perfect",
    "converted", "merchants_used",
    "store_due", "store_chosen",
    "perfect_shown", "queue_short", "result",
    "reshuffles", "draw", "discard", "devpile",
)
STORE_FIELDS = ("store_due", "store_chosen")  # only in mn2 positions
FIELDS_OF_EDITION = {1: tuple(k for k in POSITION_FIELDS if k not in STORE_FIELDS),
                     2: POSITION_FIELDS}
# Game slots a position does not hold: rebuilt from ``devs`` or not part of a position.
DERIVED_SLOTS = frozenset({"owner", "caravels", "merchants", "capacity", "shipyards"})
EXCLUDED_SLOTS = frozenset({"log", "options", "players", "_legal", "_keep_log",
                            "_on_round_end"})
RESULT_REASONS = ("perfect", "doubloons", "queue", "round_limit")
EMPTY = "-"

_T = TypeVar("_T")
_INT = re.compile(r"-?[0-9]+\Z")
_NAT = re.compile(r"[0-9]+\Z")
_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")


class NotationError(MundusError, ValueError):
    """Malformed position or decision text; the message names the field and the problem.

    For a well-formed position that no game can reach, ``problems`` lists every reason
    (:func:`position_problems`); it is empty otherwise."""

    def __init__(self, message: str, problems: Sequence[PositionProblem] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


@dataclass(frozen=True, slots=True)
class PositionProblem:
    """One reason why no game reaches a position, like a flag of python-chess's
    ``Board.status()``: ``name`` is a stable identifier (``stored_outside_storage``),
    ``field`` the position field at fault and ``rule`` the rule it breaks (``R4.1``)."""

    name: str
    field: str
    rule: str
    text: str

    def __str__(self) -> str:
        return f"position field {self.field!r}: {self.text} ({self.rule})"


# -- small pieces shared by both notations --------------------------------------------------


def card_text(card: int) -> str:
    """``1``-``9`` or ``R``; NotationError for anything that is not a resource."""
    if type(card) is not int or not 1 <= card <= RELIC:
        raise NotationError(f"{card!r} is not a resource (1-9 or relic 10)")
    return "R" if card == RELIC else str(card)


def pile_text(cards: Iterable[int]) -> str:
    """Resources in the given order (not sorted); ``-`` when empty."""
    return "".join(card_text(c) for c in cards) or EMPTY


def multiset_text(cards: Iterable[int]) -> str:
    """Resources sorted, as cards.format_cards writes them; ``-`` when empty."""
    return pile_text(sorted(cards))


def _parse_card(ch: str) -> int:
    if ch in "Rr":
        return RELIC
    if len(ch) == 1 and ch in "123456789":
        return int(ch)
    raise ValueError(f"{ch!r} is not a resource (1-9 or R)")


def _parse_pile(text: str) -> list[int]:
    """Resources in written order; ValueError for a bad character or an empty string."""
    if text == EMPTY:
        return []
    if not text:
        raise ValueError("empty (write - for no cards)")
    return [_parse_card(ch) for ch in text]


def _parse_multiset(text: str) -> Cards:
    return tuple(sorted(_parse_pile(text)))


def _parse_int(text: str, what: str, lo: int | None = None, hi: int | None = None) -> int:
    if not _INT.match(text):
        raise ValueError(f"{what} {text!r} is not a whole number")
    value = int(text)
    if lo is not None and value < lo:
        raise ValueError(f"{what} {value} is below {lo}")
    if hi is not None and value > hi:
        raise ValueError(f"{what} {value} is above {hi}")
    return value


# -- positions: writing ---------------------------------------------------------------------


def _opt_int(value: int | None) -> str:
    return EMPTY if value is None else str(value)


def _bool(value: bool) -> str:
    return "1" if value else "0"


def _ids(ids: Iterable[str], sep: str = ",") -> str:
    return sep.join(ids) or EMPTY


def _seats(seats: Iterable[int]) -> str:
    return ",".join(str(s) for s in seats) or EMPTY


def _fleets_text(fleets: Iterable[tuple[int, tuple[str, ...]]]) -> str:
    return ",".join(f"{s}:{'+'.join(f)}" for s, f in fleets) or EMPTY


def _result_text(result: Result | None) -> str:
    if result is None:
        return EMPTY
    return ":".join((result.reason, _seats(result.winners),
                     "/".join(str(d) for d in result.doubloons),
                     "/".join(str(p) for p in result.places), str(result.rounds)))


def format_position(game: Game) -> str:
    """The whole state of ``game`` as one line (the log is not part of a position)."""
    o = game.options
    deck = f"{quote(game.deck.name, safe='')}@{game.deck.digest}"
    values = {
        "players": str(o.players),
        "seed": str(o.seed),
        "promo": _bool(o.promo),
        "first_tm": _opt_int(o.first_tm),
        "round_limit": _opt_int(o.round_limit),
        "deck": deck,
        "round": str(game.round),
        "tm": str(game.tm),
        "event": game.event or EMPTY,
        "phase": game.phase,
        "active": str(game.active),
        "market": pile_text(game.market),
        "display": pile_text(game.display),
        "queue": _ids(game.queue),
        "doubloons": "/".join(str(d) for d in game.doubloons),
        "hands": "/".join(multiset_text(from_counts(h)) for h in game.hands),
        "stored": "/".join(multiset_text(from_counts(h)) for h in game.stored),
        "devs": "/".join(_ids(d) for d in game.devs),
        "faceup": "/".join(multiset_text(from_counts(h)) for h in game.faceup),
        "fleets": _fleets_text(game.fleets),
        "pick_queue": _fleets_text(game.pick_queue),
        "pirates_due": ",".join(f"{s}:{k}" for s, k in game.pirates_due.items()) or EMPTY,
        "pirates_chosen": ",".join(f"{s}:{multiset_text(c)}"
                                   for s, c in game.pirates_chosen.items()) or EMPTY,
        "announced": str(game.announced),
        "offers": ",".join(f"{s}:{multiset_text(c)}" for s, c in game.offers.items()) or EMPTY,
        "tie": _seats(game.tie),
        "takes": ",".join(f"{x}>{y}" for x, y in game.takes) or EMPTY,
        "gift_to": EMPTY if game.gift_to == -1 else str(game.gift_to),
        "turn_order": _seats(game.turn_order),
        "turn_index": str(game.turn_index),
        "turn_sets": str(game.turn_sets),
        "turn_series": _bool(game.turn_series),
        "turn_relics": _bool(game.turn_relics),
        "turn_perfect": _bool(game.turn_perfect),
        "converted": ",".join(f"{card_text(a)}>{card_text(b)}"
                              for a, b in game.converted) or EMPTY,
        "merchants_used": _ids(sorted(game.merchants_used)),
        "store_due": ",".join(f"{s}:{k}" for s, k in game.store_due.items()) or EMPTY,
        "store_chosen": ",".join(f"{s}:{multiset_text(c)}"
                                 for s, c in game.store_chosen.items()) or EMPTY,
        "perfect_shown": _seats(game.perfect_shown),
        "queue_short": _bool(game.queue_short),
        "result": _result_text(game.result),
        "reshuffles": str(game.reshuffles),
        "draw": pile_text(game.draw),
        "discard": pile_text(game.discard),
        "devpile": _ids(game.devpile),
    }
    edition = game.options.rules
    return " ".join([POSITION_TAGS[edition],
                     *(f"{k}={values[k]}" for k in FIELDS_OF_EDITION[edition])])


# -- positions: reading ---------------------------------------------------------------------


class _Fields:
    """The ``key=value`` fields of one position, with typed readers that raise NotationError
    naming the field."""

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise NotationError(f"a position is text, not {type(text).__name__}")
        tokens = text.split()
        if not tokens:
            raise NotationError("empty position")
        edition = next((e for e, tag in POSITION_TAGS.items() if tag == tokens[0]), None)
        if edition is None:
            raise NotationError(f"a position starts with {POSITION_TAG!r} (or {POSITION_TAGS[1]!r},"
                                f" before the rules correction), not {tokens[0]!r}")
        self.edition = edition
        fields = FIELDS_OF_EDITION[edition]
        self.raw: dict[str, str] = {}
        for token in tokens[1:]:
            key, eq, value = token.partition("=")
            if not eq:
                raise NotationError(f"{token!r} is not a key=value field")
            if key not in fields:
                raise NotationError(f"unknown position field {key!r}"
                                    + (f" in an {tokens[0]} position" if key in POSITION_FIELDS
                                       else ""))
            if key in self.raw:
                raise NotationError(f"position field {key!r} is given twice")
            self.raw[key] = value
        missing = [k for k in fields if k not in self.raw]
        if missing:
            raise NotationError(f"position field(s) missing: {', '.join(missing)}")
        self.players = 0

    def read(self, key: str, parse: Callable[[str], _T]) -> _T:
        try:
            return parse(self.raw[key])
        except ValueError as exc:  # NotationError included
            raise NotationError(f"position field {key!r}: {exc}") from None

    # Value parsers: each raises ValueError with a message (the field is added by read).

    def nat(self, text: str) -> int:
        return _parse_int(text, "value", 0)

    def flag(self, text: str) -> bool:
        if text not in ("0", "1"):
            raise ValueError(f"{text!r} is not 0 or 1")
        return text == "1"

    def seat(self, text: str) -> int:
        try:
            return _parse_int(text, "seat", 0, self.players - 1)
        except ValueError as exc:  # the seats are 0 to players - 1 (R2.1)
            raise ValueError(f"{exc} (R2.1)") from None

    def opt_seat(self, text: str) -> int | None:
        return None if text == EMPTY else self.seat(text)

    def seat_list(self, text: str) -> list[int]:
        if text == EMPTY:
            return []
        seats = [self.seat(t) for t in text.split(",")]
        if len(set(seats)) != len(seats):
            raise ValueError("a seat is listed twice")
        return seats

    def per_seat(self, text: str) -> list[str]:
        parts = text.split("/")
        if len(parts) != self.players:
            raise ValueError(f"{len(parts)} part(s) separated by '/', expected one per seat "
                             f"({self.players})")
        return parts

    def seat_counts(self, text: str) -> list[list[int]]:
        out = []
        for s, part in enumerate(self.per_seat(text)):
            try:
                out.append(to_counts(_parse_pile(part)))
            except ValueError as exc:
                raise ValueError(f"seat {s}: {exc}") from None
        return out

    def ids(self, text: str) -> list[str]:
        if text == EMPTY:
            return []
        ids = text.split(",")
        for i in ids:
            if not _ID.match(i):
                raise ValueError(f"{i!r} is not a development card id")
        return ids

    def seat_map(self, text: str, value: Callable[[str], _T]) -> dict[int, _T]:
        if text == EMPTY:
            return {}
        out: dict[int, _T] = {}
        for item in text.split(","):
            seat_t, colon, value_t = item.partition(":")
            if not colon:
                raise ValueError(f"{item!r} is not SEAT:VALUE")
            seat = self.seat(seat_t)
            if seat in out:
                raise ValueError(f"seat {seat} is listed twice")
            out[seat] = value(value_t)
        return out

    def fleets(self, text: str) -> list[tuple[int, tuple[str, ...]]]:
        if text == EMPTY:
            return []
        out = []
        for item in text.split(","):
            seat_t, colon, ids_t = item.partition(":")
            if not colon:
                raise ValueError(f"{item!r} is not SEAT:CARAVEL+CARAVEL...")
            ids = ids_t.split("+")
            for i in ids:
                if not _ID.match(i):
                    raise ValueError(f"{i!r} is not a caravel id")
            out.append((self.seat(seat_t), tuple(ids)))
        return out

    def pairs(self, text: str, part: Callable[[str], int]) -> list[tuple[int, int]]:
        if text == EMPTY:
            return []
        out = []
        for item in text.split(","):
            a, gt, b = item.partition(">")
            if not gt:
                raise ValueError(f"{item!r} is not A>B")
            out.append((part(a), part(b)))
        return out

    def result(self, text: str) -> Result | None:
        if text == EMPTY:
            return None
        parts = text.split(":")
        if len(parts) != 5:
            raise ValueError("write REASON:WINNERS:DOUBLOONS:PLACES:ROUNDS or -")
        reason, winners_t, money_t, places_t, rounds_t = parts
        if reason not in RESULT_REASONS:
            raise ValueError(f"{reason!r} is not one of {', '.join(RESULT_REASONS)}")
        winners = self.seat_list(winners_t)
        if not winners:
            raise ValueError("a result has at least one winner")
        money = [_parse_int(t, "doubloons", 0) for t in self.per_seat(money_t)]
        places = [_parse_int(t, "place", 1, self.players) for t in self.per_seat(places_t)]
        rounds = _parse_int(rounds_t, "rounds", 1)
        return Result(tuple(winners), reason, tuple(money), tuple(places), rounds)


def _read_deck(f: _Fields, deck: Deck | None) -> Deck:
    name_t, _, digest = f.raw["deck"].partition("@")
    name = unquote(name_t)
    if not name:
        raise NotationError("position field 'deck': the deck name is empty")
    if deck is None:
        deck = builtin_decks().get(name)
        if deck is None:
            raise NotationError(f"position field 'deck': the position uses deck {name!r}; "
                                "pass that deck (--deck FILE)")
        if name == "default" and digest and digest != deck.digest:
            # the default deck of an earlier edition (docs/deck-format.md)
            deck = deck_for_record(digest) or deck
    elif deck.name != name:
        raise NotationError(f"position field 'deck': the position uses deck {name!r}, "
                            f"not {deck.name!r}")
    if digest and digest != deck.digest:
        raise NotationError(f"position field 'deck': deck {name!r} has digest {deck.digest}, "
                            f"not {digest}: it is not the deck the position was made with")
    return deck


def parse_position(text: str, deck: Deck | None = None, *, seeded: bool = False) -> Game:
    """The game written by :func:`format_position`; ``deck`` is needed for a custom deck.

    The parsed game has an empty log. NotationError names the field and the problem, and
    every reason why no game reaches the position (:func:`position_problems`); ``seeded``
    also holds its piles, market, first Trade Master and round 1's hands to the deal of its
    seed (R2.6), which a position arranged by hand, like a chess problem, need not follow.
    """
    f = _Fields(text)
    players = f.read("players", lambda t: _parse_int(t, "players", 2, 6))
    f.players = players
    options = Options(
        players=players,
        seed=f.read("seed", lambda t: _parse_int(t, "seed")),
        promo=f.read("promo", f.flag),
        first_tm=f.read("first_tm", f.opt_seat),
        round_limit=f.read("round_limit",
                           lambda t: None if t == EMPTY else _parse_int(t, "limit", 1)),
        rules=f.edition,
    )
    deck = _read_deck(f, deck)
    # Fields are read in the order of the text, so the first bad one is the one named.
    state = GameState(
        options=options,
        round=f.read("round", lambda t: _parse_int(t, "round", 1)),
        tm=f.read("tm", f.seat),
        event=f.read("event", _event),
        phase=f.read("phase", _phase),
        active=f.read("active", f.seat),
        market=sorted(f.read("market", _parse_pile)),  # kept sorted, as the engine keeps them
        display=sorted(f.read("display", _parse_pile)),
        queue=f.read("queue", f.ids),
        doubloons=f.read("doubloons",
                         lambda t: [_parse_int(x, "doubloons", 0) for x in f.per_seat(t)]),
        hands=f.read("hands", f.seat_counts),
        stored=f.read("stored", f.seat_counts),
        devs=(devs := f.read("devs", lambda t: [f.ids(x) for x in f.per_seat(t)])),
        faceup=f.read("faceup", f.seat_counts),
        fleets=f.read("fleets", f.fleets),
        pick_queue=f.read("pick_queue", f.fleets),
        pirates_due=f.read("pirates_due",
                           lambda t: f.seat_map(t, lambda x: _parse_int(x, "count", 1))),
        pirates_chosen=f.read("pirates_chosen", lambda t: f.seat_map(t, _parse_multiset)),
        announced=f.read("announced", _announced),
        offers=f.read("offers", lambda t: f.seat_map(t, _parse_multiset)),
        tie=tuple(f.read("tie", f.seat_list)),
        takes=f.read("takes", lambda t: f.pairs(t, f.seat)),
        gift_to=f.read("gift_to", f.opt_seat),
        turn_order=f.read("turn_order", f.seat_list),
        turn_index=f.read("turn_index", lambda t: _parse_int(t, "index", 0, players)),
        turn_sets=f.read("turn_sets", f.nat),
        turn_series=f.read("turn_series", f.flag),
        turn_relics=f.read("turn_relics", f.flag),
        turn_perfect=f.read("turn_perfect", f.flag),
        converted=f.read("converted", lambda t: f.pairs(t, _parse_card)),
        merchants_used=set(f.read("merchants_used", f.ids)),
        **(_store_fields(f) if f.edition >= 2 else {}),
        perfect_shown=f.read("perfect_shown", f.seat_list),
        queue_short=f.read("queue_short", f.flag),
        result=f.read("result", f.result),
        reshuffles=f.read("reshuffles", f.nat),
        draw=f.read("draw", _parse_pile),
        discard=f.read("discard", _parse_pile),
        devpile=f.read("devpile", f.ids),
    )
    # The development ids are checked against the deck before the game acquires them.
    _check_developments(Game.from_state(replace(state, devs=()), deck), devs)
    g = Game.from_state(state, deck)
    _check_resources(g)
    _check_state(g)
    problems = position_problems(g, seeded=seeded)
    if problems:
        raise NotationError("; ".join(map(str, problems)), problems)
    return g


def _store_fields(f: _Fields) -> dict[str, Any]:
    """The storage step's fields, which positions of the second edition hold (R6.9)."""
    return {"store_due": f.read("store_due",
                                lambda t: f.seat_map(t, lambda x: _parse_int(x, "count", 1))),
            "store_chosen": f.read("store_chosen", lambda t: f.seat_map(t, _parse_multiset))}


def _event(text: str) -> str | None:
    if text == EMPTY:
        return None
    if text not in EVENTS:
        raise ValueError(f"{text!r} is not - or one of {', '.join(EVENTS)}")
    return text


def _phase(text: str) -> str:
    if text not in PHASES:
        raise ValueError(f"{text!r} is not one of {', '.join(PHASES)}")
    return text


def _announced(text: str) -> int:
    try:
        value = _parse_int(text, "N", 0, 4)
    except ValueError as exc:
        raise ValueError(f"{exc} (R5.1)") from None
    if value == 1:
        raise ValueError("N is 2, 3 or 4, or 0 before the first announcement (R5.1)")
    return value


def _check_developments(g: Game, devs: list[list[str]]) -> None:
    """Queue, development pile and owned cards hold the cards in play, each once (R2.3)."""
    deck = g.deck
    where: dict[str, str] = {}
    places: list[tuple[str, list[str]]] = [("queue", g.queue), ("devpile", g.devpile)]
    places += [("devs", d) for d in devs]
    for name, ids in places:
        for card_id in ids:
            if card_id not in deck.by_id:
                raise NotationError(f"position field {name!r}: {card_id!r} is not a card of "
                                    f"deck {deck.name!r} (R1.5)")
            if card_id in where:
                raise NotationError(f"position field {name!r}: {card_id} is also in "
                                    f"{where[card_id]!r} (R2.3)")
            where[card_id] = name
    in_play = {c.id for c in deck.for_players(g.players, g.options.promo)}
    extra = sorted(set(where) - in_play)
    if extra:
        raise NotationError(f"position field {where[extra[0]]!r}: {', '.join(extra)} not in "
                            f"play with {g.players} players (R2.3)")
    missing = sorted(in_play - set(where))
    if missing:
        raise NotationError(f"position fields 'queue', 'devpile', 'devs': card(s) "
                            f"{', '.join(missing)} missing (R2.3)")
    if len(g.queue) > 5:
        raise NotationError("position field 'queue': the queue holds at most 5 cards (R2.3)")


def _check_resources(g: Game) -> None:
    """Every resource is somewhere exactly once (R1.1): offers and pirate discards are still
    in hand, and a converted card counts as what it was."""
    counts = [0] * 11
    for pile in (g.draw, g.discard, g.market, g.display):
        for c in pile:
            counts[c] += 1
    for vectors in (g.hands, g.stored, g.faceup):
        for vec in vectors:
            for v in VALUES:
                counts[v] += vec[v]
    for src, dst in g.converted:
        counts[dst] -= 1
        counts[src] += 1
    for v in VALUES:
        if counts[v] != RESOURCE_COUNTS[v]:
            raise NotationError(
                f"position fields 'draw', 'discard', 'market', 'display', 'hands', 'stored', "
                f"'faceup': they hold {counts[v]} {RESOURCE_NAMES[v]} ({card_text(v)}), the "
                f"game has {RESOURCE_COUNTS[v]} (R1.1)")


def _bad(name: str, message: str) -> NotationError:
    return NotationError(f"position field {name!r}: {message}")


def _check_state(g: Game) -> None:
    """The cross-field facts the engine relies on, so a parsed game never crashes it."""
    n, phase, active = g.players, g.phase, g.active
    if (g.result is None) != (phase != OVER):
        raise _bad("result", "a result is given exactly when the phase is over (R8)")
    if g.result is not None and any(len(x) != n for x in (g.result.doubloons,
                                                           g.result.places)):
        raise _bad("result", "one doubloons and one place per seat (R8.4)")
    if g.display and phase not in (SPLIT, PICK):  # the next supply would drop them
        raise _bad("display", "cards are on display only in the split and pick phases (R4.3)")
    caravel_of = {c: s for s in range(n) for c in g.caravels[s]}
    used: set[str] = set()
    for seat, fleet in g.fleets:
        for c in fleet:
            if caravel_of.get(c) != seat:
                raise _bad("fleets", f"{c} is not a caravel of seat {seat} (R4.4)")
            if c in used:
                raise _bad("fleets", f"{c} is in two fleets (R4.4)")
            used.add(c)
    for item in g.pick_queue:
        if item not in g.fleets:
            raise _bad("pick_queue",
                       f"{item[0]}:{'+'.join(item[1])} is not one of the fleets (R4.6)")
    for card_id in g.merchants_used:
        if not any(card_id in m for m in g.merchants):
            raise _bad("merchants_used", f"{card_id} is not an owned merchant (R6.5)")
    for s, cards in g.offers.items():
        if not _within(cards, g.hands[s]):
            raise _bad("offers", f"seat {s} offers cards that are not in its hand (R5.2)")
    if g.offers and phase != OFFER:
        raise _bad("offers", "offers are only pending in the offer phase (R5.3)")
    if g.converted and phase != TURN:
        raise _bad("converted", "cards are converted only during a progression turn (R6.5)")
    if g.converted:
        natural = g.natural_counts(active)
        if min(natural) < 0:
            raise _bad("converted", f"seat {active}'s hand lacks the converted cards (R6.5)")
        for src, dst in g.converted:
            if not 1 <= dst <= 9 or src == dst:
                raise _bad("converted", f"{card_text(src)}>{card_text(dst)} is not a "
                                        "conversion (R6.5)")
    for s, k in g.pirates_due.items():
        chosen = g.pirates_chosen.get(s)
        if chosen is not None and len(chosen) != k:
            raise _bad("pirates_chosen", f"seat {s} discards {k} card(s) (R4.7)")
    if not set(g.pirates_chosen) <= set(g.pirates_due):
        raise _bad("pirates_chosen", "a seat without pirate discards due has chosen some (R4.7)")
    if (g.store_due or g.store_chosen) and phase != STORE:
        raise _bad("store_due", "storage is only pending in the store phase (R6.9)")
    if not set(g.store_chosen) <= set(g.store_due):
        raise _bad("store_chosen", "a seat that is not asked to store has chosen (R6.9)")
    if g.turn_order and sorted(g.turn_order) != list(range(n)):
        raise _bad("turn_order", "it lists every seat once, or is - (R6.1)")
    _PHASE_CHECKS.get(phase, _no_check)(g)
    _check_event(g)


# Until the first progression turn queue card 1 is the one the event step saw (a turn may
# take it, R6.4): in these phases the event must be the one it made.
_BEFORE_TURNS = frozenset(PHASES[:PHASES.index(TURN)])


def _check_event(g: Game) -> None:
    """The event step (R3) as the position says it went."""
    if g.round == 1:
        if g.event is not None:
            raise _bad("event", "round 1 has no event, whatever queue card 1 shows (R3.1)")
        if g.phase == CORONADO:
            raise _bad("phase", "Coronado imposes an event from round 2 only (R3.3)")
        return
    if g.phase not in _BEFORE_TURNS or not g.queue:
        return
    icon = g.deck[g.queue[0]].icon
    if g.phase == CORONADO:
        if icon is not None:
            raise _bad("phase", f"queue card 1 ({g.queue[0]}) shows {icon}: that is the "
                                "event, and Coronado may impose one only when it shows none "
                                "(R3.2, R3.3)")
        if g.event is not None:
            raise _bad("event", "in phase coronado the event is not chosen yet (R3.3)")
        return
    if icon is not None and g.event != icon:
        raise _bad("event", f"queue card 1 ({g.queue[0]}) shows {icon}: the event of the "
                            f"round is {icon}, not {g.event or '-'} (R3.2)")
    if icon is None and g.event is not None and "coronado" not in g.owner:
        raise _bad("event", f"queue card 1 ({g.queue[0]}) shows no event and nobody owns "
                            f"Coronado to impose {g.event} (R3.2, R3.3)")


def _within(cards: Sequence[int], counts: Sequence[int]) -> bool:
    need = to_counts(cards)
    return all(need[v] <= counts[v] for v in VALUES)


def _no_check(g: Game) -> None:
    return None


def _check_owner(g: Game, power: str, cost: int = 0) -> None:
    rule = PHASE_RULES[g.phase]
    if g.owner.get(power) != g.active:
        raise _bad("active", f"phase {g.phase} asks the owner of {power}, seat "
                             f"{g.owner.get(power)} ({rule})")
    if g.doubloons[g.active] < cost:  # the engine asks only an owner who can pay (R1.4)
        raise _bad("doubloons", f"phase {g.phase} needs {cost} doubloons for seat {g.active} "
                                f"({rule}, R1.4)")


def _check_pick(g: Game) -> None:
    if not g.pick_queue or not g.display:
        raise _bad("pick_queue", "phase pick needs a fleet to pick and cards on display (R4.6)")
    if g.pick_queue[0][0] != g.active:
        raise _bad("active", f"the first fleet of pick_queue is seat {g.pick_queue[0][0]}'s "
                             "(R4.6)")


def _check_pirates(g: Game) -> None:
    waiting = [s for s in g.pirates_due if s not in g.pirates_chosen]
    if not waiting:
        raise _bad("pirates_due", "phase pirates needs a seat still to discard (R4.7)")
    for s in waiting:
        if sum(g.hands[s]) < g.pirates_due[s]:
            raise _bad("pirates_due", f"seat {s} holds fewer cards than it must discard (R4.7)")
    for s, cards in g.pirates_chosen.items():
        if not _within(cards, g.hands[s]):
            raise _bad("pirates_chosen", f"seat {s} discards cards that are not in its hand (R4.7)")


def _check_offer(g: Game) -> None:
    if g.announced < 2:
        raise _bad("announced", "phase offer needs N 2, 3 or 4 (R5.1)")
    if len(g.offers) == g.players:
        raise _bad("offers", "phase offer needs a seat still to offer (R5.2)")


def _check_tie(g: Game) -> None:
    if len(g.tie) < 2:
        raise _bad("tie", "phase tm_tie needs two or more tied seats (R5.4)")


def _check_take(g: Game) -> None:
    if not any(any(g.faceup[s]) for s in range(g.players) if s != g.active):
        raise _bad("faceup", f"phase take needs a card of another seat than {g.active} (R5.8)")


def _check_gift(g: Game) -> None:
    if g.gift_to == -1:
        raise _bad("gift_to", "phase gift needs the seat to give to (R5.9)")
    if not any(g.hands[g.active]):
        raise _bad("hands", f"phase gift needs a card in seat {g.active}'s hand (R5.9)")


def _check_store(g: Game) -> None:
    if g.options.rules < 2:
        _check_turn(g)
        return
    if g.turn_index != g.players:  # R6.9: after the last progression turn
        raise _bad("turn_index", f"phase store comes after every turn (index {g.players}) (R6.9)")
    waiting = [s for s in g.store_due if s not in g.store_chosen]
    if not waiting:
        raise _bad("store_due", "phase store needs a seat still to choose (R6.9)")
    for s, k in g.store_due.items():
        if k != g.capacity[s]:
            raise _bad("store_due", f"seat {s}'s warehouses hold {g.capacity[s]} card(s) (R6.9)")
        if not any(g.hands[s]):
            raise _bad("store_due", f"seat {s} has no card to store (R6.9)")
        if g.event == "FI" and g.affected(s):
            raise _bad("store_due", f"seat {s} may not store this round (Fire, R6.9)")
    left_out = [s for s in range(g.players) if s not in g.store_due and g._may_store(s)]
    if left_out:  # R6.9: every player who may store is asked
        raise _bad("store_due",
                   f"seat {left_out[0]} has warehouses and cards: it is asked too (R6.9)")
    for s, cards in g.store_chosen.items():
        if len(cards) > g.store_due[s] or not _within(cards, g.hands[s]):
            raise _bad("store_chosen", f"seat {s} stores cards that are not in its hand (R6.9)")


def _check_turn(g: Game) -> None:
    if not g.turn_order or g.turn_index >= g.players:
        raise _bad("turn_index", f"phase {g.phase} needs a turn order and an index below "
                                 f"{g.players} (R6.1)")
    if g.turn_order[g.turn_index] != g.active:
        raise _bad("active", f"it is seat {g.turn_order[g.turn_index]}'s turn (R6.1)")
    if g.phase == STORE and not g.capacity[g.active]:
        raise _bad("phase", f"seat {g.active} has no warehouse (R6.9)")


_PHASE_CHECKS: dict[str, Callable[[Game], None]] = {
    CORONADO: lambda g: _check_owner(g, "coronado", CORONADO_COST),
    SPLIT: lambda g: _check_owner(g, "ponce"),
    SERGIO: lambda g: _check_owner(g, "sergio", SERGIO_COST),
    PICK: _check_pick,
    PIRATES: _check_pirates,
    OFFER: _check_offer,
    TM_TIE: _check_tie,
    TAKE: _check_take,
    GIFT: _check_gift,
    TURN: _check_turn,
    STORE: _check_store,
}


# -- positions no game reaches ---------------------------------------------------------------
#
# The checks above make a position the engine can run; these make it one a game can reach.
# Each names the rule a reachable game keeps (docs/notation.md lists them, and docs/rules.md
# rules on the points that rest on counting rather than on a rule's words).

_Add = Callable[[str, str, str, str], None]
_TRADE_FACEUP = frozenset((TM_TIE, TAKE))  # offers are face up from the reveal (R5.3, R5.8)
_AFTER_PIRATES = frozenset(PHASES[PHASES.index(ANNOUNCE):])  # same round as the pirates
_BEFORE_TAKES = frozenset(PHASES[:PHASES.index(TAKE)])  # no doubloons gained yet (R5.10)


def _owner_of(g: Game, card_id: str) -> int | None:
    return next((s for s in range(g.players) if card_id in g.devs[s]), None)


def _unplayed(g: Game) -> list[int]:
    """The seats whose progression turn of this round has not begun."""
    if g.phase in _BEFORE_TURNS:
        return list(range(g.players))
    if g.phase == TURN or (g.phase == STORE and g.options.rules < 2):
        return g.turn_order[g.turn_index + 1:]
    return []


def _turn_seat(g: Game) -> int | None:
    """The seat whose progression turn of this round the turn_* fields describe (the current
    one, else the last one), or None before the turns."""
    if g.phase == TURN or (g.phase == STORE and g.options.rules < 2):
        return g.active
    if g.phase in (STORE, OVER) and g.turn_order:
        return g.turn_order[-1]
    return None


def _stored_now(g: Game) -> list[int]:
    """The seats that may have cards in warehouses now: from the storage step to the next
    supply step (R6.9, R4.1); in the first edition, also those whose turn is over."""
    if g.phase == CORONADO or (g.phase == OVER and g.options.rules < 2):
        return list(range(g.players))
    if g.options.rules < 2 and g.phase in (TURN, STORE):
        return g.turn_order[:g.turn_index]
    return []


def _check_asked_seat(g: Game, add: _Add) -> None:
    """R5.1, R5.4, R5.6, R5.9, R6.1: the seat the rules ask is the one deciding."""
    phase, tm = g.phase, g.tm
    last = g.takes[-1][1] if g.takes else tm  # the next taker (R5.6)
    asked = {ANNOUNCE: (tm, "R5.1", "the Trade Master announces"),
             TM_TIE: (tm, "R5.4", "the Trade Master chooses among the tied seats"),
             TAKE: (last, "R5.6", f"seat {last}, whose card was just taken, takes next"
                    if g.takes else "the new Trade Master takes first"),
             GIFT: (tm, "R5.9", "the Trade Master gives"),
             FIRST: (tm, "R6.1", "the Trade Master chooses who plays first")}.get(phase)
    if asked is not None and g.active != asked[0]:
        seat, rule, why = asked
        add("wrong_seat_asked", "active", rule,
            f"phase {phase} asks seat {seat} ({why}), not seat {g.active}")
    if phase == GIFT and g.gift_to == tm:
        add("gift_to_wrong_seat", "gift_to", "R5.9",
            "the Trade Master gives to the last next taker only when that is another seat")
    elif phase == GIFT and g.gift_to != last:
        add("gift_to_wrong_seat", "gift_to", "R5.9",
            f"the trade ended with seat {last} to take next: the gift goes to seat {last}")
    for i, (taker, source) in enumerate(g.takes):
        expected = tm if i == 0 else g.takes[i - 1][1]
        if taker == source:
            add("take_out_of_turn", "takes", "R5.5",
                f"take {i + 1} ({taker}>{source}): a seat takes from another seat")
            break
        if taker != expected:
            who = "the new Trade Master" if i == 0 else "the seat whose card was just taken"
            add("take_out_of_turn", "takes", "R5.6",
                f"take {i + 1} ({taker}>{source}) is made by {who}, seat {expected}")
            break


def _check_trade(g: Game, add: _Add) -> None:
    """R5.1-R5.9: what the trade step leaves on the table."""
    phase = g.phase
    if phase not in _TRADE_FACEUP:
        for s in range(g.players):
            if any(g.faceup[s]):
                add("faceup_outside_trade", "faceup", "R5.8",
                    f"seat {s} has cards face up in phase {phase}: offers are face up from "
                    "the reveal to the end of the trade, then go back to their owners' hands")
                break
    if phase == TM_TIE:
        scores = [g.offer_score(s, from_counts(g.faceup[s])) for s in range(g.players)]
        best = max(scores)
        tied = tuple(s for s in range(g.players) if scores[s] == best)
        if g.tie != tied or g.tm in tied:
            add("tie_not_the_best_offers", "tie", "R5.4",
                f"the offers on the table score {'/'.join(map(str, scores))}: the Trade Master "
                f"chooses only when seats {_seats(tied)} tie for the best and he is not one "
                "of them")
    elif g.tie:
        add("tie_outside_tm_tie", "tie", "R5.4", "tied seats wait only in phase tm_tie")
    if g.gift_to != -1 and phase != GIFT:
        add("gift_outside_gift", "gift_to", "R5.9", "a gift is due only in phase gift")
    for s, cards in g.offers.items():
        least, most = g._offer_sizes(s)
        if not least <= len(cards) <= most:
            size = str(most) if least == most else f"{least} to {most}"
            add("offer_size", "offers", "R5.2",
                f"seat {s} offers {len(cards)} card(s), not {size}")
    opening = g.round == 1 and phase == ANNOUNCE
    if opening != (g.announced == 0):
        add("announced", "announced", "R5.1",
            "0 (nothing announced yet) only in round 1's announce phase; otherwise the last "
            "N announced, 2, 3 or 4")


def _check_market(g: Game, add: _Add) -> None:
    # Only Sergio's refill (P01) can find both piles empty, and only with a custom deck.
    if len(g.market) > MARKET_SIZE or (len(g.market) < MARKET_SIZE and (
            _deals_in_full(g) or not any(c.power == "sergio" for c in g.deck.for_players(
                g.players, g.options.promo)))):
        add("market_size", "market", "R2.2, R5.5",
            f"the market holds {len(g.market)} card(s): it holds 3 from the setup on (a swap "
            "keeps it at 3, and the draw pile always refills it)")


def _check_stored(g: Game, add: _Add) -> None:
    """R6.9, R4.1: stored cards fit the warehouses, and exist only between storage and the
    next supply step."""
    may = _stored_now(g)
    for s in range(g.players):
        k = sum(g.stored[s])
        if not k:
            continue
        cap = g.capacity[s]
        if k > cap:
            add("stored_over_capacity", "stored", "R6.9",
                f"seat {s} has {k} card(s) stored and "
                + (f"its warehouses hold {cap}" if cap else "owns no warehouse"))
        if g.phase == OVER and s not in may:
            add("stored_after_the_last_round", "stored", "R6.9",
                f"seat {s} has cards stored in a game that is over: the last round stores "
                "nothing, no round follows for them to come back in")
        elif s not in may:
            add("stored_outside_storage", "stored", "R4.1",
                f"seat {s} has cards stored in phase {g.phase} of round {g.round}: stored "
                "cards go back to the hand at the supply step and are stored again only "
                "once every progression turn is over")
        elif g.event == "FI" and g.affected(s):
            add("stored_under_fire", "stored", "R6.9",
                f"seat {s} has cards stored in a round of Fire")


def _check_round(g: Game, add: _Add) -> None:
    """R2.5, R8.2, R8.5, R8.1: what the start of a round, and of the game, leave."""
    unplayed = _unplayed(g)
    limit = g.options.round_limit
    if limit is not None and g.round > limit:
        add("round_past_limit", "round", "R8.5",
            f"round {g.round} is past the round limit, {limit}: round {limit} ended the game")
    if g.round == 1:
        if g.fleets:
            add("fleets_in_round_1", "fleets", "R2.5",
                "round 1 begins with no developments, so no fleet sails in it")
        for s in unplayed:
            if g.doubloons[s]:
                add("doubloons_before_income", "doubloons", "R2.5",
                    f"seat {s} holds {g.doubloons[s]} doubloons in round 1 before its first "
                    "progression turn: everyone starts with 0, and income comes at the end "
                    "of a turn")
            if g.devs[s]:
                add("developments_before_turn", "devs", "R2.5",
                    f"seat {s} owns developments in round 1 before its first progression "
                    "turn: everyone starts with none")
    first_tm = g.options.first_tm
    if (g.round == 1 and g.phase in (ANNOUNCE, OFFER, TM_TIE) and first_tm is not None
            and g.tm != first_tm):
        add("tm_not_first_tm", "tm", "R2.4",
            f"the first Trade Master is seat {first_tm} (first_tm), and the token moves only "
            "at the reveal of the offers")
    orellana = g.owner.get("orellana")
    for s in unplayed:
        if g.doubloons[s] >= WIN_DOUBLOONS and not (s == orellana and g.phase not in _BEFORE_TAKES):
            add("rich_at_round_start", "doubloons", "R8.2",
                f"seat {s} holds {g.doubloons[s]} doubloons before its progression turn: "
                f"a round in which a seat reaches {WIN_DOUBLOONS} ends the game, so none "
                "begins with one")
            break
    shown = [s for s in g.perfect_shown if s in unplayed]
    if shown:
        add("perfect_before_turn", "perfect_shown", "R8.1",
            f"seat {shown[0]} has not played its progression turn of round {g.round}: the "
            "perfect combination is shown in a turn, and ends the game at the end of its round")
    seat = _turn_seat(g)
    if seat is None and g.turn_perfect and g.round >= 2:
        add("turn_perfect", "turn_perfect", "R8.1",
            "the last turn of the last round showed the perfect combination: that round "
            "ended the game")
    if seat is not None and (seat in g.perfect_shown) != g.turn_perfect:
        add("turn_perfect", "turn_perfect", "R8.1",
            f"turn_perfect says whether seat {seat} showed the perfect combination in its "
            "turn of this round, as perfect_shown does")


def _check_turns(g: Game, add: _Add) -> None:
    """R6.1-R6.5: the progression step."""
    n, order = g.players, g.turn_order
    if order and any(order[i] != (order[0] + i) % n for i in range(n)):
        add("turn_order_not_seat_order", "turn_order", "R6.1",
            f"the others follow seat {order[0]} in seat order: "
            f"{_seats((order[0] + i) % n for i in range(n))}")
    seat = _turn_seat(g)
    # King's Aid helps a seat that owns Juan de la Cosa only if its last set took him (R3.4).
    if g.turn_sets > 1 and (g.round == 1 or seat is not None) and not (
            seat is not None and g.event == "KA"):  # round 1: no event
        whose = "a turn of round 1" if seat is None else f"seat {seat}'s turn"
        add("sets_without_kings_aid", "turn_sets", "R6.2",
            f"{g.turn_sets} identical sets in {whose}: one per turn, any number only with "
            "King's Aid")
    elif (g.turn_sets > 1 and seat is not None and g.owner.get("cosa") == seat
          and g.deck[g.devs[seat][-1]].power != "cosa"):
        add("sets_by_juan_de_la_cosa", "turn_sets", "R3.4",
            f"{g.turn_sets} identical sets in seat {seat}'s turn, which owned Juan de la Cosa "
            "before its last set: King's Aid does not help his owner, so only a last set "
            "that takes him can follow another")
    if ((g.phase in _BEFORE_TURNS and g.round >= 2) or g.phase == OVER) and (
            g.turn_index != n or not order):
        add("turn_index_between_rounds", "turn_index", "R6.1",
            f"every player has had his turn of the last round: turn_index is {n}, after "
            "that round's turn_order")
    if g.round == 1 and g.phase in _BEFORE_TURNS:
        played = [k for k in ("turn_order", "turn_index", "turn_sets", "turn_series",
                              "turn_relics", "turn_perfect") if getattr(g, k)]
        if played:
            add("turn_before_turns", played[0], "R6.1",
                "round 1 is still before its first progression turn: write "
                + ("-" if played[0] == "turn_order" else "0"))
    unplayed = set(_unplayed(g))
    used = sorted(m for m in g.merchants_used if _owner_of(g, m) in unplayed)
    if used:
        add("merchant_used_before_turn", "merchants_used", "R6.5",
            f"{used[0]} belongs to seat {_owner_of(g, used[0])}, whose turn of this round has "
            "not begun: a merchant works in its owner's turn, once a round")
    if g.converted:
        spare = [0, 0, 0, 0]
        for m in g.merchants[g.active]:
            if m in g.merchants_used:
                spare[g.deck[m].merchant_class] += 1
        for _, dst in g.converted:
            spare[CLASS_OF[dst]] -= 1
        if min(spare) < 0:
            add("conversion_without_merchant", "converted", "R6.5",
                f"seat {g.active} has used fewer merchants of that class this round")


def _check_queue(g: Game, add: _Add) -> None:
    """R6.4, R8.3: the queue is refilled while the development pile lasts."""
    short = len(g.queue) < QUEUE_SIZE
    if g.queue_short:
        if g.devpile:
            add("queue_short_with_pile", "queue_short", "R6.4",
                f"the development pile still holds {len(g.devpile)} card(s) to refill the "
                "queue")
        elif not short:
            add("queue_short_with_full_queue", "queue_short", "R6.4",
                f"the queue holds {QUEUE_SIZE} cards")
        if g.phase in _BEFORE_TURNS:
            add("queue_short_at_round_start", "queue_short", "R8.3",
                "the queue ran short in a progression turn, and that ends the game at the end "
                "of its round")
    elif short:
        in_play = len(g.deck.for_players(g.players, g.options.promo))
        if g.devpile:
            add("queue_not_refilled", "queue", "R6.4",
                f"the queue holds {len(g.queue)} cards while the development pile holds "
                f"{len(g.devpile)}: a taken card is replaced at once")
        elif in_play >= QUEUE_SIZE:
            add("queue_short_not_marked", "queue_short", "R6.4",
                f"the queue holds {len(g.queue)} cards and the pile is empty: the queue ran "
                "short this round (write 1)")


def _check_supply(g: Game, add: _Add) -> None:
    """R4.3-R4.7: fleets, display and pirates."""
    phase = g.phase
    if g.pick_queue and phase != PICK:
        add("pick_queue_outside_picks", "pick_queue", "R4.6",
            "fleets wait to pick only in phase pick")
    if phase in (SPLIT, PICK, SERGIO, PIRATES, ANNOUNCE, OFFER, TM_TIE, TAKE, GIFT, FIRST):
        ponce = g.owner.get("ponce")
        for s in range(g.players):
            mine = [f for seat, f in g.fleets if seat == s]
            most = 2 if s == ponce and phase != SPLIT else 1
            if sorted(c for f in mine for c in f) != sorted(g.caravels[s]) or len(mine) > most:
                add("fleets_not_the_caravels", "fleets", "R4.4",
                    f"seat {s}'s caravels sail as one fleet (two for Ponce de León's owner, "
                    "once he has split them)")
                break
    elif g.round >= 2:  # R6.6: a caravel taken in a turn sails from the next supply step
        # Seats that cannot have taken a caravel since the supply step: those whose turn has
        # not begun, and the seat of the turn the turn_* fields describe if it made no set.
        unplayed = set(_unplayed(g)) if phase != CORONADO else set()  # the last round's
        described = _turn_seat(g)
        if not g.turn_sets and phase != CORONADO and described is not None:
            unplayed.add(described)
        for s in range(g.players):
            mine = [f for seat, f in g.fleets if seat == s]
            sailing = sorted(c for f in mine for c in f)
            if len(mine) > (2 if g.owner.get("ponce") == s else 1) or (
                    s in unplayed and sailing != sorted(g.caravels[s])):
                add("fleets_not_the_caravels", "fleets", "R6.6",
                    f"seat {s}'s fleets are the caravels it owned at this round's supply step "
                    "(one fleet, two for Ponce de León's owner), and it has taken none since"
                    if s in unplayed else f"seat {s} sails one fleet (two with Ponce de León)")
                break
    total = sum(len(c) for c in g.caravels)
    if phase == SPLIT:
        ponce_seat = g.owner.get("ponce")
        if ponce_seat is not None and len(g.caravels[ponce_seat]) < 2:
            add("split_without_two_caravels", "phase", "R4.4",
                f"seat {ponce_seat} owns fewer than 2 caravels to split")
        if len(g.display) != total and (len(g.display) > total or _deals_in_full(g)):
            add("display_size", "display", "R4.3",
                f"{len(g.display)} card(s) on display for {total} caravel(s)")
    if phase == PICK:
        waiting = sum(len(f) for _, f in g.pick_queue)
        if len(g.display) != waiting and (len(g.display) > waiting or _deals_in_full(g)):
            add("display_size", "display", "R4.3",
                f"{len(g.display)} card(s) on display for the {waiting} caravel(s) still to "
                "pick (one card per caravel in play)")
        ranked = g.ranked_fleets()
        if g.pick_queue != ranked[len(ranked) - len(g.pick_queue):]:
            add("pick_order", "pick_queue", "R4.6",
                "the fleets pick in the order " + _fleets_text(ranked))
    if phase == PIRATES:
        owed = g.pirates_owed()
        if g.pirates_due != owed:
            add("pirates_due", "pirates_due", "R4.7",
                "the Pirates strike each seat they affect once per fleet of 2 or more "
                f"caravels: {','.join(f'{s}:{k}' for s, k in owed.items()) or '-'}")
    elif g.pirates_due:
        if set(g.pirates_chosen) != set(g.pirates_due):
            add("pirates_chosen", "pirates_chosen", "R4.7",
                "after the pirates step every seat due has discarded")
        if phase in _AFTER_PIRATES and g.event != "PI":
            add("pirates_without_pirates", "pirates_due", "R4.7",
                f"pirate discards in a round whose event is {g.event or '-'}")


# Phases in which every hand is what the supply step dealt, moved only by the trade (R5);
# and those in which ``takes`` are this round's (before the reveal they are the last round's).
_HANDS_FROM_SUPPLY = frozenset((ANNOUNCE, OFFER, TM_TIE, TAKE, GIFT, FIRST, TURN))
_TAKES_OF_THIS_ROUND = frozenset((TAKE, GIFT, FIRST, TURN, STORE))


def _deals_in_full(g: Game) -> bool:
    """docs/rules.md R4.2, by counting the deck in play: a supply step always deals 5 cards
    to each seat, one per caravel to the display and Sergio's refill (P01), when the cards
    that can be outside the draw and discard piles at its start (the market and every
    warehouse full) leave enough. True for the shipped decks; a custom deck with more or
    bigger warehouses, or more caravels, may run both piles dry."""
    key = (g.deck.name, g.deck.digest, g.players, g.options.promo)
    full = _DEALS_IN_FULL.get(key)
    if full is None:
        in_play = g.deck.for_players(g.players, g.options.promo)
        room = sum(c.capacity for c in in_play)
        drawn = (HAND_DEAL * g.players + sum(c.kind == "caravel" for c in in_play)
                 + any(c.power == "sergio" for c in in_play))
        full = MARKET_SIZE + room + drawn <= TOTAL_RESOURCES
        if len(_DEALS_IN_FULL) > 256:  # memory bounded
            _DEALS_IN_FULL.clear()
        _DEALS_IN_FULL[key] = full
    return full


_DEALS_IN_FULL: dict[tuple[str, str, int, bool], bool] = {}


def _hand_after_supply(g: Game, seat: int) -> tuple[int, int]:
    """R4.1-R4.7, P01: the fewest and most cards ``seat`` can hold after this round's supply
    step: 5 dealt (the draw pile never runs dry, docs/rules.md R4.2, unless a custom deck
    can make it), one picked per caravel, less the pirates' due; plus up to its warehouses'
    capacity returned and Sergio's buy."""
    least = HAND_DEAL + len(g.caravels[seat]) - g.pirates_due.get(seat, 0)
    most = least + g.capacity[seat] + (g.owner.get("sergio") == seat)
    return (least if _deals_in_full(g) else 0), most


def _hand_after_trade(g: Game, seat: int) -> tuple[int, int]:
    """The fewest and most cards ``seat`` held when the trade (R5.5-R5.9) ended, or holds now
    before then, face-up cards counted: the supply's bounds moved by each take and the gift."""
    least, most = _hand_after_supply(g, seat)
    if g.phase in _TAKES_OF_THIS_ROUND:  # each take moves one card from source to taker
        moved = sum(x == seat for x, _ in g.takes) - sum(y == seat for _, y in g.takes)
        least, most = least + moved, most + moved
    gift = g.phase in (FIRST, TURN, STORE) and g.takes and g.takes[-1][1] != g.tm
    if gift and seat == g.tm:  # R5.9: the TM gave one card, if he had one
        least -= 1
    elif gift and seat == g.takes[-1][1]:
        most += 1
    return max(least, 0), most


def _check_hands(g: Game, add: _Add) -> None:
    """R4.2, R5.5-R5.9, R6.10: the deal gives 5 cards, the trade moves them one take at a time,
    and the end of a round discards every hand."""
    phase = g.phase
    if phase in _HANDS_FROM_SUPPLY:
        for s in range(g.players) if phase != TURN else _unplayed(g):
            least, most = _hand_after_trade(g, s)
            held = sum(g.hands[s]) + sum(g.faceup[s])
            if not least <= held <= most:
                traded = phase in _TAKES_OF_THIS_ROUND
                add("hand_size", "hands", "R4.2",
                    f"seat {s} holds {held} card(s)"
                    + (" (those face up counted)" if any(g.faceup[s]) else "")
                    + f" in phase {phase}: the deal (5 "
                    "cards), the caravels, the warehouses, the pirates and the trade leave it "
                    + (str(least) if least == most else f"{least} to {most}")
                    + (" after the takes" if traded else ""))
                break
    if g.round == 1 and g.reshuffles:
        add("reshuffle_in_round_1", "reshuffles", "R4.2",
            "round 1 deals from a full draw pile: no reshuffle yet")
    if g.round == 1 and phase in _BEFORE_TURNS and g.discard:
        add("discard_before_turns", "discard", "R2.5",
            "nothing is discarded in round 1 before the first progression turn")
    if phase in (CORONADO, OVER):
        holding = [s for s in range(g.players) if any(g.hands[s])]
        if holding:
            add("hand_after_discard", "hands", "R6.10",
                f"seat {holding[0]} holds cards in phase {g.phase}: every hand is discarded at "
                "the end of the round")


def _check_result(g: Game, add: _Add) -> None:
    """R8: the result is the one the rules give at the end of this round."""
    if g.phase != OVER:
        return
    expected = g.round_result()
    if expected != g.result:
        rule = END_RULES[expected.reason] if expected is not None else "R8"
        add("result_not_the_rules", "result", rule,
            "the rules end this game with " + _result_text(expected) if expected is not None
            else "no rule ends the game at the end of this round")


# -- what the seed gives (R2.6) ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _SeedSetup:
    """What R2.6's one seeded generator lays out before round 1, as Game.__init__ does it:
    the resource draw pile after the market was turned, the market, the development cards in
    the order they are drawn (the queue first, then the pile from its top), the first TM."""

    draw: tuple[int, ...]
    market: tuple[int, ...]
    devs_in_order: tuple[str, ...]
    tm: int


_SEED_SETUPS: dict[tuple[int, int, bool, int | None, str, str], _SeedSetup] = {}


def _seed_setup(g: Game) -> _SeedSetup:
    """The setup ``g``'s seed gives (the same draws, in the same order, as Game.__init__:
    the round-trip test of every bot position keeps the two in step)."""
    o = g.options
    key = (o.seed, o.players, o.promo, o.first_tm, g.deck.name, g.deck.digest)
    setup = _SEED_SETUPS.get(key)
    if setup is None:
        rng = random.Random(o.seed)
        draw = [v for v in VALUES for _ in range(RESOURCE_COUNTS[v])]
        rng.shuffle(draw)
        market = tuple(sorted(draw.pop() for _ in range(MARKET_SIZE)))
        cards = [c.id for c in g.deck.for_players(o.players, o.promo)]
        rng.shuffle(cards)
        tm = rng.randrange(o.players) if o.first_tm is None else o.first_tm
        setup = _SeedSetup(tuple(draw), market, tuple(reversed(cards)), tm)
        if len(_SEED_SETUPS) > 256:  # memory bounded: a reader sees few seeds at once
            _SEED_SETUPS.clear()
        _SEED_SETUPS[key] = setup
    return setup


def _check_seed(g: Game, add: _Add) -> None:
    """R2.6: the same seed gives the same piles. The development pile is never reshuffled, so
    it is always the bottom of the one the seed shuffled, and the queue holds its cards in the
    order they were drawn (R6.4); until the first reshuffle (R4.2) the resource draw pile is
    the bottom of the seed's too; round 1's market, first TM and hands are the seed's until
    the offers are taken."""
    setup = _seed_setup(g)
    order = setup.devs_in_order
    undrawn = order[len(order) - len(g.devpile):] if g.devpile else ()
    if tuple(reversed(g.devpile)) != undrawn:
        add("devpile_not_from_seed", "devpile", "R2.6",
            f"seed {g.options.seed} leaves the development pile "
            f"{_ids(reversed(undrawn))} when {len(g.devpile)} card(s) are left in it")
    index = {card_id: i for i, card_id in enumerate(order)}
    drawn = [index.get(card_id, -1) for card_id in g.queue]
    if drawn != sorted(drawn):
        add("queue_not_in_draw_order", "queue", "R6.4",
            f"the queue holds its cards in the order they were drawn (seed "
            f"{g.options.seed}): {_ids(sorted(g.queue, key=lambda c: index.get(c, -1)))}")
    if not g.reshuffles and tuple(g.draw) != setup.draw[:len(g.draw)]:
        add("draw_not_from_seed", "draw", "R2.6",
            f"before the first reshuffle the draw pile is the bottom of the one seed "
            f"{g.options.seed} shuffled: {pile_text(setup.draw[:len(g.draw)])}")
    if g.round != 1 or g.phase not in (ANNOUNCE, OFFER, TM_TIE):
        return
    if tuple(g.market) != setup.market:
        add("market_not_from_seed", "market", "R2.2",
            f"seed {g.options.seed} turns the market {pile_text(setup.market)}, and no take "
            "has changed it yet")
    if g.options.first_tm is None and g.tm != setup.tm:  # first_tm given: _check_round
        add("tm_not_first_tm", "tm", "R2.4",
            f"seed {g.options.seed} draws seat {setup.tm} as the first Trade Master, and the "
            "token moves only at the reveal of the offers")
        return
    n = g.players
    deal = setup.draw[len(setup.draw) - HAND_DEAL * n:]  # drawn from the top, the end
    for i in range(n):  # R4.2: dealt from the TM clockwise
        seat = (setup.tm + i) % n
        dealt = sorted(deal[len(deal) - HAND_DEAL * (i + 1):len(deal) - HAND_DEAL * i])
        held = from_counts([h + f for h, f in zip(g.hands[seat], g.faceup[seat], strict=True)])
        if list(held) != dealt:
            add("hand_not_dealt_from_seed", "hands", "R4.2",
                f"seed {g.options.seed} deals seat {seat} {multiset_text(dealt)} in round 1, "
                "and no take has changed it yet")
            break


# -- the takes of the trade (R5.2, R5.6, R5.7) --------------------------------------------------

# Phases in which ``takes`` are this round's; before them (round 2 on) they are the last round's,
# and ``announced`` is the N of those takes except once the new one is announced.
_TAKES_DONE = frozenset((TAKE, GIFT, FIRST, TURN, STORE, OVER))
_LAST_N_KEPT = frozenset((CORONADO, SPLIT, PICK, SERGIO, PIRATES, ANNOUNCE)) | _TAKES_DONE


def _check_takes(g: Game, add: _Add) -> None:
    """The history of takes: none before round 1's trade, none from a seat more often than it
    offered cards (R5.2), and no ping-pong while another seat still offered cards (R5.7)."""
    takes, n = g.takes, g.players
    if g.round == 1 and g.phase not in _TAKES_DONE and takes:
        add("takes_before_trade", "takes", "R5.6",
            f"round 1 is before its first take (phase {g.phase}): write -")
        return
    if g.phase in _LAST_N_KEPT and g.announced:
        for s in range(n):
            taken = sum(source == s for _, source in takes)
            if taken > g.announced:
                add("takes_past_offer", "takes", "R5.2",
                    f"{taken} card(s) taken from seat {s}, which offered at most "
                    f"{g.announced} (N)")
                break
    if g.phase in (TAKE, TM_TIE):  # what is face up and was taken is each seat's offer
        for s in range(n):
            this_round = takes if g.phase == TAKE else []
            taken = sum(source == s for _, source in this_round)
            offered = sum(g.faceup[s]) + taken
            before = sum(g.hands[s]) + offered - sum(taker == s for taker, _ in this_round)
            most = min(g.announced, before)
            least = 0 if g.owner.get("casas") == s else most
            if not least <= offered <= most:
                size = str(most) if least == most else f"{least} to {most}"
                add("faceup_not_an_offer", "faceup", "R5.2",
                    f"seat {s} offered {offered} card(s) (face up and taken), not {size}")
                break
    if n == 2:  # R5.7 is ignored with 2 players
        return
    for i in range(2, len(takes)):
        (x1, y1), (x2, y2), (taker, source) = takes[i - 2], takes[i - 1], takes[i]
        if not (x1 == taker and x2 == y1 and y2 == taker and source == y1):
            continue
        # Seats still offering cards at take i: those taken from later, and those with cards
        # face up now; if one is neither taker nor source, the ban was not lifted.
        offering = {y for _, y in takes[i + 1:]}
        if g.phase == TAKE:
            offering |= {s for s in range(n) if any(g.faceup[s])}
        others = sorted(offering - {taker, source})
        if others:
            add("ping_pong", "takes", "R5.7",
                f"take {i + 1} ({taker}>{source}) answers seat {source}'s take from seat "
                f"{taker} while seat {others[0]} still offered cards")
            break


def _check_trade_ended(g: Game, add: _Add) -> None:
    """R5.6, R5.8: a trade ends only when the next taker can take no card of another seat, so
    every seat but that last next taker had its whole offer taken: N cards, its hand holding
    at least 5 (docs/rules.md R4.2), or 0 to N for Las Casas's owner (R5.2). So with 3 or
    more players the new Trade Master always takes. Before this round's N is known (offer,
    tm_tie), the last round's N was 2, 3 or 4, the same for every seat."""
    if (g.phase == TAKE or (g.round == 1 and g.phase not in _TAKES_DONE)
            or not _deals_in_full(g)):
        return
    last = g.takes[-1][1] if g.takes else g.tm  # the Trade Master of that trade takes first
    sizes = (g.announced,) if g.phase in _LAST_N_KEPT else (2, 3, 4)
    taken = [sum(source == s for _, source in g.takes) for s in range(g.players)]
    whole = [s for s in range(g.players) if s not in (last, g.owner.get("casas"))]
    if not whole or any(all(taken[s] == n for s in whole) for n in sizes):
        return
    seat = next(s for s in whole if taken[s] != max(taken[t] for t in whole)
                or taken[s] not in sizes)
    n_text = str(sizes[0]) if len(sizes) == 1 else "N (2, 3 or 4, the same for every seat)"
    add("trade_ended_early", "takes", "R5.8",
        f"the trade ended with seat {last} to take next, and {taken[seat]} of seat {seat}'s "
        f"{n_text} offered card(s) taken: it ends only when the next taker can take no card "
        "of another seat, so every other offer is taken whole"
        + (" (the new Trade Master takes first, R5.6)" if not g.takes else ""))


# -- the progression step, from what it leaves (R3.2, R6.2, R6.7, R6.10) -----------------------

_MOST_IN_A_SET = 5  # R6.2: an identical set has 3, 4 or 5 cards
_PERFECT_CARDS = 10  # R8.1: 9 distinct values and 1 relic


def _played(g: Game) -> list[int]:
    """The seats whose progression turn of this round has begun (the current one included)."""
    unplayed = set(_unplayed(g))
    if g.phase not in (TURN, STORE, OVER) or not g.turn_order:
        return []
    return [s for s in g.turn_order if s not in unplayed]


def _taken_this_round(g: Game) -> list[str]:
    """The developments the seats that have played this round may have taken in their turns
    (R6.3), kept in the order taken: the last turn_sets of the seat the turn_* fields
    describe, and the last one of every other seat that has played (one set a turn, R6.2;
    all of them under King's Aid)."""
    described = _turn_seat(g)
    found: list[str] = []
    for s in _played(g):
        devs = g.devs[s]
        count = g.turn_sets if s == described else len(devs) if g.event == "KA" else 1
        found += devs[max(0, len(devs) - count):] if count else []
    return found


def _check_event_after_turns(g: Game, add: _Add) -> None:
    """R3.2, R3.3 once a turn may have taken queue card 1 (R6.4): the event is the icon of a
    card that can have been card 1 when the round began: today's card 1 or a development a
    seat that has played took this round. Held to the seed, that card was also drawn no
    later than today's card 1 (the queue keeps draw order)."""
    _event_after_turns(g, add, seeded=False)


def _check_event_after_turns_seeded(g: Game, add: _Add) -> None:
    _event_after_turns(g, add, seeded=True)


def _event_after_turns(g: Game, add: _Add, *, seeded: bool) -> None:
    if g.round == 1 or g.phase not in (TURN, STORE, OVER):
        return
    candidates = [g.queue[0]] if g.queue else []
    if seeded:
        order = {card_id: i for i, card_id in enumerate(_seed_setup(g).devs_in_order)}
        head = order[g.queue[0]] if g.queue else len(order)
        candidates += sorted((d for d in _taken_this_round(g) if order[d] < head),
                             key=order.__getitem__)
    else:
        candidates += _taken_this_round(g)
    icons = {g.deck[c].icon for c in candidates}
    if g.event in icons or (None in icons and "coronado" in g.owner) or (
            not candidates and (g.event is None or "coronado" in g.owner)):
        return
    add("event_not_from_queue", "event", "R3.2",
        f"the event of round {g.round} is the icon of queue card 1 when it began, one of "
        f"{_ids(candidates)} (showing {', '.join(sorted(i or '-' for i in icons)) or '-'}), "
        f"not {g.event or '-'}")


def _check_played_hands(g: Game, add: _Add) -> None:
    """R6.2, R6.10: a progression turn only spends cards, so a seat that has played holds no
    more than the supply and the trade gave it; by the first edition's rules its hand is
    discarded when its turn ends."""
    if g.phase not in (TURN, STORE) or not g.turn_order:
        return
    first_edition = g.options.rules < 2
    for s in _played(g):
        done = s != g.active or (g.phase == STORE and not first_edition)
        held = sum(g.hands[s])
        if first_edition and done:
            if held:
                add("hand_after_turn", "hands", "R6.10",
                    f"seat {s} holds cards after its turn: by the first edition's rules the "
                    "hand is discarded when the turn ends")
                break
            held = sum(g.stored[s])  # stored from this turn's hand, the rest discarded
        least, most = _hand_after_trade(g, s)
        # R6.2: the perfect combination spends 10 cards; the turn described by the turn_*
        # fields at least 3 a set, 4 for a series and 1 for a relic set, and at most 5 a
        # set, 9 for a series and 5 for a relic set: nothing else leaves a hand in a turn.
        spent = _PERFECT_CARDS * (s in g.perfect_shown)
        described = s == _turn_seat(g)
        if described:
            spent = max(spent, 3 * g.turn_sets + 4 * g.turn_series + g.turn_relics
                        + _PERFECT_CARDS * g.turn_perfect)
        if held + spent > most:
            add("hand_grew_in_turn", "hands", "R6.2",
                f"seat {s} holds {held} card(s) in phase {g.phase}"
                + (" (stored)" if first_edition and done else "")
                + (f" and has spent at least {spent}" if spent else "")
                + f": the supply and the trade left it at most {most}")
            break
        if not described or (first_edition and done):
            continue
        spent_most = (_MOST_IN_A_SET * g.turn_sets + max(SERIES_PAY) * g.turn_series
                      + max(RELIC_PAY) * g.turn_relics + _PERFECT_CARDS * g.turn_perfect)
        if held + spent_most < least:
            add("hand_short_in_turn", "hands", "R6.2",
                f"seat {s} holds {held} card(s) in phase {g.phase}"
                + (f" and has spent at most {spent_most}" if spent_most else
                   ", and its turn has made no combination")
                + f": the supply and the trade left it at least {least}, and only "
                "combinations take cards from a hand in a turn")
            break


def _check_income(g: Game, add: _Add) -> None:
    """R6.7: every development pays its income at the end of each of its owner's turns, those
    taken in the turn included, and only Coronado (R3.3) and Sergio (P01) cost doubloons: a
    seat that owns neither holds at least one payment of every development whose turn is
    over (the current turn's sets may not have paid yet)."""
    for s in range(g.players):
        if g.owner.get("coronado") == s or g.owner.get("sergio") == s:
            continue
        incomes = sorted(g.deck[d].income for d in g.devs[s])
        if g.phase == TURN and s == g.active:
            incomes = incomes[:max(0, len(incomes) - g.turn_sets)]  # the largest unpaid
        paid = sum(incomes)
        if g.doubloons[s] < paid:
            add("doubloons_below_income", "doubloons", "R6.7",
                f"seat {s} holds {g.doubloons[s]} doubloons, but its developments have paid "
                f"it at least {paid} and it owns nothing that costs doubloons")
            break


def _round_1_turn_seat(g: Game) -> int | None:
    """The seat whose turn of round 1 the turn_* fields describe, in round 1 or in round 2
    before its turns; None otherwise."""
    if g.round == 1:
        return _turn_seat(g)
    if g.round == 2 and g.phase in _BEFORE_TURNS and g.turn_order:
        return g.turn_order[-1]
    return None


def _check_round_1_developments(g: Game, add: _Add) -> None:
    """R6.3: each identical set earns one development (Vicente's owner may cash it, P04), so
    the seat of the last turn owns at least as many as its sets. R6.2, R3.1: round 1 has no
    event, so no King's Aid: each seat earns at most one development, in its turn; the seat
    the turn_* fields describe one per set it made (no one owns Vicente before that turn)."""
    seat = _turn_seat(g) if g.phase not in _BEFORE_TURNS else (
        g.turn_order[-1] if g.turn_order else None)
    if (seat is not None and len(g.devs[seat]) < g.turn_sets
            and g.owner.get("vicente") != seat):  # P04: only Vicente cashes a set
        add("developments_past_sets", "turn_sets", "R6.3",
            f"seat {seat} made {g.turn_sets} identical set(s) in its last turn and owns "
            f"{len(g.devs[seat])} development(s): each set earns one")
        return
    described = _round_1_turn_seat(g)
    if described is not None and len(g.devs[described]) != g.turn_sets:
        add("developments_past_sets", "devs", "R6.2",
            f"seat {described} owns {len(g.devs[described])} development(s) and made "
            f"{g.turn_sets} identical set(s) in its turn of round 1: each set earns one")
        return
    if g.round != 1:
        return
    for s in _played(g):
        most = g.turn_sets if g.phase == TURN and s == g.active else 1
        if len(g.devs[s]) > most:
            add("developments_past_sets", "devs", "R6.2",
                f"seat {s} owns {len(g.devs[s])} developments in round 1: one identical set "
                f"earns one, and {'its turn has made' if most != 1 else 'a turn makes'} "
                f"{most}")
            break


# -- what the rounds played leave (R4.2, R5.4, R6.2, R6.7) -------------------------------------

# R6.2: what a series and a relic set pay, no event acting (there is none in round 1, R3.1).
_SERIES_GAINS = (0, *SERIES_PAY.values())
_RELIC_GAINS = (0, *RELIC_PAY.values())
_FIRST_TURN_GAINS = frozenset(a + b for a in _SERIES_GAINS for b in _RELIC_GAINS)


def _check_draws(g: Game, add: _Add) -> None:
    """R4.2: each supply step draws 5 cards a seat (all of them, docs/rules.md R4.2), one per
    caravel then owned (at most those owned now) and Sergio's refill (P01); before the first
    reshuffle the draw pile is what is left of the 117 cards the setup left in it, and a
    reshuffle needs those drawn to the last."""
    supplied = g.round - (g.phase == CORONADO)  # supply steps begun so far
    caravels = sum(len(c) for c in g.caravels)
    most = supplied * (HAND_DEAL * g.players + caravels + ("sergio" in g.owner))
    least = supplied * HAND_DEAL * g.players if _deals_in_full(g) else 0
    first_pile = TOTAL_RESOURCES - MARKET_SIZE
    if g.reshuffles:
        if most < first_pile:
            add("reshuffle_before_the_pile_ran_out", "reshuffles", "R4.2",
                f"{supplied} supply step(s) draw at most {most} of the {first_pile} cards of the "
                "first draw pile: it has not run out, so nothing was reshuffled")
        return
    drawn = first_pile - len(g.draw)
    if not least <= drawn <= most:
        add("draw_not_the_rounds", "draw", "R4.2",
            f"{drawn} card(s) drawn from the pile in {supplied} supply step(s), which draw "
            + (str(least) if least == most else f"{least} to {most}"))


def _check_round_1_doubloons(g: Game, add: _Add) -> None:
    """R6.2, R6.7: in round 1 (no event, no development before the turn) a turn earns at most
    one series and one relic set, then the income of the development it took; so do the
    doubloons a seat brings to round 2 until the takes (Coronado and Sergio may have cost
    2 each)."""
    if g.round == 1:
        over = set(_played(g)) - ({g.active} if g.phase == TURN else set())
    elif g.round == 2 and g.phase in _BEFORE_TAKES:
        over = set(range(g.players))
    else:
        return
    described = _round_1_turn_seat(g)
    flagged = frozenset(a + b for a in (SERIES_PAY.values() if g.turn_series else (0,))
                        for b in (RELIC_PAY.values() if g.turn_relics else (0,)))
    for s in sorted(over):
        gains = flagged if s == described else _FIRST_TURN_GAINS
        parts = g.income_of(s)
        shipyards = parts.pop("shipyards", 0)  # opponents' caravels may have come later
        income = sum(parts.values())
        spent = (0, 2, 4) if g.round == 2 and s in (g.owner.get("coronado"),
                                                    g.owner.get("sergio")) else (0,)
        if not any(g.doubloons[s] + cost - income - yard in gains
                   for cost in spent for yard in range(shipyards + 1)):
            add("doubloons_not_a_first_turn", "doubloons", "R6.2",
                f"seat {s} holds {g.doubloons[s]} doubloon{'' if g.doubloons[s] == 1 else 's'} "
                f"after its turn of round 1: a series "
                f"and a relic set pay {'/'.join(map(str, SERIES_PAY.values()))} and "
                f"{'/'.join(map(str, RELIC_PAY.values()))}, and its developments {income}"
                + (f" (and up to {shipyards} from shipyards)" if shipyards else ""))
            return
    if g.round == 1 and g.phase == TURN and g.doubloons[g.active] not in flagged:
        add("doubloons_not_this_turn", "doubloons", "R6.2",
            f"seat {g.active} holds {g.doubloons[g.active]} doubloons in its turn of round 1: "
            "it earns only what its series and relic set of this turn pay "
            f"(turn_series={int(g.turn_series)}, turn_relics={int(g.turn_relics)})")


def _check_round_1_hands(g: Game, add: _Add) -> None:
    """R2.6, R4.2, R5.5, R5.9: in round 1 each hand is the seed's deal, changed only by the
    takes (one card out per take from the seat, one in per take by it) and the gift."""
    if g.round != 1 or g.phase not in (TAKE, GIFT, FIRST, TURN):
        return
    setup, n = _seed_setup(g), g.players
    deal = setup.draw[len(setup.draw) - HAND_DEAL * n:]
    gift = g.phase in (FIRST, TURN) and g.takes and g.takes[-1][1] != g.tm
    for s in range(n) if g.phase != TURN else _unplayed(g):
        i = (s - setup.tm) % n
        dealt = to_counts(deal[len(deal) - HAND_DEAL * (i + 1):len(deal) - HAND_DEAL * i])
        now = [h + f for h, f in zip(g.hands[s], g.faceup[s], strict=True)]
        came = sum(max(0, now[v] - dealt[v]) for v in VALUES)
        went = sum(max(0, dealt[v] - now[v]) for v in VALUES)
        came_most = sum(x == s for x, _ in g.takes) + bool(gift and s == g.takes[-1][1])
        went_most = sum(y == s for _, y in g.takes) + bool(gift and s == g.tm)
        if came > came_most or went > went_most:
            add("hand_not_dealt_from_seed", "hands", "R4.2",
                f"seat {s} holds {multiset_text(from_counts(now))} in round 1, and seed "
                f"{g.options.seed} dealt it {multiset_text(from_counts(dealt))}: its "
                f"{came_most} take(s) and gift bring at most {came_most} other card(s), and "
                f"lose at most {went_most}")
            return


def _check_trade_master_offer(g: Game, add: _Add) -> None:
    """R5.4: during the takes the Trade Master is one of the best offers. Each card taken from
    a seat was worth 1 to 10, so the offers are known to that much."""
    if g.phase != TAKE:
        return
    low, high = [], []
    for s in range(g.players):
        taken = sum(y == s for _, y in g.takes)
        score = g.offer_score(s, from_counts(g.faceup[s]))
        low.append(score + taken)
        high.append(score + RELIC * taken)
    if high[g.tm] < max(low):
        best = low.index(max(low))
        add("tm_not_best_offer", "tm", "R5.4",
            f"seat {g.tm}'s offer scores at most {high[g.tm]} and seat {best}'s at least "
            f"{low[best]}: the best offer takes the Trade Master token")


def _check_asked_in_simultaneous_steps(g: Game, add: _Add) -> None:
    """The ``active`` of a step every seat answers at once is the seat the last one-seat
    step asked: the Trade Master who announced N (R5.1) in the offers; the last progression
    turn's seat (R6.1) in the storage step; in the pirates step, one of the seats that can
    have decided in this round's supply step, or the last round's last turn."""
    if g.phase == OFFER and g.active != g.tm:
        add("wrong_seat_asked", "active", "R5.1",
            f"phase offer follows the announcement of the Trade Master, seat {g.tm}: active "
            f"is {g.tm}, not {g.active}")
    elif g.phase == STORE and g.options.rules >= 2 and g.turn_order and (
            g.active != g.turn_order[-1]):
        add("wrong_seat_asked", "active", "R6.9",
            f"phase store follows the last progression turn, seat {g.turn_order[-1]}'s: active "
            f"is {g.turn_order[-1]}, not {g.active}")
    elif g.phase == OVER and g.turn_order and g.active != g.turn_order[-1]:
        add("wrong_seat_asked", "active", "R6.1",
            f"the game ended after the last progression turn, seat {g.turn_order[-1]}'s: "
            f"active is {g.turn_order[-1]}, not {g.active}")
    elif g.phase == PIRATES:
        asked = {s for s, _ in g.fleets} | {g.owner.get(p) for p in ("ponce", "coronado",
                                                                      "sergio")}
        asked.add(g.turn_order[-1] if g.turn_order else 0)
        if g.active not in asked:
            add("wrong_seat_asked", "active", "R4.7",
                f"seat {g.active} has made no decision this round, nor played the last turn "
                "of the last one")


_REACHABILITY_CHECKS: tuple[Callable[[Game, _Add], None], ...] = (
    _check_asked_seat, _check_trade, _check_market, _check_stored, _check_round,
    _check_turns, _check_queue, _check_supply, _check_hands, _check_result, _check_seed,
    _check_takes, _check_trade_ended, _check_event_after_turns,
    _check_event_after_turns_seeded, _check_played_hands, _check_income,
    _check_round_1_developments, _check_draws, _check_round_1_doubloons, _check_round_1_hands,
    _check_trade_master_offer, _check_asked_in_simultaneous_steps)


# The checks that hold a position to its seed's deal (R2.6): only with ``seeded``. A position
# may be arranged by hand for study or for a test (docs/notation.md, "The seed"); its seed
# then decides what is drawn after a reshuffle, not what was laid out before it. Held to the
# seed, a check of _SEED_CHECKS stands in for its twin of _UNSEEDED_CHECKS.
_SEED_CHECKS = frozenset({_check_seed, _check_round_1_hands, _check_event_after_turns_seeded})
_UNSEEDED_CHECKS = frozenset({_check_event_after_turns})


def position_problems(game: Game, *, seeded: bool = False) -> list[PositionProblem]:
    """Every reason why no game reaches ``game`` (python-chess's ``Board.status()``): empty
    for a position a game reaches. ``game`` must be one :func:`parse_position` could build
    (its structural checks passed); the engine's own games always give an empty list, with
    ``seeded`` too (which also holds the position to its seed's deal, R2.6)."""
    found: list[PositionProblem] = []

    def add(name: str, field: str, rule: str, text: str) -> None:
        found.append(PositionProblem(name, field, rule, text))

    skipped = _UNSEEDED_CHECKS if seeded else _SEED_CHECKS
    for check in _REACHABILITY_CHECKS:
        if check not in skipped:
            check(game, add)
    return found


# -- comparing positions --------------------------------------------------------------------


def _state_slots() -> list[str]:
    return [s for s in FIELDS if not s.startswith("_") and s != "log"]


def position_differences(a: Game, b: Game) -> list[str]:
    """The names of the state fields in which two games differ (log and caches aside)."""
    return [name for name in _state_slots() if getattr(a, name) != getattr(b, name)]


def positions_equal(a: Game, b: Game) -> bool:
    """True if the two games are the same position: every state field but the log and the
    legal-decision cache is equal."""
    return not position_differences(a, b)


# -- decisions ------------------------------------------------------------------------------


def _target_text(target: int) -> str:
    if target == TARGET_DRAW:
        return "draw"
    if target == TARGET_CASH:
        return "cash"
    if type(target) is not int or target < 1:
        raise NotationError(f"{target!r} is not a set target")
    return f"q{target}"


def _seat_text(seat: int) -> str:
    if type(seat) is not int or seat < 0:
        raise NotationError(f"{seat!r} is not a seat")
    return str(seat)


def _body(d: Decision) -> str:
    match d:
        case ChooseEvent(event):
            return f"event:{event or 'pass'}"
        case SplitFleet(fleet):
            return f"split:{'+'.join(fleet) or 'none'}"
        case PickCards(cards):
            return f"pick:{multiset_text(cards)}"
        case BuyMarket(card):
            return f"buy:{'pass' if card is None else card_text(card)}"
        case PirateDiscard(cards):
            return f"pirates:{multiset_text(cards)}"
        case Announce(n):
            return f"announce:{n}"
        case Offer(cards):
            return f"offer:{multiset_text(cards)}"
        case ChooseTradeMaster(seat):
            return f"tm:{_seat_text(seat)}"
        case Take(seat, card, swap):
            tail = "" if swap is None else f":{card_text(swap)}"
            return f"take:{card_text(card)}@{_seat_text(seat)}{tail}"
        case Gift(card):
            return f"gift:{card_text(card)}"
        case ChooseFirst(seat):
            return f"first:{_seat_text(seat)}"
        case Convert(source, value):
            return f"convert:{card_text(source)}:{card_text(value)}"
        case MakeSet(value, cards, target):
            return f"set:{value}:{multiset_text(cards)}:{_target_text(target)}"
        case MakeSeries(cards):
            return f"series:{multiset_text(cards)}"
        case MakeRelicSet():
            return f"relics:{d[0]}"
        case MakePerfect():
            return "perfect"
        case EndTurn():
            return "end"
        case Store(cards):
            return f"store:{multiset_text(cards)}"
    raise NotationError(f"{d!r} is not a decision")


def format_decision(d: Decision, seat: int | None = None) -> str:
    """One shell-safe token: ``take:5@2:9``; with ``seat``, prefixed ``2.``."""
    body = _body(d)
    return body if seat is None else f"{_seat_text(seat)}.{body}"


def _arg_seat(arg: str) -> int:
    return _parse_int(arg, "seat", 0)


def _one_card(arg: str) -> int:
    if len(arg) != 1:
        raise ValueError(f"{arg!r} is not one resource (1-9 or R)")
    return _parse_card(arg)


def _d_event(arg: str) -> Decision:
    if arg == "pass":
        return ChooseEvent(None)
    if arg.upper() not in EVENTS:
        raise ValueError(f"{arg!r} is not pass or one of {', '.join(EVENTS)}")
    return ChooseEvent(arg.upper())


def _d_split(arg: str) -> Decision:
    if arg == "none":
        return SplitFleet(())
    ids = arg.split("+")
    for i in ids:
        if not _ID.match(i):
            raise ValueError(f"{i!r} is not a caravel id (or write none)")
    return SplitFleet(tuple(ids))


def _d_buy(arg: str) -> Decision:
    return BuyMarket(None if arg == "pass" else _one_card(arg))


def _split2(text: str) -> tuple[str, bool, str]:
    """``A:B`` (canonical, shell-safe) or ``A>B`` (accepted too) -> (A, found, B)."""
    a, sep, b = text.partition(":" if ":" in text else ">")
    return a, bool(sep), b


def _d_take(arg: str) -> Decision:
    card_t, at, rest = arg.partition("@")
    if not at:
        raise ValueError("write take:CARD@SEAT or take:CARD@SEAT:MARKETCARD")
    seat_t, swap, swap_t = _split2(rest)
    return Take(_arg_seat(seat_t), _one_card(card_t), _one_card(swap_t) if swap else None)


def _d_convert(arg: str) -> Decision:
    src, found, dst = _split2(arg)
    if not found:
        raise ValueError("write convert:CARD:VALUE")
    return Convert(_one_card(src), _one_card(dst))


def _d_set(arg: str) -> Decision:
    parts = arg.split(":")
    if len(parts) != 3:
        raise ValueError("write set:VALUE:CARDS:TARGET (target q1-q5, draw or cash)")
    value_t, cards_t, target_t = parts
    value = _parse_int(value_t, "value")
    if target_t == "draw":
        target = TARGET_DRAW
    elif target_t == "cash":
        target = TARGET_CASH
    elif target_t[:1] == "q" and _NAT.match(target_t[1:]):
        target = _parse_int(target_t[1:], "queue position", 1)
    else:
        raise ValueError(f"target {target_t!r} is not q1-q5, draw or cash")
    return MakeSet(value, _parse_multiset(cards_t), target)


def _d_relics(arg: str) -> Decision:
    return MakeRelicSet(_parse_int(arg, "count"))


_DECISION_PARSERS: dict[str, Callable[[str], Decision]] = {
    "event": _d_event,
    "split": _d_split,
    "pick": lambda a: PickCards(_parse_multiset(a)),
    "buy": _d_buy,
    "pirates": lambda a: PirateDiscard(_parse_multiset(a)),
    "announce": lambda a: Announce(_parse_int(a, "N")),
    "offer": lambda a: Offer(_parse_multiset(a)),
    "tm": lambda a: ChooseTradeMaster(_arg_seat(a)),
    "take": _d_take,
    "gift": lambda a: Gift(_one_card(a)),
    "first": lambda a: ChooseFirst(_arg_seat(a)),
    "convert": _d_convert,
    "set": _d_set,
    "series": lambda a: MakeSeries(_parse_multiset(a)),
    "relics": _d_relics,
    "store": lambda a: Store(_parse_multiset(a)),
}
_BARE_DECISIONS: dict[str, Decision] = {"perfect": MakePerfect(), "end": EndTurn()}
DECISION_KINDS = (*_DECISION_PARSERS, *_BARE_DECISIONS)
_SEAT_PREFIX = re.compile(r"([0-9]+)\.(.*)\Z", re.S)


def parse_decision(text: str) -> tuple[int | None, Decision]:
    """``"2.take:5@1"`` -> ``(2, Take(1, 5, None))``; the seat is None without a prefix."""
    if not isinstance(text, str):
        raise NotationError(f"a decision is text, not {type(text).__name__}")
    body, seat = text.strip(), None
    m = _SEAT_PREFIX.match(body)
    if m:
        seat, body = int(m.group(1)), m.group(2)
    kind, colon, arg = body.partition(":")
    if kind in _BARE_DECISIONS:
        if colon:
            raise NotationError(f"decision {text!r}: {kind} takes no argument")
        return seat, _BARE_DECISIONS[kind]
    parser = _DECISION_PARSERS.get(kind)
    if parser is None:
        raise NotationError(f"decision {text!r}: unknown kind {kind!r} (one of "
                            f"{', '.join(DECISION_KINDS)})")
    if not colon or not arg:
        raise NotationError(f"decision {text!r}: {kind} needs an argument after ':'")
    try:
        return seat, parser(arg)
    except ValueError as exc:
        raise NotationError(f"decision {text!r}: {exc}") from None


def decision_seat(game: Game, seat: int | None, text: str = "") -> int:
    """The seat a decision is for: ``seat`` if given, else the single waiting seat."""
    if seat is not None:
        return seat
    waiting = game.waiting_seats()
    if not waiting:
        raise RuleError("R8", "the game is over")
    if len(waiting) > 1:
        label = f"decision {text!r}: " if text else ""
        raise NotationError(f"{label}seats {', '.join(map(str, waiting))} are all waiting: "
                            "prefix the decision with its seat, e.g. "
                            f"{waiting[0]}.{text or 'offer:-'}")
    return waiting[0]


def apply_decision(game: Game, text: str) -> tuple[int, Decision]:
    """Parse ``text`` and apply it to ``game``; return (seat, decision).

    NotationError for bad text or an ambiguous seat, RuleError for an illegal decision."""
    seat, decision = parse_decision(text)
    seat = decision_seat(game, seat, text)
    game.apply(seat, decision)
    return seat, decision


def legal_texts(game: Game) -> list[str]:
    """Every legal decision now, in notation; seat-prefixed when several seats wait."""
    waiting = game.waiting_seats()
    prefix = len(waiting) > 1
    return [format_decision(d, s if prefix else None) for s in waiting for d in game.legal(s)]
