"""Plain English sentences for the game log: one public event in, one line out (or None).

Events arrive in two shapes and both are read here: as the engine logs them
(``mundus_net.engine.view.public_log``: tuples, seat maps keyed by int, decisions as objects) and as
they come over the network (``mundus_net.protocol.codec.to_wire``: lists, seat maps keyed by decimal
strings). A seat's private parts may be merged in (its dealt cards, its offer, the card of a
gift, what it stored). The host's own events (docs/protocol.md section 9) are read too.

Sentences name seats by their players' names; the reading seat is "you".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mundus_net.engine.cards import CLASS_OF, RELIC, RESOURCE_NAMES
from mundus_net.engine.deck import EVENT_NAMES, CardDef, Deck

# What each event does, in a few words (R3.5, R4.7, R6.2, R6.3, R6.9).
EVENT_EFFECTS = {
    "KA": "any number of identical sets per turn",
    "IP": "a series pays 1 doubloon per card",
    "ST": "sets reach queue card 1 only",
    "FI": "no cards may be stored this round",
    "PI": "discard 1 card per fleet of 2+ caravels",
}

# Short names of the characters and buildings, by power (players table, summaries).
POWER_NAMES = {
    "almagro": "Almagro",
    "cosa": "Cosa",
    "casas": "Casas",
    "pizarro": "Pizarro",
    "valdivia": "Valdivia",
    "orellana": "Orellana",
    "cortes": "Cortés",
    "ponce": "Ponce",
    "coronado": "Coronado",
    "sergio": "Sergio",
    "buron": "Burón",
    "estefano": "Estefano",
    "vicente": "Vicente",
    "tradingpost": "Trading Post",
}

# What a character or building does, in a few words (docs/rules.md sections 9 and 10).
POWER_EFFECTS = {
    "almagro": "sets may take the pile's top card",
    "cosa": "no event affects him",
    "casas": "offers any number of cards",
    "pizarro": "top caravel counts 0",
    "valdivia": "+3 offer score",
    "orellana": "+2 for market runs/triples",
    "cortes": "",
    "ponce": "may split the fleet",
    "coronado": "may impose an event (2)",
    "sergio": "may buy a market card (2)",
    "buron": "+1 income per character",
    "estefano": "+3 when TM",
    "vicente": "may sell a set of 3",
    "tradingpost": "+1 per merchant/warehouse",
}

CLASS_WORDS = {1: "common", 2: "uncommon", 3: "rare"}

INCOME_PARTS = {
    "printed": "income",
    "buron": "Burón",
    "tradingpost": "Trading Post",
    "estefano": "Estefano",
    "shipyards": "shipyards",
}

REASONS = {
    "perfect": "the perfect combination",
    "doubloons": "75 doubloons reached",
    "queue": "the queue ran out",
    "round_limit": "the round limit",
}

PHASE_WORDS = {
    "coronado": "choose an event (Coronado)",
    "split": "split the fleet",
    "pick": "pick cards for a fleet",
    "sergio": "buy a market card (Sergio)",
    "pirates": "discard to the pirates",
    "announce": "announce the number of cards",
    "offer": "choose an offer",
    "commit": "choose an offer",
    "reveal": "reveal the offer",
    "tm_tie": "choose the new Trade Master",
    "take": "take a card",
    "gift": "give a card (balance)",
    "first": "choose who plays first",
    "turn": "progression turn",
    "store": "store cards",
    "over": "game over",
}


# -- words for values ---------------------------------------------------------------------------


def card_name(card: int) -> str:
    return RESOURCE_NAMES.get(card, f"card {card}")


def cards_text(cards: Iterable[int]) -> str:
    """``(2, 2, 4, 10)`` -> ``"corn, corn, coffee, relic"``; nothing -> ``"nothing"``."""
    names = [card_name(c) for c in sorted(cards)]
    return ", ".join(names) if names else "nothing"


def plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else (words or word + 's')}"


def seat_name(names: Sequence[str], seat: int | None) -> str:
    """The player's name; "Seat N" (N the 0-based seat index) for a seat without one, "the
    host" for seat -1 (what a fair-deal warning names) and "nobody" for no seat (None: a
    state without its Trade Master or turn yet, as a table that is only starting)."""
    if seat is None:
        return "nobody"
    if seat == -1:
        return "the host"
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"Seat {seat}"


def dev_name(card_id: str, deck: Deck | None) -> str:
    if deck is not None and card_id in deck.by_id:
        return deck[card_id].name
    return card_id


def event_text(event: str | None) -> str:
    """``"ST"`` -> ``"Storm — sets reach queue card 1 only"``."""
    if event is None:
        return "no event"
    return f"{EVENT_NAMES.get(event, event)} — {EVENT_EFFECTS.get(event, '')}".rstrip(" —")


def development_effect(card: CardDef, *, income: bool = True) -> str:
    """What a development does, in a few words: ``"caravel 7"``, ``"merchant → rare"``."""
    if card.kind == "caravel":
        text = f"caravel {card.caravel}"
    elif card.kind == "merchant":
        text = f"merchant → {CLASS_WORDS.get(card.merchant_class, '?')}"
    elif card.kind == "warehouse":
        text = f"stores {card.capacity}"
    elif card.kind == "shipyard":
        text = "shipyard: +1 per bigger fleet"
    else:
        text = POWER_EFFECTS.get(card.power, "")
    if income and card.income:
        text = f"{text}, +{card.income}/round" if text else f"+{card.income}/round"
    return text


def seat_map(value: Any) -> dict[int, Any]:
    """A seat map from either shape (int keys from the engine, decimal strings off the wire)."""
    if not isinstance(value, Mapping):
        return {}
    return {int(k): v for k, v in value.items()}


# -- who ----------------------------------------------------------------------------------------


class _Who:
    """Seat names as a sentence needs them; the reading seat is "you"."""

    def __init__(self, names: Sequence[str], me: int | None) -> None:
        self.names = names
        self.me = me

    def subj(self, seat: Any) -> str:
        return "You" if seat == self.me else seat_name(self.names, int(seat))

    def obj(self, seat: Any) -> str:
        return "you" if seat == self.me else seat_name(self.names, int(seat))

    def poss(self, seat: Any) -> str:
        return "Your" if seat == self.me else seat_name(self.names, int(seat)) + "'s"

    def was(self, seat: Any) -> str:
        return "were" if seat == self.me else "was"

    def has(self, seat: Any) -> str:
        return "have" if seat == self.me else "has"


# -- the sentences ------------------------------------------------------------------------------

_Event = Mapping[str, Any]
_Handler = Callable[[_Event, _Who, "Deck | None", "int | None"], "str | None"]


def sentence(event: Mapping[str, Any], names: Sequence[str], me: int | None = None,
             deck: Deck | None = None, round: int | None = None) -> str | None:
    """One event as a plain English sentence, or None if it is not worth a line.

    ``names`` are the players' names by seat, ``me`` the reading seat (None: a spectator),
    ``deck`` gives development names (ids without it) and ``round`` the current round, which
    the event line mentions.
    """
    kind = event.get("kind")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        return None
    return handler(event, _Who(names, me), deck, round)


class Narrator:
    """Turns a stream of events into sentences, remembering the round between them."""

    def __init__(self, names: Sequence[str], me: int | None = None,
                 deck: Deck | None = None) -> None:
        self.names = list(names)
        self.me = me
        self.deck = deck
        self.round: int | None = None

    def __call__(self, event: Mapping[str, Any]) -> str | None:
        kind = event.get("kind")
        if kind == "round":
            self.round = int(event["round"])
        elif kind == "joined" and isinstance(event.get("seat"), int):
            seat = event["seat"]
            while len(self.names) <= seat:
                self.names.append("")
            self.names[seat] = str(event.get("name", ""))
        return sentence(event, self.names, self.me, self.deck, self.round)


def _setup(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return (f"A new game for {e.get('players')} players: {who.obj(e['tm'])} "
            f"{who.has(e['tm'])} the Trade Master token; the market holds "
            f"{cards_text(e.get('market', ()))}")


def _round(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    tm = e.get("tm")
    tail = f" ({who.obj(tm)} {'are' if tm == who.me else 'is'} Trade Master)" \
        if tm is not None else ""
    return f"Round {e['round']} begins{tail}"


def _event(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    code = e.get("event")
    head = f"Round {rnd}: " if rnd is not None else "This round: "
    if e.get("source") == "coronado" and code is not None:
        return (f"{who.subj(e['seat'])} paid 2 doubloons (Coronado) to impose "
                f"{event_text(code)}")
    if code is None:
        passed = f" ({who.subj(e['seat'])} did not use Coronado)" if "seat" in e else ""
        return f"{head}no event{passed}"
    return head + event_text(code)


def _unstore(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    seat = e["seat"]
    if "cards" in e:
        return f"{who.subj(seat)} took {cards_text(e['cards'])} back from the warehouses"
    return f"{who.subj(seat)} took {plural(int(e['count']), 'stored card')} back into hand"


def _deal(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    if "cards" in e:
        return f"You were dealt {cards_text(e['cards'])}"
    counts = seat_map(e.get("counts"))
    sizes = set(counts.values())
    if len(sizes) == 1:
        return f"Each player was dealt {plural(int(sizes.pop()), 'card')}"
    parts = ", ".join(f"{who.obj(s)} {n}" for s, n in sorted(counts.items()))
    return f"Cards dealt: {parts} (the piles ran low)"


def _reshuffle(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return f"The discard pile ({plural(int(e['size']), 'card')}) was shuffled into a new draw pile"


def _display(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    cards = e.get("cards") or ()
    if not cards:
        return None
    return f"Caravel display: {cards_text(cards)}"


def _fleet_text(fleet: Iterable[str], deck: Deck | None) -> str:
    values = [str(deck[c].caravel) if deck is not None and c in deck.by_id else c for c in fleet]
    return "+".join(values) or "-"


def _split(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    fleets = list(e.get("fleets") or ())
    seat = e["seat"]
    if len(fleets) < 2:
        return f"{who.subj(seat)} kept the caravels in one fleet"
    parts = " and ".join(_fleet_text(f, deck) for f in fleets)
    return f"{who.subj(seat)} split the caravels into two fleets: {parts}"


def _pick(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    fleet = list(e.get("fleet") or ())
    return (f"{who.poss(e['seat'])} fleet ({_fleet_text(fleet, deck)}) picked "
            f"{cards_text(e['cards'])}")


def _buy(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return (f"{who.subj(e['seat'])} paid 2 doubloons (Sergio) for the market's "
            f"{card_name(e['card'])}; the market now holds {cards_text(e.get('market', ()))}")


def _pirates(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    lost = "; ".join(f"{who.obj(s)} {cards_text(c)}"
                     for s, c in sorted(seat_map(e.get("discards")).items()))
    return f"Pirates! Cards lost: {lost}" if lost else "Pirates! Nobody lost a card"


def _announce(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return f"{who.subj(e['seat'])} announced {e['n']}: everyone offers {e['n']} cards"


def _offer(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    # Only your own offer is worth a line: the reveal shows everyone's at once.
    if "cards" in e:
        return f"You offered {cards_text(e['cards'])}"
    return None


def _reveal(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    scores = list(e.get("scores") or ())
    parts = []
    for s, cards in sorted(seat_map(e.get("offers")).items()):
        score = f" ({scores[s]})" if s < len(scores) else ""
        parts.append(f"{who.obj(s)} {cards_text(cards)}{score}")
    return "Offers revealed: " + "; ".join(parts)


def _trade_master(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    seat = e["seat"]
    verb = "stay" if seat == who.me else "stays"
    if seat == e.get("previous"):
        return f"{who.subj(seat)} {verb} Trade Master with the best offer"
    return f"{who.subj(seat)} {'are' if seat == who.me else 'is'} the new Trade Master"


def _take(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    card, swap = e["card"], e.get("swap")
    text = f"{who.subj(e['seat'])} took {card_name(card)} from {who.obj(e['source'])}"
    if swap is not None:
        if swap == card:
            text += " and swapped it for the market's other " + card_name(swap)
        else:
            text += f" and swapped it for {card_name(swap)} in the market"
    if e.get("orellana"):
        text += f", earning {e['orellana']} doubloons (Orellana)"
    return text


def _trade_end(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    text = f"Trading is over: nothing left for {who.obj(e['last'])} to take"
    returned = seat_map(e.get("returned"))
    if returned:
        back = "; ".join(f"{who.obj(s)} {cards_text(c)}" for s, c in sorted(returned.items()))
        text += f"; cards left face up went back: {back}"
    return text


def _gift(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    seat, to = e["seat"], e["to"]
    if "card" in e:
        return f"{who.subj(seat)} gave {card_name(e['card'])} to {who.obj(to)} (balance)"
    return f"{who.subj(seat)} gave {who.obj(to)} one card from hand (balance)"


def _first(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    first = e["first"]
    if first == e["seat"]:
        return f"{who.subj(first)} will play first"
    return f"{who.subj(e['seat'])} chose {who.obj(first)} to play first"


def _convert(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    value = int(e["value"])
    cls = CLASS_WORDS.get(CLASS_OF[value], "") if 1 <= value <= 9 else ""
    return (f"{who.poss(e['seat'])} {cls} merchant turned {card_name(e['source'])} into "
            f"{card_name(value)}")


def _set_cards(value: int, cards: Iterable[int]) -> str:
    cards = list(cards)
    relics = sum(1 for c in cards if c == RELIC)
    own = len(cards) - relics
    if own == 0:
        return f"{plural(relics, 'relic')} as {card_name(value)}"
    if relics == 0:
        return card_name(value)
    return f"{card_name(value)} ({plural(relics, 'relic')})"


def _set(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    cards = list(e.get("cards") or ())
    head = (f"{who.subj(e['seat'])} made a set of {len(cards)} "
            f"{_set_cards(int(e['value']), cards)}")
    target = e.get("target")
    if target == "cash":
        return f"{head} and sold it for {e.get('gain')} doubloons (Vicente)"
    dev = dev_name(str(e.get("development")), deck)
    if target == "draw":
        return f"{head} and drew {dev} from the development pile (Almagro)"
    text = f"{head} and took {dev} (queue card {target})"
    refill = e.get("refill")
    if refill is not None:
        text += f"; {dev_name(str(refill), deck)} joins the queue"
    else:
        text += "; the queue cannot be refilled: the game ends this round"
    return text


def _series(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    cards = list(e.get("cards") or ())
    return (f"{who.subj(e['seat'])} made a series of {len(cards)} ({cards_text(cards)}) "
            f"for {plural(int(e['gain']), 'doubloon')}")


def _relics(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return (f"{who.subj(e['seat'])} showed a relic set of {e['size']} for "
            f"{plural(int(e['gain']), 'doubloon')}")


def _perfect(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return (f"{who.subj(e['seat'])} showed the PERFECT COMBINATION (values 1-9 and a relic): "
            f"the game ends this round")


def _income(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    gain = int(e.get("gain") or 0)
    if not gain:
        return None
    parts = dict(e.get("parts") or {})
    detail = ", ".join(f"{INCOME_PARTS.get(k, k)} {v}" for k, v in parts.items())
    text = f"{who.subj(e['seat'])} received {plural(gain, 'doubloon')}"
    return f"{text} ({detail})" if detail else text


def _revert(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    pairs = [(int(a), int(b)) for a, b in e.get("cards") or ()]
    if not pairs:
        return None
    back = ", ".join(f"{card_name(b)} back to {card_name(a)}" for a, b in pairs)
    return f"{who.poss(e['seat'])} converted cards left in hand turn back: {back}"


def _store(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    seat = e["seat"]
    if "cards" in e:
        if not e["cards"]:
            return None
        return f"{who.subj(seat)} stored {cards_text(e['cards'])} in the warehouses"
    count = int(e.get("count") or 0)
    return f"{who.subj(seat)} stored {plural(count, 'card')}" if count else None


def _discard(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    cards = e.get("cards") or ()
    if not cards:
        return None
    return f"{who.subj(e['seat'])} discarded {cards_text(cards)}"


def _standings(who: _Who, money: Sequence[int]) -> str:
    order = sorted(range(len(money)), key=lambda s: (-money[s], s))
    return ", ".join(f"{who.obj(s)} {money[s]}" for s in order)


def _round_end(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return f"Round {e['round']} ends. Doubloons: {_standings(who, list(e['doubloons']))}"


def _game_over(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    winners = [int(s) for s in e.get("winners") or ()]
    money = list(e.get("doubloons") or ())
    names = " and ".join(who.subj(s) if i == 0 else who.obj(s) for i, s in enumerate(winners))
    best = money[winners[0]] if winners and winners[0] < len(money) else "?"
    if len(winners) > 1:
        verb = "share the victory"
    else:
        verb = "win" if winners and winners[0] == who.me else "wins"
    reason = REASONS.get(str(e.get("reason")), str(e.get("reason")))
    return (f"Game over after {plural(int(e.get('rounds') or 0), 'round')} ({reason}): "
            f"{names} {verb} with {best} doubloons")


def _decision(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> None:
    # The events a decision causes say what happened; the decision itself adds nothing.
    return None


# -- host events (docs/protocol.md section 9) ---------------------------------------------------


def _joined(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    name = str(e.get("name") or who.subj(e["seat"]))
    bot = " (a bot)" if e.get("bot") else ""
    return f"{name}{bot} took seat {int(e['seat'])}"


def _away(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return f"{who.subj(e['seat'])} {'are' if e['seat'] == who.me else 'is'} away"


def _back(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return f"{who.subj(e['seat'])} {'are' if e['seat'] == who.me else 'is'} back"


def _spectator(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return f"{e.get('name') or 'Someone'} is watching"


def _chat(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    seat = e.get("seat")
    name = e.get("name") or (who.subj(seat) if isinstance(seat, int) else "someone")
    return f"<{name}> {e.get('text', '')}"


def _committed(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return f"{who.subj(e['seat'])} sealed an offer"


def _commitments(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return "Every offer is sealed; the offers are being revealed"


def _reveals(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> None:
    # The engine's "reveal" event already says what everyone offered.
    return None


def _violation(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    reason = e.get("reason") or "a broken reveal"
    return f"{who.poss(e['seat'])} answer was refused ({reason}); the default was played"


def _timeout(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    # The protocol's timeout {seat, kind} cannot carry "kind" twice in one map; read the
    # decision's kind from whichever field the host uses for it.
    what = next((PHASE_WORDS[str(e[k])] for k in ("phase", "decision", "pending", "what")
                 if str(e.get(k)) in PHASE_WORDS), "")
    suffix = f" ({what})" if what else ""
    return f"{who.subj(e['seat'])} ran out of time{suffix}; the default decision was played"


def _started(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return "Every seat is taken: the game begins"


def _fair_deal(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    if e.get("mixed") is False:
        return "The host fixed the seed (a test table): the host chose the deal"
    return ("The cards are shuffled with a seed the host sealed before every seat's random "
            "share was mixed in")


def _seed_reveal(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    # The client itself checks the reveal against the commitment (a WARNING line if it fails).
    return "The host revealed its sealed seed; this client checks it against its commitment"


def _stopping(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    how = str(e.get("reason") or "")
    return (f"The host is stopping the table{f' ({how})' if how else ''}; if it comes back "
            "(resumed from its log), this client rejoins by itself")


def _closing(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str | None:
    return None  # the game-over lines say it all; the host's closing is for programs


def _stand_in(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return (f"A {e.get('strategy') or 'host'} bot plays for {who.obj(e['seat'])} while "
            f"{'you are' if e['seat'] == who.me else 'they are'} away")


def _stand_in_end(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return f"{who.subj(e['seat'])} {'take' if e['seat'] == who.me else 'takes'} the seat back"


def _contribution_late(e: _Event, who: _Who, deck: Deck | None, rnd: int | None) -> str:
    return (f"{who.poss(e['seat']).capitalize()} share of the seed did not come in time: the "
            "host made it")


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
