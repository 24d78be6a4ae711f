"""Help for each decision the game asks for, with the docs/rules.md IDs that apply, and a summary
of one round: who gained what, and why.

The help names the rules (``R5.5``...) so a player who doubts can look them up, and a host's
``illegal`` error (which names a rule too) points to the same place. Both come in the player's
language: the functions take a Translator (``t``; the process's current one when not given), the
tables keep the English source words.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.utils import get_cwidth

from mundus_net.client.i18n import N_, Translator, current
from mundus_net.client.tui.advisor import View, affected
from mundus_net.client.tui.sentences import (
    INCOME_PARTS,
    card_name,
    dev_name,
    event_text,
    seat_map,
    seat_name,
    words,
)
from mundus_net.engine.deck import EVENT_NAMES, Deck

__all__ = [
    "GAIN_WORDS", "HELP", "Help", "RoundReport", "SeatRound", "gain_source", "help_lines",
    "help_text", "help_title", "round_gains", "round_report", "round_summary", "rules_for",
    "rules_text", "split_rounds"
]


@dataclass(frozen=True)
class Help:
    title: str
    rules: tuple[str, ...]
    text: str


_TURN = N_(
    "Make combinations from your hand, in any order, then end the turn. "
    "An identical set (3, 4 or 5 cards of one value; relics are wild) takes one development "
    "card from the queue: 3 common cards reach card 1, 4 reach cards 1-3, 5 any card; "
    "3 uncommon reach cards 1-3, 4 or more any card; 3 or more rare reach any card. "
    "One set per turn (any number with King's Aid). "
    "A series (4 to 9 distinct values, no relics) pays 5/7/10/15/20/25 for 4/5/6/7/8/9 cards "
    "(Indigenous People: 1 per card); one per turn. "
    "A relic set (1 to 5 relics alone) pays 3/7/12/18/25; one per turn. "
    "The perfect combination (values 1-9 and a relic) wins at the end of the round. "
    "A card serves in one combination only. Each merchant turns one card into a value of its "
    "class once per round, and a development works as soon as you take it. "
    "When you end the turn you receive your developments' income and shipyards pay 1 for each "
    "opponent with more caravels; you keep your other cards until everyone has played."
)

HELP: dict[str, Help] = {
    "coronado": Help(
        N_("Coronado: impose an event?"), ("R3.3", "R3.4", "R1.4"),
        N_(
            "Queue card 1 shows no event icon, so as Francisco de Coronado's owner you may pay 2 "
            "doubloons to impose one of the five events on this round, or pass. Juan de la Cosa's "
            "owner is never affected by an event.")),
    "split": Help(
        N_("Ponce de León: split your fleet?"), ("R4.4", "R4.5", "R4.6"),
        N_(
            "You may split your caravels into two fleets for this round's picks, or keep one "
            "fleet. Fleets pick from the caravel display in ascending fleet value, each taking one "
            "card per caravel: a small fleet picks early but takes few cards.")),
    "pick": Help(
        N_("Pick cards for your fleet"), ("R4.3", "R4.5", "R4.6"),
        N_(
            "Your fleet takes one card per caravel from the caravel display, all at once. Fleets "
            "pick in ascending fleet value; on a tie the fleet with the lowest caravel goes first, "
            "then seat order from the Trade Master. Pizarro's owner counts his highest caravel as "
            "0.")),
    "sergio": Help(
        N_("Sergio de Lagio: buy a market card?"), ("P01", "R1.4"),
        N_(
            "You may pay 2 doubloons to take one market card into your hand; the market is "
            "refilled from the draw pile. Or pass.")),
    "pirates": Help(
        N_("Pirates: discard"), ("R4.7", "R3.4"),
        N_(
            "Pirates: discard one card of your choice for each of your fleets of two or more "
            "caravels. Everyone affected chooses at the same time and the discards are revealed "
            "together.")),
    "announce": Help(
        N_("Announce the offer size"), ("R5.1", "R5.2", "R5.4"),
        N_(
            "You are the Trade Master: announce 2, 3 or 4, the number of cards everyone offers. "
            "The highest offer (the sum of its trade values, 1-9 and 10 for a relic) makes its "
            "owner the next Trade Master, who takes first.")),
    "offer": Help(
        N_("Choose your offer"), ("R5.2", "R5.3", "R5.4", "R5.11"),
        N_(
            "Choose the cards you offer, face down: exactly the announced number, or your whole "
            "hand if it is smaller (Bartolomé de las Casas's owner may offer fewer, even none). "
            "The offers are revealed together. The highest score (trade values, relic 10, "
            "Valdivia +3) becomes Trade Master; on a tie the current TM keeps the token if he is "
            "among the highest, else he chooses. Offered cards stay yours until someone takes "
            "them; what is left returns to your hand.")),
    "commit": Help(
        N_("Choose your offer (sealed)"), ("R5.2", "R5.3", "R5.4"),
        N_(
            "Choose the cards you offer: exactly the announced number, or your whole hand if it is "
            "smaller (Las Casas's owner may offer fewer). Your client seals the offer with a "
            "commitment, so nobody can see or change an offer before every offer is fixed; then "
            "all are revealed together and the highest score becomes Trade Master.")),
    "reveal": Help(
        N_("Revealing the offers"), ("R5.3",),
        N_(
            "Every offer is sealed. Your client now reveals yours; the host checks it against your "
            "commitment, and every client checks everyone's.")),
    "tm_tie": Help(
        N_("Choose the new Trade Master"), ("R5.4",),
        N_(
            "Several offers tie for the highest score and you, the Trade Master, are not among "
            "them: choose the new Trade Master among the tied players.")),
    "take": Help(
        N_("Take a card"), ("R5.5", "R5.6", "R5.7", "R5.8", "R5.10"),
        N_(
            "Take one face-up offered card of another player. Keep it, or put it in the market "
            "and take one of the market cards instead (the market stays at 3 cards). The player "
            "you took from takes next. No ping-pong: if you took from a player who then took from "
            "you, you may not take from that player again right away (unless only their cards are "
            "left; not with 2 players). Trading ends when the next taker has no card of another "
            "player to take. Orellana's owner gains 2 doubloons each time a swap leaves the market "
            "with three identical cards or three consecutive values.")),
    "gift": Help(
        N_("Give a card (balance)"), ("R5.9",),
        N_(
            "Trading is over and the last taker is not you, the Trade Master: they are one card "
            "short, so give them one card of your choice from your hand. Only the two of you see "
            "which card.")),
    "first": Help(
        N_("Choose who plays first"), ("R6.1",),
        N_(
            "As Trade Master, choose who takes the first progression turn (yourself included); "
            "the others follow in seat order. The first player has the pick of the queue.")),
    "turn": Help(
        N_("Your progression turn"),
        ("R6.2", "R6.3", "R6.4", "R6.5", "R6.6", "R6.7", "R6.8", "R8.1"), _TURN),
    "store": Help(
        N_("Store cards (end of the round)"), ("R6.9", "R6.10", "R4.1"),
        N_(
            "Everyone has played: every player with warehouses chooses at the same time, in "
            "secret, which cards to keep, up to the warehouses' capacity. Stored cards come back "
            "to your hand at the start of the next round, before the deal, and opponents do not "
            "see them. Then every hand is discarded at once, face up. No storing under Fire. "
            "Queue card 1 now shows next round's event.")),
    "over": Help(
        N_("The game is over"), ("R8.1", "R8.2", "R8.3", "R8.4"),
        N_(
            "At the end of a round the game ends if someone showed the perfect combination (they "
            "win; several: the richest of them), if someone has 75 doubloons or more (the richest "
            "wins), or if the queue could not be refilled (the richest wins). A tie for richest "
            "is a shared victory.")),
}


def rules_for(kind: str) -> tuple[str, ...]:
    """The docs/rules.md IDs that apply to a decision kind (empty if unknown)."""
    found = HELP.get(kind)
    return found.rules if found is not None else ()


def rules_text(kind: str) -> str:
    """The rule IDs, runs of consecutive rules shortened: ``"R5.5-R5.8, R5.10"``."""
    out: list[str] = []
    run: list[tuple[str, int]] = []  # (section, number) of consecutive rules

    def flush() -> None:
        if run:
            first, last = run[0], run[-1]
            if len(run) <= 2:
                out.extend(f"{sec}.{num}" for sec, num in run)
            else:
                out.append(f"{first[0]}.{first[1]}-{last[0]}.{last[1]}")
            run.clear()

    for rule in rules_for(kind):
        section, _, number = rule.partition(".")
        if not number.isdigit():
            flush()
            out.append(rule)
            continue
        if run and not (run[-1][0] == section and run[-1][1] + 1 == int(number)):
            flush()
        run.append((section, int(number)))
    flush()
    return ", ".join(out)


def help_text(kind: str, view: View | None = None, t: Translator | None = None) -> str:
    """What to do for this decision and the rules that apply; with a view, the round's event
    where it changes the decision."""
    t = t or current()
    found = HELP.get(kind)
    if found is None:
        return t._("{step}: no help for this step.").format(step=kind)
    parts = [t._("{title}.").format(title=t._(found.title)), t._(found.text)]
    if view is not None and view.event is not None and view.seat is not None:
        event = view.event
        relevant = {"turn": ("KA", "IP", "ST"), "store": ("FI",), "pirates": ("PI",)}
        if event in relevant.get(kind, ()):
            if affected(view, view.seat):
                parts.append(t._("This round: {event}.").format(event=event_text(event, t)))
            else:
                name = t.event(event) if event in EVENT_NAMES else event
                parts.append(t._("This round's {event} does not affect you (Juan de la "
                                 "Cosa).").format(event=name))
    parts.append(t._("Rules: {rules}. See docs/rules.md.").format(rules=", ".join(found.rules)))
    return " ".join(parts)


def help_title(kind: str, t: Translator | None = None) -> str:
    """The help's title for a decision kind, in ``t``'s language ("" if unknown)."""
    found = HELP.get(kind)
    return (t or current())._(found.title) if found is not None else ""


def wrap_cells(text: str, width: int) -> list[str]:
    """``text`` wrapped at its spaces to lines of at most ``width`` terminal cells: a Korean
    syllable takes two cells, so counting characters (``textwrap``) gives lines too wide. A
    word wider than the line is broken between characters."""
    if get_cwidth(text) == len(text):
        return textwrap.wrap(text, width)
    lines: list[str] = []
    line, used = "", 0
    for word in text.split():
        w = get_cwidth(word)
        if line and used + 1 + w <= width:
            line, used = f"{line} {word}", used + 1 + w
            continue
        if line:
            lines.append(line)
        line, used = "", 0
        while w > width:  # a word wider than the whole line: break it in cells
            piece, pw = "", 0
            for ch in word:
                cw = get_cwidth(ch)
                if pw + cw > width:
                    break
                piece, pw = piece + ch, pw + cw
            lines.append(piece)
            word, w = word[len(piece):], w - pw
        line, used = word, w
    if line:
        lines.append(line)
    return lines


def help_lines(kind: str, width: int, view: View | None = None,
               t: Translator | None = None) -> list[str]:
    """:func:`help_text` wrapped to ``width`` terminal cells, the title on lines of its own."""
    t = t or current()
    found = HELP.get(kind)
    text = help_text(kind, view, t)
    if found is None:
        return wrap_cells(text, width)
    title = help_title(kind, t)
    body = text[len(t._("{title}.").format(title=title)) + 1:]
    return [*wrap_cells(title, width), *wrap_cells(body, width)]


# -- the round summary --------------------------------------------------------------------------

# Where doubloons come from, besides the income parts (sentences.INCOME_PARTS): the keys of
# round_gains, English, worded when shown.
GAIN_WORDS = {
    "Coronado": N_("Coronado"),
    "Sergio": N_("Sergio"),
    "Orellana": N_("Orellana"),
    "Vicente": N_("Vicente"),
    "series": N_("series"),
    "relic set": N_("relic set"),
}


def gain_source(source: str, t: Translator | None = None) -> str:
    """A key of :func:`round_gains` in ``t``'s language."""
    if source in GAIN_WORDS or source in INCOME_PARTS.values():
        return words(source, t)
    return source


