"""The game log's sentences, in the player's language: one public event in, one line out (or
None).

Events arrive in two shapes and both are read here: as the engine logs them
(``mundus_net.engine.view.public_log``: tuples, seat maps keyed by int, decisions as objects) and as
they come over the network (``mundus_net.protocol.codec.to_wire``: lists, seat maps keyed by decimal
strings). A seat's private parts may be merged in (its dealt cards, its offer, the card of a
gift, what it stored). The host's own events (docs/protocol.md section 9) are read too.

Sentences name seats by their players' names; the reading seat is "you". The host sends ids and
numbers only: each function takes a :class:`~mundus_net.client.i18n.Translator` (``t``; the
process's :func:`~mundus_net.client.i18n.current` one when not given, English until the client
chooses) and words the event in that language, placeholders filled after translation. A
sentence about the reader ("You took ...") and about another seat ("{seat} took ...") are two
messages, so each language can conjugate its verb.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mundus_net.client.i18n import N_, Translator, current
from mundus_net.engine.cards import CLASS_OF, RELIC, RESOURCE_NAMES
from mundus_net.engine.deck import EVENT_NAMES, CardDef, Deck

__all__ = [
    "CLASS_WORDS", "ENGINE_KINDS", "EVENT_EFFECTS", "HOST_KINDS", "INCOME_PARTS", "KNOWN_KINDS",
    "PHASE_WORDS", "POWER_EFFECTS", "POWER_NAMES", "REASONS", "Narrator", "card_name",
    "cards_text", "dev_name", "development_effect", "event_text", "income_part", "plural",
    "seat_map", "seat_name", "sentence", "words"
]

# What each event does, in a few words (R3.5, R4.7, R6.2, R6.3, R6.9).
EVENT_EFFECTS = {
    "KA": N_("any number of identical sets per turn"),
    "IP": N_("a series pays 1 doubloon per card"),
    "ST": N_("sets reach queue card 1 only"),
    "FI": N_("no cards may be stored this round"),
    "PI": N_("discard 1 card per fleet of 2+ caravels"),
}

# Short names of the characters and buildings, by power (players table, summaries).
POWER_NAMES = {
    "almagro": N_("Almagro"),
    "cosa": N_("Cosa"),
    "casas": N_("Casas"),
    "pizarro": N_("Pizarro"),
    "valdivia": N_("Valdivia"),
    "orellana": N_("Orellana"),
    "cortes": N_("Cortés"),
    "ponce": N_("Ponce"),
    "coronado": N_("Coronado"),
    "sergio": N_("Sergio"),
    "buron": N_("Burón"),
    "estefano": N_("Estefano"),
    "vicente": N_("Vicente"),
    "tradingpost": N_("Trading Post"),
}

# What a character or building does, in a few words (docs/rules.md sections 9 and 10).
POWER_EFFECTS = {
    "almagro": N_("sets may take the pile's top card"),
    "cosa": N_("no event affects him"),
    "casas": N_("offers any number of cards"),
    "pizarro": N_("top caravel counts 0"),
    "valdivia": N_("+3 offer score"),
    "orellana": N_("+2 for market runs/triples"),
    "cortes": "",
    "ponce": N_("may split the fleet"),
    "coronado": N_("may impose an event (2)"),
    "sergio": N_("may buy a market card (2)"),
    "buron": N_("+1 income per character"),
    "estefano": N_("+3 when TM"),
    "vicente": N_("may sell a set of 3"),
    "tradingpost": N_("+1 per merchant/warehouse"),
}

CLASS_WORDS = {1: N_("common"), 2: N_("uncommon"), 3: N_("rare")}

INCOME_PARTS = {
    "printed": N_("income"),
    "buron": N_("Burón"),
    "tradingpost": N_("Trading Post"),
    "estefano": N_("Estefano"),
    "shipyards": N_("shipyards"),
}

REASONS = {
    "perfect": N_("the perfect combination"),
    "doubloons": N_("75 doubloons reached"),
    "queue": N_("the queue ran out"),
    "round_limit": N_("the round limit"),
}

PHASE_WORDS = {
    "coronado": N_("choose an event (Coronado)"),
    "split": N_("split the fleet"),
    "pick": N_("pick cards for a fleet"),
    "sergio": N_("buy a market card (Sergio)"),
    "pirates": N_("discard to the pirates"),
    "announce": N_("announce the number of cards"),
    "offer": N_("choose an offer"),
    "commit": N_("choose an offer"),
    "reveal": N_("reveal the offer"),
    "tm_tie": N_("choose the new Trade Master"),
    "take": N_("take a card"),
    "gift": N_("give a card (balance)"),
    "first": N_("choose who plays first"),
    "turn": N_("progression turn"),
    "store": N_("store cards"),
    "over": N_("game over"),
}


def words(message: str, t: Translator | None = None) -> str:
    """One of the tables' words above in ``t``'s language ("" stays "")."""
    return (t or current())._(message) if message else message


# -- words for values ---------------------------------------------------------------------------


def card_name(card: int, t: Translator | None = None) -> str:
    t = t or current()
    if card in RESOURCE_NAMES:
        return t.resource(card)
    return t._("card {number}").format(number=card)


def cards_text(cards: Iterable[int], t: Translator | None = None) -> str:
    """``(2, 2, 4, 10)`` -> ``"corn, corn, coffee, relic"``; nothing -> ``"nothing"``."""
    t = t or current()
    names = [card_name(c, t) for c in sorted(cards)]
    return t._(", ").join(names) if names else t._("nothing")


def plural(count: int, word: str, words: str | None = None) -> str:
    """English only (the tools' words); the client's sentences use ``ngettext``."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def seat_name(names: Sequence[str], seat: int | None, t: Translator | None = None) -> str:
    """The player's name; "Seat N" (N the 0-based seat index) for a seat without one, "the
    host" for seat -1 (what a fair-deal warning names) and "nobody" for no seat (None: a
    state without its Trade Master or turn yet, as a table that is only starting)."""
    t = t or current()
    if seat is None:
        return t._("nobody")
    if seat == -1:
        return t._("the host")
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return t._("Seat {number}").format(number=seat)


def dev_name(card_id: str, deck: Deck | None, t: Translator | None = None) -> str:
    if deck is not None and card_id in deck.by_id:
        return (t or current()).card(deck[card_id])
    return card_id


def event_text(event: str | None, t: Translator | None = None) -> str:
    """``"ST"`` -> ``"Storm — sets reach queue card 1 only"``."""
    t = t or current()
    if event is None:
        return t._("no event")
    name = t.event(event) if event in EVENT_NAMES else event
    return f"{name} — {words(EVENT_EFFECTS.get(event, ''), t)}".rstrip(" —")


def development_effect(card: CardDef, *, income: bool = True,
                       t: Translator | None = None) -> str:
    """What a development does, in a few words: ``"caravel 7"``, ``"merchant → rare"``."""
    t = t or current()
    if card.kind == "caravel":
        text = t._("caravel {value}").format(value=card.caravel)
    elif card.kind == "merchant":
        text = t._("merchant → {rarity}").format(
            rarity=words(CLASS_WORDS.get(card.merchant_class, "?"), t))
    elif card.kind == "warehouse":
        text = t._("stores {count}").format(count=card.capacity)
    elif card.kind == "shipyard":
        text = t._("shipyard: +1 per bigger fleet")
    else:
        text = words(POWER_EFFECTS.get(card.power, ""), t)
    if income and card.income:
        per_round = t._("+{income}/round").format(income=card.income)
        text = t._("{effect}, {income}").format(effect=text, income=per_round) if text \
            else per_round
    return text


def seat_map(value: Any) -> dict[int, Any]:
    """A seat map from either shape (int keys from the engine, decimal strings off the wire)."""
    if not isinstance(value, Mapping):
        return {}
    return {int(k): v for k, v in value.items()}


# -- who ----------------------------------------------------------------------------------------


class _Who:
    """Seat names as a sentence needs them; the reading seat is "you" (a word for each place
    in a sentence, as languages decline it)."""

    def __init__(self, names: Sequence[str], me: int | None, t: Translator) -> None:
        self.names = names
        self.me = me
        self.t = t

    def me_(self, seat: Any) -> bool:
        return bool(seat == self.me)

    def name(self, seat: Any) -> str:
        return seat_name(self.names, int(seat), self.t)

    def subj(self, seat: Any) -> str:
        return self.t.pgettext("seat, subject", "You") if seat == self.me else self.name(seat)

    def obj(self, seat: Any) -> str:
        """The seat in a list ("Ana 3, you 5") or as a sentence's object."""
        return self.t.pgettext("seat, object", "you") if seat == self.me else self.name(seat)

    def to(self, seat: Any) -> str:
        """The seat something is given to or done for."""
        return self.t.pgettext("seat, to", "you") if seat == self.me else self.name(seat)

    def from_(self, seat: Any) -> str:
        """The seat something is taken from."""
        return self.t.pgettext("seat, from", "you") if seat == self.me else self.name(seat)

    def cards(self, cards: Iterable[int]) -> str:
        return cards_text(cards, self.t)

    def card(self, card: int) -> str:
        return card_name(card, self.t)

    def list(self, items: Iterable[str]) -> str:
        """``Ana corn; you coffee``: a list of seats' parts."""
        return self.t._("; ").join(items)


# -- the sentences ------------------------------------------------------------------------------

_Event = Mapping[str, Any]
_Handler = Callable[[_Event, _Who, "Deck | None", "int | None"], "str | None"]


def sentence(event: Mapping[str, Any], names: Sequence[str], me: int | None = None,
             deck: Deck | None = None, round: int | None = None,
             t: Translator | None = None) -> str | None:
    """One event as a plain sentence in ``t``'s language, or None if it is not worth a line.

    ``names`` are the players' names by seat, ``me`` the reading seat (None: a spectator),
    ``deck`` gives development names (ids without it) and ``round`` the current round, which
    the event line mentions.
    """
    kind = event.get("kind")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        return None
    return handler(event, _Who(names, me, t or current()), deck, round)


class Narrator:
    """Turns a stream of events into sentences, remembering the round between them."""

    def __init__(self, names: Sequence[str], me: int | None = None,
                 deck: Deck | None = None, t: Translator | None = None) -> None:
        self.names = list(names)
        self.me = me
        self.deck = deck
        self.round: int | None = None
        self.t = t

    def __call__(self, event: Mapping[str, Any]) -> str | None:
        kind = event.get("kind")
        if kind == "round":
            self.round = int(event["round"])
        elif kind == "joined" and isinstance(event.get("seat"), int):
            seat = event["seat"]
            while len(self.names) <= seat:
                self.names.append("")
            self.names[seat] = str(event.get("name", ""))
        return sentence(event, self.names, self.me, self.deck, self.round, self.t)


def _setup(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, tm = who.t, e["tm"]
    text = t._("A new game for {players} players: you have the Trade Master token; the market "
               "holds {market}") if who.me_(tm) else \
        t._("A new game for {players} players: {seat} has the Trade Master token; the market "
            "holds {market}")
    return text.format(players=e.get("players"), seat=who.name(tm),
                       market=who.cards(e.get("market", ())))


def _round(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, tm = who.t, e.get("tm")
    if tm is None:
        text = t._("Round {round} begins")
    elif who.me_(tm):
        text = t._("Round {round} begins (you are Trade Master)")
    else:
        text = t._("Round {round} begins ({seat} is Trade Master)")
    return text.format(round=e["round"], seat="" if tm is None else who.name(tm))


def _event(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, code = who.t, e.get("event")
    if e.get("source") == "coronado" and code is not None:
        text = t._("You paid 2 doubloons (Coronado) to impose {event}") if who.me_(e["seat"]) \
            else t._("{seat} paid 2 doubloons (Coronado) to impose {event}")
        return text.format(seat=who.name(e["seat"]), event=event_text(code, t))
    if code is None:
        if "seat" not in e:
            what = t._("no event")
        else:
            what = (t._("no event (You did not use Coronado)") if who.me_(e["seat"])
                    else t._("no event ({seat} did not use Coronado)")).format(
                seat=who.name(e["seat"]))
    else:
        what = event_text(code, t)
    head = t._("Round {round}: {what}") if rnd is not None else t._("This round: {what}")
    return head.format(round=rnd, what=what)


def _unstore(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    if "cards" in e:
        text = t._("You took {cards} back from the warehouses") if who.me_(seat) \
            else t._("{seat} took {cards} back from the warehouses")
        return text.format(seat=who.name(seat), cards=who.cards(e["cards"]))
    count = int(e["count"])
    text = t.ngettext("You took {count} stored card back into hand",
                      "You took {count} stored cards back into hand", count) if who.me_(seat) \
        else t.ngettext("{seat} took {count} stored card back into hand",
                        "{seat} took {count} stored cards back into hand", count)
    return text.format(seat=who.name(seat), count=count)


def _deal(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t = who.t
    if "cards" in e:
        return t._("You were dealt {cards}").format(cards=who.cards(e["cards"]))
    counts = seat_map(e.get("counts"))
    sizes = set(counts.values())
    if len(sizes) == 1:
        count = int(sizes.pop())
        return t.ngettext("Each player was dealt {count} card",
                          "Each player was dealt {count} cards", count).format(count=count)
    parts = t._(", ").join(f"{who.obj(s)} {n}" for s, n in sorted(counts.items()))
    return t._("Cards dealt: {counts} (the piles ran low)").format(counts=parts)


def _reshuffle(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    count = int(e["size"])
    return who.t.ngettext("The discard pile ({count} card) was shuffled into a new draw pile",
                          "The discard pile ({count} cards) was shuffled into a new draw pile",
                          count).format(count=count)


def _display(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    cards = e.get("cards") or ()
    if not cards:
        return None
    return who.t._("Caravel display: {cards}").format(cards=who.cards(cards))


def _fleet_text(fleet: Iterable[str], deck: Deck | None) -> str:
    values = [str(deck[c].caravel) if deck is not None and c in deck.by_id else c for c in fleet]
    return "+".join(values) or "-"


def _split(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    fleets = list(e.get("fleets") or ())
    if len(fleets) < 2:
        text = t._("You kept the caravels in one fleet") if who.me_(seat) \
            else t._("{seat} kept the caravels in one fleet")
        return text.format(seat=who.name(seat))
    parts = _and(t, [_fleet_text(f, deck) for f in fleets])
    text = t._("You split the caravels into two fleets: {fleets}") if who.me_(seat) \
        else t._("{seat} split the caravels into two fleets: {fleets}")
    return text.format(seat=who.name(seat), fleets=parts)


def _and(t: Translator, items: Sequence[str]) -> str:
    """``a and b and c``, in ``t``'s language."""
    text = items[0] if items else ""
    for item in items[1:]:
        text = t._("{first} and {second}").format(first=text, second=item)
    return text


def _pick(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    text = t._("Your fleet ({fleet}) picked {cards}") if who.me_(seat) \
        else t._("{seat}'s fleet ({fleet}) picked {cards}")
    return text.format(seat=who.name(seat), fleet=_fleet_text(list(e.get("fleet") or ()), deck),
                       cards=who.cards(e["cards"]))


def _buy(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    text = t._("You paid 2 doubloons (Sergio) for the market's {card}; the market now holds "
               "{market}") if who.me_(seat) else \
        t._("{seat} paid 2 doubloons (Sergio) for the market's {card}; the market now holds "
            "{market}")
    return text.format(seat=who.name(seat), card=who.card(e["card"]),
                       market=who.cards(e.get("market", ())))


def _pirates(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    lost = who.list(f"{who.obj(s)} {who.cards(c)}"
                    for s, c in sorted(seat_map(e.get("discards")).items()))
    if not lost:
        return who.t._("Pirates! Nobody lost a card")
    return who.t._("Pirates! Cards lost: {lost}").format(lost=lost)


def _announce(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat, n = who.t, e["seat"], int(e["n"])
    text = t.ngettext("You announced {n}: everyone offers {n} card",
                      "You announced {n}: everyone offers {n} cards", n) if who.me_(seat) \
        else t.ngettext("{seat} announced {n}: everyone offers {n} card",
                        "{seat} announced {n}: everyone offers {n} cards", n)
    return text.format(seat=who.name(seat), n=e["n"])


def _offer(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    # Only your own offer is worth a line: the reveal shows everyone's at once.
    if "cards" in e:
        return who.t._("You offered {cards}").format(cards=who.cards(e["cards"]))
    return None


def _reveal(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    scores = list(e.get("scores") or ())
    parts = []
    for s, cards in sorted(seat_map(e.get("offers")).items()):
        score = f" ({scores[s]})" if s < len(scores) else ""
        parts.append(f"{who.obj(s)} {who.cards(cards)}{score}")
    return who.t._("Offers revealed: {offers}").format(offers=who.list(parts))


def _trade_master(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    if seat == e.get("previous"):
        text = t._("You stay Trade Master with the best offer") if who.me_(seat) \
            else t._("{seat} stays Trade Master with the best offer")
    else:
        text = t._("You are the new Trade Master") if who.me_(seat) \
            else t._("{seat} is the new Trade Master")
    return text.format(seat=who.name(seat))


def _take(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    card, swap = e["card"], e.get("swap")
    text = (t._("You took {card} from {source}") if who.me_(seat)
            else t._("{seat} took {card} from {source}")).format(
        seat=who.name(seat), card=who.card(card), source=who.from_(e["source"]))
    if swap is not None:
        if swap == card:
            text = t._("{took} and swapped it for the market's other {card}").format(
                took=text, card=who.card(swap))
        else:
            text = t._("{took} and swapped it for {card} in the market").format(
                took=text, card=who.card(swap))
    if e.get("orellana"):
        gain = int(e["orellana"])
        text = t.ngettext("{took}, earning {count} doubloons (Orellana)",
                          "{took}, earning {count} doubloons (Orellana)", gain).format(
            took=text, count=e["orellana"])
    return text


def _trade_end(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t = who.t
    text = t._("Trading is over: nothing left for {seat} to take").format(
        seat=who.to(e["last"]))
    returned = seat_map(e.get("returned"))
    if returned:
        back = who.list(f"{who.obj(s)} {who.cards(c)}" for s, c in sorted(returned.items()))
        text = t._("{over}; cards left face up went back: {back}").format(over=text, back=back)
    return text


def _gift(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat, to = who.t, e["seat"], e["to"]
    if "card" in e:
        text = t._("You gave {card} to {to} (balance)") if who.me_(seat) \
            else t._("{seat} gave {card} to {to} (balance)")
    else:
        text = t._("You gave {to} one card from hand (balance)") if who.me_(seat) \
            else t._("{seat} gave {to} one card from hand (balance)")
    return text.format(seat=who.name(seat), to=who.to(to),
                       card=who.card(e["card"]) if "card" in e else "")


def _first(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, first, seat = who.t, e["first"], e["seat"]
    if first == seat:
        text = t._("You will play first") if who.me_(first) \
            else t._("{seat} will play first")
    else:
        text = t._("You chose {first} to play first") if who.me_(seat) \
            else t._("{seat} chose {first} to play first")
    return text.format(seat=who.name(seat), first=who.obj(first))


def _convert(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat, value = who.t, e["seat"], int(e["value"])
    cls = words(CLASS_WORDS.get(CLASS_OF[value], ""), t) if 1 <= value <= 9 else ""
    text = t._("Your {rarity} merchant turned {source} into {value}") if who.me_(seat) \
        else t._("{seat}'s {rarity} merchant turned {source} into {value}")
    return text.format(seat=who.name(seat), rarity=cls, source=who.card(e["source"]),
                       value=who.card(value))


def _set_cards(value: int, cards: Iterable[int], t: Translator) -> str:
    cards = list(cards)
    relics = sum(1 for c in cards if c == RELIC)
    own = len(cards) - relics
    if own == 0:
        return t.ngettext("{count} relic as {value}", "{count} relics as {value}",
                          relics).format(count=relics, value=card_name(value, t))
    if relics == 0:
        return card_name(value, t)
    return t.ngettext("{value} ({count} relic)", "{value} ({count} relics)", relics).format(
        count=relics, value=card_name(value, t))


def _set(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    cards = list(e.get("cards") or ())
    head = (t._("You made a set of {count} {cards}") if who.me_(seat)
            else t._("{seat} made a set of {count} {cards}")).format(
        seat=who.name(seat), count=len(cards), cards=_set_cards(int(e["value"]), cards, t))
    target = e.get("target")
    if target == "cash":
        gain = int(e.get("gain") or 0)
        return t.ngettext("{made} and sold it for {count} doubloons (Vicente)",
                          "{made} and sold it for {count} doubloons (Vicente)", gain).format(
            made=head, count=e.get("gain"))
    dev = dev_name(str(e.get("development")), deck, t)
    if target == "draw":
        return t._("{made} and drew {card} from the development pile (Almagro)").format(
            made=head, card=dev)
    text = t._("{made} and took {card} (queue card {position})").format(
        made=head, card=dev, position=target)
    refill = e.get("refill")
    if refill is not None:
        return t._("{took}; {card} joins the queue").format(
            took=text, card=dev_name(str(refill), deck, t))
    return t._("{took}; the queue cannot be refilled: the game ends this round").format(took=text)


def _series(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat, gain = who.t, e["seat"], int(e["gain"])
    cards = list(e.get("cards") or ())
    text = t.ngettext("You made a series of {size} ({cards}) for {count} doubloon",
                      "You made a series of {size} ({cards}) for {count} doubloons", gain) \
        if who.me_(seat) else \
        t.ngettext("{seat} made a series of {size} ({cards}) for {count} doubloon",
                   "{seat} made a series of {size} ({cards}) for {count} doubloons", gain)
    return text.format(seat=who.name(seat), size=len(cards), cards=who.cards(cards), count=gain)


def _relics(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat, gain = who.t, e["seat"], int(e["gain"])
    text = t.ngettext("You showed a relic set of {size} for {count} doubloon",
                      "You showed a relic set of {size} for {count} doubloons", gain) \
        if who.me_(seat) else \
        t.ngettext("{seat} showed a relic set of {size} for {count} doubloon",
                   "{seat} showed a relic set of {size} for {count} doubloons", gain)
    return text.format(seat=who.name(seat), size=e["size"], count=gain)


def _perfect(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    text = t._("You showed the PERFECT COMBINATION (values 1-9 and a relic): the game ends "
               "this round") if who.me_(seat) else \
        t._("{seat} showed the PERFECT COMBINATION (values 1-9 and a relic): the game ends "
            "this round")
    return text.format(seat=who.name(seat))


def income_part(part: str, t: Translator | None = None) -> str:
    """A source of income (``printed``, ``shipyards``, a power) in ``t``'s language."""
    return words(INCOME_PARTS[part], t) if part in INCOME_PARTS else part


def _income(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    t, seat = who.t, e["seat"]
    gain = int(e.get("gain") or 0)
    if not gain:
        return None
    parts = dict(e.get("parts") or {})
    detail = t._(", ").join(f"{income_part(str(k), t)} {v}" for k, v in parts.items())
    text = (t.ngettext("You received {count} doubloon", "You received {count} doubloons", gain)
            if who.me_(seat) else
            t.ngettext("{seat} received {count} doubloon", "{seat} received {count} doubloons",
                       gain)).format(seat=who.name(seat), count=gain)
    return t._("{received} ({detail})").format(received=text, detail=detail) if detail else text


def _revert(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    t, seat = who.t, e["seat"]
    pairs = [(int(a), int(b)) for a, b in e.get("cards") or ()]
    if not pairs:
        return None
    back = t._(", ").join(t._("{card} back to {original}").format(card=who.card(b),
                                                                  original=who.card(a))
                          for a, b in pairs)
    text = t._("Your converted cards left in hand turn back: {cards}") if who.me_(seat) \
        else t._("{seat}'s converted cards left in hand turn back: {cards}")
    return text.format(seat=who.name(seat), cards=back)


def _store(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    t, seat = who.t, e["seat"]
    if "cards" in e:
        if not e["cards"]:
            return None
        text = t._("You stored {cards} in the warehouses") if who.me_(seat) \
            else t._("{seat} stored {cards} in the warehouses")
        return text.format(seat=who.name(seat), cards=who.cards(e["cards"]))
    count = int(e.get("count") or 0)
    if not count:
        return None
    text = t.ngettext("You stored {count} card", "You stored {count} cards", count) \
        if who.me_(seat) else \
        t.ngettext("{seat} stored {count} card", "{seat} stored {count} cards", count)
    return text.format(seat=who.name(seat), count=count)


def _discard(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    t, seat = who.t, e["seat"]
    cards = e.get("cards") or ()
    if not cards:
        return None
    text = t._("You discarded {cards}") if who.me_(seat) else t._("{seat} discarded {cards}")
    return text.format(seat=who.name(seat), cards=who.cards(cards))


def _standings(who: _Who, money: Sequence[int]) -> str:
    order = sorted(range(len(money)), key=lambda s: (-money[s], s))
    return who.t._(", ").join(f"{who.obj(s)} {money[s]}" for s in order)


def _round_end(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return who.t._("Round {round} ends. Doubloons: {standings}").format(
        round=e["round"], standings=_standings(who, list(e["doubloons"])))


def _game_over(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t = who.t
    winners = [int(s) for s in e.get("winners") or ()]
    money = list(e.get("doubloons") or ())
    names = _and(t, [who.subj(s) if i == 0 else who.obj(s) for i, s in enumerate(winners)])
    best = money[winners[0]] if winners and winners[0] < len(money) else "?"
    count = best if isinstance(best, int) else 0
    reason_id = str(e.get("reason"))
    reason = words(REASONS[reason_id], t) if reason_id in REASONS else reason_id
    rounds = int(e.get("rounds") or 0)
    over = t.ngettext("Game over after {count} round ({reason})",
                      "Game over after {count} rounds ({reason})", rounds).format(
        count=rounds, reason=reason)
    if len(winners) > 1:
        text = t.ngettext("{over}: {names} share the victory with {best} doubloons",
                          "{over}: {names} share the victory with {best} doubloons", count)
    elif winners and winners[0] == who.me:
        text = t.ngettext("{over}: You win with {best} doubloons",
                          "{over}: You win with {best} doubloons", count)
    else:
        text = t.ngettext("{over}: {names} wins with {best} doubloons",
                          "{over}: {names} wins with {best} doubloons", count)
    return text.format(over=over, names=names, best=best)


def _decision(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> None:
    # The events a decision causes say what happened; the decision itself adds nothing.
    return None


# -- host events (docs/protocol.md section 9) ---------------------------------------------------


def _joined(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t = who.t
    name = str(e.get("name") or who.subj(e["seat"]))
    text = t._("{name} (a bot) took seat {number}") if e.get("bot") \
        else t._("{name} took seat {number}")
    return text.format(name=name, number=int(e["seat"]))


def _away(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    text = who.t._("You are away") if who.me_(e["seat"]) else who.t._("{seat} is away")
    return text.format(seat=who.name(e["seat"]))


def _back(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    text = who.t._("You are back") if who.me_(e["seat"]) else who.t._("{seat} is back")
    return text.format(seat=who.name(e["seat"]))


def _spectator(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t = who.t
    if e.get("name"):
        return t._("{name} is watching").format(name=e["name"])
    return t._("Someone is watching")


def _chat(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    seat = e.get("seat")
    name = e.get("name") or (who.subj(seat) if isinstance(seat, int) else who.t._("someone"))
    return f"<{name}> {e.get('text', '')}"


def _committed(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    text = who.t._("You sealed an offer") if who.me_(e["seat"]) \
        else who.t._("{seat} sealed an offer")
    return text.format(seat=who.name(e["seat"]))


def _commitments(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return who.t._("Every offer is sealed; the offers are being revealed")


def _reveals(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> None:
    # The engine's "reveal" event already says what everyone offered.
    return None


def _violation(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    reason = e.get("reason") or t._("a broken reveal")
    text = t._("Your answer was refused ({reason}); the default was played") if who.me_(seat) \
        else t._("{seat}'s answer was refused ({reason}); the default was played")
    return text.format(seat=who.name(seat), reason=reason)


def _timeout(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    # The protocol's timeout {seat, kind} cannot carry "kind" twice in one map; read the
    # decision's kind from whichever field the host uses for it.
    t, seat = who.t, e["seat"]
    what = next((words(PHASE_WORDS[str(e[k])], t) for k in ("phase", "decision", "pending",
                                                              "what")
                 if str(e.get(k)) in PHASE_WORDS), "")
    if what:
        text = t._("You ran out of time ({what}); the default decision was played") \
            if who.me_(seat) else \
            t._("{seat} ran out of time ({what}); the default decision was played")
    else:
        text = t._("You ran out of time; the default decision was played") if who.me_(seat) \
            else t._("{seat} ran out of time; the default decision was played")
    return text.format(seat=who.name(seat), what=what)


def _started(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return who.t._("Every seat is taken: the game begins")


def _fair_deal(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    if e.get("mixed") is False:
        return who.t._("The host fixed the seed (a test table): the host chose the deal")
    return who.t._("The cards are shuffled with a seed the host sealed before every seat's "
                   "random share was mixed in")


def _seed_reveal(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    # The client itself checks the reveal against the commitment (a WARNING line if it fails).
    return who.t._("The host revealed its sealed seed; this client checks it against its "
                   "commitment")


def _stopping(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t = who.t
    how = str(e.get("reason") or "")
    if how:
        return t._("The host is stopping the table ({reason}); if it comes back (resumed from "
                   "its log), this client rejoins by itself").format(reason=how)
    return t._("The host is stopping the table; if it comes back (resumed from its log), this "
               "client rejoins by itself")


def _closing(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    return None  # the game-over lines say it all; the host's closing is for programs


def _stand_in(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    strategy = e.get("strategy") or t.pgettext("bot", "host")
    text = t._("A {strategy} bot plays for you while you are away") if who.me_(seat) \
        else t._("A {strategy} bot plays for {seat} while they are away")
    return text.format(seat=who.name(seat), strategy=strategy)


def _stand_in_end(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    text = who.t._("You take the seat back") if who.me_(e["seat"]) \
        else who.t._("{seat} takes the seat back")
    return text.format(seat=who.name(e["seat"]))


def _contribution_late(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    t, seat = who.t, e["seat"]
    if who.me_(seat):
        return t._("Your share of the seed did not come in time: the host made it")
    return t._("{seat}'s share of the seed did not come in time: the host made it").format(
        seat=who.name(seat))


_HANDLERS: dict[str, _Handler] = {
    "setup": _setup,
    "round": _round,
    "event": _event,
    "unstore": _unstore,
    "deal": _deal,
    "reshuffle": _reshuffle,
    "display": _display,
    "split": _split,
    "pick": _pick,
    "buy": _buy,
    "pirates": _pirates,
    "announce": _announce,
    "offer": _offer,
    "reveal": _reveal,
    "trade_master": _trade_master,
    "take": _take,
    "trade_end": _trade_end,
    "gift": _gift,
    "first": _first,
    "convert": _convert,
    "set": _set,
    "series": _series,
    "relics": _relics,
    "perfect": _perfect,
    "income": _income,
    "revert": _revert,
    "store": _store,
    "discard": _discard,
    "round_end": _round_end,
    "game_over": _game_over,
    "decision": _decision,
    "joined": _joined,
    "away": _away,
    "back": _back,
    "spectator": _spectator,
    "chat": _chat,
    "committed": _committed,
    "commitments": _commitments,
    "reveals": _reveals,
    "violation": _violation,
    "timeout": _timeout,
    "started": _started,
    "fair_deal": _fair_deal,
    "seed_reveal": _seed_reveal,
    "stopping": _stopping,
    "stand_in": _stand_in,
    "stand_in_end": _stand_in_end,
    "closing": _closing,
    "contribution_late": _contribution_late,
}

ENGINE_KINDS = frozenset({
    "setup", "round", "event", "unstore", "deal", "reshuffle", "display", "split", "pick",
    "buy", "pirates", "announce", "offer", "reveal", "trade_master", "take", "trade_end",
    "gift", "first", "convert", "set", "series", "relics", "perfect", "income", "revert",
    "store", "discard", "round_end", "game_over", "decision",
})
HOST_KINDS = frozenset({
    "joined", "away", "back", "spectator", "chat", "committed", "commitments", "reveals",
    "violation", "timeout", "started", "fair_deal", "seed_reveal", "stopping", "stand_in",
    "stand_in_end", "contribution_late", "closing",
})
KNOWN_KINDS = frozenset(_HANDLERS)
