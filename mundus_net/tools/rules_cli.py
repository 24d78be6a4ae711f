"""``mundus rules``: start, show and advance positions written in the notation.

``new`` prints a starting position, ``show`` prints a position readably with its legal
decisions, ``apply`` applies decisions and prints the result as JSON. Exit status: 0 on
success, 1 for an illegal decision (the message starts with the rule ID), 2 for a malformed
position, decision or deck file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from mundus_net.cli_args import add_deck_option
from mundus_net.engine.cards import RESOURCE_NAMES, from_counts
from mundus_net.engine.decisions import DECISION_TYPES, RuleError
from mundus_net.engine.deck import EVENT_NAMES, Deck, DeckError, load_deck
from mundus_net.engine.game import REASON_WORDS, RULES_EDITION, Event, Game, Pending
from mundus_net.engine.notation import (
    NotationError,
    apply_decision,
    format_decision,
    format_position,
    legal_texts,
    multiset_text,
    parse_position,
)
from mundus_net.engine.view import PlayerView
from mundus_net.tools.results import wrapped

__all__ = [
    "DETAIL_WORDS", "cards_named", "describe", "describe_view", "detail_words", "event_json",
    "jsonable", "pending_json", "register", "secret_choices"
]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules",
        description="Work with positions and decisions written in the notation of "
                    "docs/notation.md. Exit status 1: illegal decision; 2: malformed input.")
    sub = parser.add_subparsers(dest="rules_command", metavar="ACTION", required=True)

    new = sub.add_parser("new", help="print the starting position of a new game")
    new.add_argument("--players", type=int, required=True, choices=range(2, 7),
                     metavar="N", help="2 to 6 players")
    new.add_argument("--seed", type=int, default=0, help="the game seed (default 0)")
    new.add_argument("--promo", action="store_true", help="add the promo cards P01-P05")
    new.add_argument("--first-tm", default="0", metavar="SEAT",
                     help="the first Trade Master's seat, or 'random' (default 0)")
    new.add_argument("--round-limit", type=int, default=None, metavar="N",
                     help="end the game after N rounds (R8.5)")
    add_deck_option(new)
    new.set_defaults(func=_cmd_new)

    show = sub.add_parser("show", help="print a position readably with its legal decisions")
    show.add_argument("position", metavar="POSITION", help="position text, or - for stdin")
    show.add_argument("--as", dest="viewer", metavar="SEAT",
                      help="print only what seat SEAT (from 0), or a spectator ('spectator'), "
                           "may see of the position: no other hand, no secret offer, no "
                           "pile order")
    add_deck_option(show)
    show.add_argument("--seeded", action="store_true",
                       help="also refuse piles, market, first Trade Master and round 1's "
                            "hands that the position's seed does not deal (R2.6); without "
                            "it a position may be arranged by hand")
    show.set_defaults(func=_cmd_show)

    apply = sub.add_parser("apply", help="apply decisions to a position and print JSON")
    apply.add_argument("position", metavar="POSITION", help="position text, or - for stdin")
    apply.add_argument("decisions", metavar="DECISION", nargs="+",
                       help="decisions in notation, e.g. announce:3 2.offer:115 take:5@2:9")
    apply.add_argument("--pretty", action="store_true", help="indent the JSON")
    add_deck_option(apply)
    apply.add_argument("--seeded", action="store_true",
                       help="also refuse piles, market, first Trade Master and round 1's "
                            "hands that the position's seed does not deal (R2.6); without "
                            "it a position may be arranged by hand")
    apply.set_defaults(func=_cmd_apply)


def _fail(message: str, status: int) -> int:
    print(message, file=sys.stderr)
    return status


def _load(args: argparse.Namespace) -> Game:
    """The game of ``args.position`` (NotationError/DeckError for bad input)."""
    deck: Deck | None = load_deck(args.deck) if args.deck else None
    text: str = args.position
    if text == "-":
        text = sys.stdin.read()
    return parse_position(text, deck, seeded=args.seeded)


# -- new ------------------------------------------------------------------------------------


def _cmd_new(args: argparse.Namespace) -> int:
    if args.first_tm == "random":
        first_tm: int | None = None
    elif args.first_tm.isdigit():
        first_tm = int(args.first_tm)
    else:
        return _fail(f"--first-tm: {args.first_tm!r} is not a seat number or 'random'", 2)
    try:
        deck = load_deck(args.deck) if args.deck else None
        game = Game.new(args.players, args.seed, promo=args.promo, deck=deck,
                        first_tm=first_tm, round_limit=args.round_limit)
    except DeckError as exc:
        return _fail(str(exc), 2)
    except RuleError as exc:
        return _fail(str(exc), 2)
    print(format_position(game))
    return 0


# -- apply ----------------------------------------------------------------------------------


def jsonable(value: Any) -> Any:
    """Log and pending values as JSON: decisions as notation, tuples as lists, keys as text."""
    if isinstance(value, DECISION_TYPES):
        return format_decision(value)  # type: ignore[arg-type]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [jsonable(v) for v in items]
    return value


def event_json(event: Event) -> dict[str, Any]:
    return {"kind": event.kind, "public": jsonable(event.public),
            "private": None if event.private is None else jsonable(event.private)}


def pending_json(pending: Pending | None) -> dict[str, Any] | None:
    if pending is None:
        return None
    return {"kind": pending.kind, "seats": list(pending.seats),
            "detail": jsonable(pending.detail)}


def _cmd_apply(args: argparse.Namespace) -> int:
    try:
        game = _load(args)
    except (NotationError, DeckError) as exc:
        return _fail(str(exc), 2)
    count = len(args.decisions)
    for i, text in enumerate(args.decisions, start=1):
        try:
            apply_decision(game, text)
        except NotationError as exc:
            return _fail(f"{exc} (decision {i} of {count})", 2)
        except RuleError as exc:
            return _fail(f"{exc} (decision {i} of {count}: {text}; see docs/rules.md)", 1)
    result = game.result
    out = {
        "position": format_position(game),
        "events": [event_json(e) for e in game.log],
        "pending": pending_json(game.pending),
        "legal": legal_texts(game),
        "result": None if result is None else {
            "winners": list(result.winners), "reason": result.reason,
            "doubloons": list(result.doubloons), "places": list(result.places),
            "rounds": result.rounds},
    }
    print(json.dumps(out, indent=2 if args.pretty else None, ensure_ascii=False))
    return 0


# -- show -----------------------------------------------------------------------------------


def cards_named(cards: Sequence[int]) -> str:
    """``115R (cocoa x2, cotton, relic)``; ``-`` when empty."""
    text = multiset_text(cards)
    if not cards:
        return text
    counts = Counter(cards)
    names = [RESOURCE_NAMES[v] + (f" x{k}" if k > 1 else "") for v, k in sorted(counts.items())]
    return f"{text} ({', '.join(names)})"


def _dev(game: Game, card_id: str) -> str:
    return _dev_of(game.deck, card_id)


# The words for the fields of a pending decision's detail (mundus_net.engine.game.Pending).
DETAIL_WORDS = {
    "n": "announced",
    "sizes": "cards each seat may offer",
    "candidates": "candidates: seats",
    "to": "to seat",
    "capacity": "cards each seat may store",
    "counts": "cards each seat discards",
    "fleet": "fleet",
    "count": "cards to pick",
    "sets": "sets made this turn",
    "series": "series made",
    "relics": "relic set made",
    "perfect": "perfect combination shown",
}


def _value_words(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"seat {k} {_value_words(key, v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        if key == "sizes" and len(value) == 2 and all(isinstance(v, int) for v in value):
            low, high = value
            return str(low) if low == high else f"{low} to {high}"
        return ", ".join(_value_words(key, v) for v in value)
    return str(value)


def detail_words(detail: dict[str, Any]) -> str:
    """A pending decision's detail in words (``announced 3; cards each seat may offer: seat 0
    3, seat 1 3``); empty when there is none."""
    parts = []
    for key, value in detail.items():
        words = DETAIL_WORDS.get(key, key)
        sep = ":" if isinstance(value, dict) else ""
        parts.append(f"{words}{sep} {_value_words(key, value)}")
    return "; ".join(parts)


def describe(game: Game) -> list[str]:
    """A position as readable lines, ending with the pending decision and the legal ones."""
    o = game.options
    event = "none" if game.event is None else f"{EVENT_NAMES[game.event]} ({game.event})"
    lines = [
        f"Round {game.round}, event {event}, phase {game.phase}, Trade Master seat {game.tm}",
        f"Table: {o.players} players, seed {o.seed}, deck {game.deck.name}, "
        f"promo {'on' if o.promo else 'off'}, first TM "
        f"{'random' if o.first_tm is None else f'seat {o.first_tm}'}, round limit "
        f"{o.round_limit or 'none'}"
        + ("" if o.rules == RULES_EDITION else
           f", rules of edition {o.rules} (storage at the end of each turn)"),
        f"Market:  {cards_named(game.market)}",
        f"Display: {cards_named(game.display)}",
        "Queue:   " + ("; ".join(f"{i}. {_dev(game, c)}" for i, c in enumerate(game.queue, 1))
                       or "-"),
        f"Piles:   draw {len(game.draw)}, discard {len(game.discard)}, development pile "
        f"{len(game.devpile)}, reshuffles so far {game.reshuffles}",
    ]
    for s in range(game.players):
        marks = [m for m, on in (("TM", s == game.tm), ("to decide", s in game.waiting_seats()))
                 if on]
        lines.append(f"Seat {s}{' [' + ', '.join(marks) + ']' if marks else ''}: "
                     f"{game.doubloons[s]} doubloons")
        lines.append("  developments: " + (", ".join(_dev(game, c) for c in game.devs[s])
                                           or "-"))
        lines.append(f"  hand: {cards_named(from_counts(game.hands[s]))}")
        if any(game.stored[s]):
            lines.append(f"  stored: {cards_named(from_counts(game.stored[s]))}")
        if any(game.faceup[s]):
            lines.append(f"  offered face up: {cards_named(from_counts(game.faceup[s]))}")
        lines += secret_choices(game, s, "  ")
    if game.fleets:
        lines.append("Fleets: " + ", ".join(f"seat {s} {'+'.join(f)}" for s, f in game.fleets))
    if game.takes:
        lines.append("Takes of the last trade step (taker>source): "
                     + ", ".join(f"{x}>{y}" for x, y in game.takes))
    if game.converted:
        lines.append("Converted this turn: "
                     + ", ".join(f"{multiset_text((a,))}>{multiset_text((b,))}"
                                 for a, b in game.converted))
    if game.result is not None:
        r = game.result
        how = REASON_WORDS.get(r.reason, r.reason)
        lines.append(f"Game over after {r.rounds} rounds, ended {how}: winner(s) "
                     f"{', '.join(f'seat {w}' for w in r.winners)}; places "
                     f"{'/'.join(map(str, r.places))}")
        return lines
    pending = game.pending
    if pending is not None:
        seats = ", ".join(map(str, pending.seats))
        detail = detail_words(pending.detail)
        lines.append(f"Pending: {pending.kind} by seat{'s' if len(pending.seats) != 1 else ''} "
                     f"{seats}" + (f" ({detail})" if detail else ""))
    legal = legal_texts(game)
    lines.append(f"Legal ({len(legal)}): " + " ".join(legal))
    return lines


def secret_choices(game: Game, seat: int, indent: str, own: str = "") -> list[str]:
    """The secret choices ``seat`` has fixed in the pending simultaneous step (offer, pirate
    discard, storage), one line each; ``own`` ("your ") when the seat itself reads them."""
    phase = game.phase
    choices = [("offer", game.offers if phase == "offer" else {}),
               ("pirate discard", game.pirates_chosen if phase == "pirates" else {}),
               ("storage choice", game.store_chosen if phase == "store" else {})]
    return [f"{indent}{own}secret {what}: {cards_named(chosen[seat])}"
            for what, chosen in choices if seat in chosen]


def describe_view(view: PlayerView, game: Game | None = None) -> list[str]:
    """What one seat (or a spectator: ``view.seat`` None) may see of a position, as readable
    lines: its own hand, stored cards, offer and legal decisions; of the others only what is
    public (hand and warehouse sizes, who has fixed a secret choice, face-up cards). With the
    ``game`` behind the view, the seat's own fixed pirate discard and storage choice too (a
    view shows only its offer)."""
    me = view.seat
    event = "none" if view.event is None else f"{EVENT_NAMES[view.event]} ({view.event})"
    who = "a spectator" if me is None else f"seat {me}"
    lines = [
        f"As {who}: round {view.round}, event {event}, phase {view.phase}, Trade Master seat "
        f"{view.trade_master}",
        f"Market:  {cards_named(view.market)}",
        f"Display: {cards_named(view.display)}",
        "Queue:   " + ("; ".join(f"{i}. {_dev_of(view.deck, c)}"
                                 for i, c in enumerate(view.queue, 1)) or "-"),
        f"Piles:   draw {view.draw_size} (order hidden), discard {len(view.discard)}, "
        f"development pile {view.devpile_size} (order hidden)",
    ]
    secret = set(view.offered) | set(view.pirates_done) | set(view.store_done)
    for s in range(view.players):
        marks = [m for m, on in (("TM", s == view.trade_master), ("you", s == me)) if on]
        lines.append(f"Seat {s}{' [' + ', '.join(marks) + ']' if marks else ''}: "
                     f"{view.doubloons[s]} doubloons")
        lines.append("  developments: " + (", ".join(_dev_of(view.deck, c)
                                                     for c in view.developments[s]) or "-"))
        if s == me:
            lines.append(f"  hand: {cards_named(view.hand)}")
            if view.stored:
                lines.append(f"  stored: {cards_named(view.stored)}")
            if game is not None:
                lines += secret_choices(game, me, "  ", own="your ")
            elif view.my_offer is not None:
                lines.append(f"  your secret offer: {cards_named(view.my_offer)}")
        else:
            known = view.known_hands[s]
            lines.append(f"  hand: {view.hand_sizes[s]} card(s), hidden"
                         + (f" (known to hold {multiset_text(known)})" if known else ""))
            if view.stored_sizes[s]:
                lines.append(f"  stored: {view.stored_sizes[s]} card(s), hidden")
            if s in secret:
                lines.append("  has fixed a secret choice (hidden until all are in)")
        if view.faceup[s]:
            lines.append(f"  offered face up: {cards_named(view.faceup[s])}")
    if view.result is not None:
        r = view.result
        lines.append(f"Game over after {r.rounds} rounds, ended "
                     f"{REASON_WORDS.get(r.reason, r.reason)}: winner(s) "
                     f"{', '.join(f'seat {w}' for w in r.winners)}")
        return lines
    pending = view.pending
    if pending is not None:
        seats = ", ".join(map(str, pending.seats))
        lines.append(f"Pending: {pending.kind} by seat{'s' if len(pending.seats) != 1 else ''} "
                     f"{seats}")
    if me is not None:
        legal = [format_decision(d) for d in view.legal]
        lines.append(f"Your legal decisions ({len(legal)}): " + (" ".join(legal) or "none now"))
    return lines


def _dev_of(deck: Deck, card_id: str) -> str:
    card = deck[card_id]
    icon = f" [{card.icon}]" if card.icon else ""
    return f"{card_id} {card.name}{icon}"


def _viewer(text: str, players: int) -> int | None:
    """``--as``: a seat number, or None for a spectator (ValueError otherwise)."""
    if text.lower() == "spectator":
        return None
    if not text.isdigit() or not 0 <= int(text) < players:
        raise ValueError(f"--as: {text!r} is not a seat (0 to {players - 1}) or 'spectator'")
    return int(text)


def _cmd_show(args: argparse.Namespace) -> int:
    try:
        game = _load(args)
    except (NotationError, DeckError) as exc:
        return _fail(str(exc), 2)
    if args.viewer is None:
        print(fitted(describe(game)))
        return 0
    try:
        seat = _viewer(args.viewer, game.players)
    except ValueError as exc:
        return _fail(str(exc), 2)
    print(fitted(describe_view(PlayerView(game, seat), game)))
    return 0


def fitted(lines: Sequence[str]) -> str:
    """``lines`` at 80 columns: a long line broken between its items (``; `` or ``, ``
    apart: a development, a card with its count, an option), else between words (between
    decisions), its rest indented two more spaces than it."""
    return "\n".join(part for line in lines
                     for part in wrapped(_whole_items(line),
                                         " " * (len(line) - len(line.lstrip()) + 2)))


def _whole_items(line: str) -> str:
    """``line`` with no-break spaces inside each short item (wrapped() breaks between them
    only): ``D07 Caravel 7`` or ``round limit none`` stay on one line."""
    sep = "; " if "; " in line else ", "
    return sep.join(item.replace(" ", "\xa0") if len(item) <= 40 else item
                    for item in line.split(sep))