@dataclass
class _Ledger:
    gains: dict[str, int] = field(default_factory=dict)
    took: list[str] = field(default_factory=list)
    developments: list[str] = field(default_factory=list)  # the names alone, as took
    notes: list[str] = field(default_factory=list)

    def add(self, source: str, amount: int) -> None:
        if amount:
            self.gains[source] = self.gains.get(source, 0) + amount


def split_rounds(events: Iterable[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """The events cut into rounds, each starting at its ``round`` event (what comes before
    round 1, the setup, is left out)."""
    rounds: list[list[Mapping[str, Any]]] = []
    for event in events:
        if event.get("kind") == "round":
            rounds.append([])
        if rounds:
            rounds[-1].append(event)
    return rounds


@dataclass
class _Tally:
    ledgers: dict[int, _Ledger] = field(default_factory=dict)
    round: int | None = None
    event: str | None = None
    final: dict[int, int] = field(default_factory=dict)
    tm: int | None = None

    def __call__(self, seat: Any) -> _Ledger:
        return self.ledgers.setdefault(int(seat), _Ledger())


def _tally(events: Iterable[Mapping[str, Any]], deck: Deck | None, t: Translator) -> _Tally:
    tally = _Tally()
    for e in events:
        kind = e.get("kind")
        if kind == "round":
            tally.round = int(e["round"])
        elif kind == "event":
            tally.event = e.get("event")
            if e.get("source") == "coronado":
                tally(e["seat"]).add("Coronado", -2)
        elif kind == "buy":
            tally(e["seat"]).add("Sergio", -2)
        elif kind == "trade_master":
            tally.tm = int(e["seat"])
        elif kind == "take" and e.get("orellana"):
            tally(e["seat"]).add("Orellana", int(e["orellana"]))
        elif kind == "series":
            tally(e["seat"]).add("series", int(e["gain"]))
        elif kind == "relics":
            tally(e["seat"]).add("relic set", int(e["gain"]))
        elif kind == "perfect":
            tally(e["seat"]).notes.append(t._("showed the perfect combination"))
        elif kind == "set":
            size = len(e.get("cards") or ())
            value = card_name(int(e["value"]), t)
            if e.get("target") == "cash":
                tally(e["seat"]).add("Vicente", int(e.get("gain") or 0))
                tally(e["seat"]).notes.append(t._("sold a set of {count} {card}").format(
                    count=size, card=value))
            else:
                name = dev_name(str(e["development"]), deck, t)
                tally(e["seat"]).took.append(t._("{development} (set of {count} {card})").format(
                    development=name, count=size, card=value))
                tally(e["seat"]).developments.append(name)
        elif kind == "income":
            for part, amount in dict(e.get("parts") or {}).items():
                tally(e["seat"]).add(INCOME_PARTS.get(str(part), str(part)), int(amount))
        elif kind == "round_end":
            tally.final = dict(enumerate(int(m) for m in e.get("doubloons") or ()))
        elif kind == "pirates":
            for seat, cards in seat_map(e.get("discards")).items():
                tally(seat).notes.append(t.ngettext("lost {count} card to pirates",
                                                    "lost {count} cards to pirates",
                                                    len(cards)).format(count=len(cards)))
    return tally


def round_gains(events: Iterable[Mapping[str, Any]]) -> dict[int, dict[str, int]]:
    """Doubloons won (or paid, negative) in one round, by seat and by source (the English
    keys of :data:`GAIN_WORDS` and sentences.INCOME_PARTS: :func:`gain_source` words them)."""
    return {seat: dict(book.gains)
            for seat, book in _tally(events, None, current()).ledgers.items() if book.gains}


def _sources(book: _Ledger, t: Translator) -> str:
    return t._(", ").join(f"{gain_source(k, t)} {v:+d}" if v < 0 else f"{gain_source(k, t)} {v}"
                          for k, v in book.gains.items())


def round_summary(events: Iterable[Mapping[str, Any]], names: Sequence[str],
                  deck: Deck | None = None, t: Translator | None = None) -> list[str]:
    """Who gained what in one round and why: doubloons from series, relic sets, income,
    shipyards, Orellana and Vicente (and what Coronado and Sergio cost), and the developments
    taken. ``events`` are the public events of one round, in either shape."""
    t = t or current()
    tally = _tally(events, deck, t)
    head = t._("Round {round}").format(round=tally.round) if tally.round is not None \
        else t._("This round")
    if tally.event is not None:
        head += f" — {event_text(tally.event, t)}"
    if tally.tm is not None:
        head = t._("{round}; Trade Master {seat}").format(
            round=head, seat=seat_name(names, tally.tm, t))
    lines = [head]
    for seat in sorted(set(tally.ledgers) | set(tally.final) | set(range(len(names)))):
        book = tally.ledgers.get(seat, _Ledger())
        who = seat_name(names, seat, t)
        if book.gains:
            parts = [t._("{seat}: {gain} ({sources})").format(
                seat=who, gain=f"{sum(book.gains.values()):+d}", sources=_sources(book, t))]
        else:
            parts = [t._("{seat}: no doubloons").format(seat=who)]
        if seat in tally.final:
            parts.append(t._("now {count}").format(count=tally.final[seat]))
        if book.took:
            parts.append(t._("took {developments}").format(
                developments=t._(", ").join(book.took)))
        parts += book.notes
        lines.append(t._("; ").join(parts))
    return lines


@dataclass(frozen=True)
class SeatRound:
    """One seat's round: doubloons gained (or paid) and from what, its doubloons at the end,
    the developments it took and what else befell it."""

    seat: int
    gained: int
    sources: str  # "series 5, income 2", or ""
    now: int | None
    took: tuple[str, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class RoundReport:
    """A round's summary in parts, for a screen that lays it out in columns."""

    round: int | None
    event: str | None
    tm: int | None
    seats: tuple[SeatRound, ...]


def round_report(events: Iterable[Mapping[str, Any]], players: int,
                 deck: Deck | None = None, t: Translator | None = None) -> RoundReport:
    """What :func:`round_summary` says, in parts: one :class:`SeatRound` per seat."""
    t = t or current()
    tally = _tally(events, deck, t)
    seats = []
    for seat in sorted(set(tally.ledgers) | set(tally.final) | set(range(players))):
        book = tally.ledgers.get(seat, _Ledger())
        seats.append(SeatRound(seat, sum(book.gains.values()), _sources(book, t),
                               tally.final.get(seat), tuple(book.developments),
                               tuple(book.notes)))
    return RoundReport(tally.round, tally.event, tally.tm, tuple(seats))
