"""Development cards (R1.5, docs/rules.md sections 9 and 10) and the deck file format.

The default deck ships as package data (``data/default.deck``); a host may load another file
in the same format (docs/deck-format.md). A malformed file raises :class:`DeckError` naming
the file, the line and the field.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from mundus_net.engine.cards import CLASS_OF_NAME
from mundus_net.engine.errors import MundusError

__all__ = [
    "BUILTIN_DECK_FILES", "EVENTS", "EVENT_NAMES", "FIELDS", "GROUPS", "HEADER", "KINDS", "POWERS",
    "CardDef", "Deck", "DeckError", "builtin_decks", "deck_for_record", "default_deck",
    "default_deck_text", "load_deck", "parse_deck",
]

EVENTS = ("KA", "IP", "ST", "FI", "PI")  # R1.6
EVENT_NAMES = {
    "KA": "King's Aid",
    "IP": "Indigenous People",
    "ST": "Storm",
    "FI": "Fire",
    "PI": "Pirates",
}
KINDS = ("caravel", "merchant", "warehouse", "shipyard", "character", "building")
# Powers a character or building card may carry; "cortes" has none beyond its income.
POWERS = {
    "character": (
        "almagro", "cosa", "casas", "pizarro", "valdivia", "orellana", "cortes", "ponce",
        "coronado", "sergio", "buron", "estefano", "vicente", "-",
    ),
    "building": ("tradingpost", "-"),
}
GROUPS = ("base", "promo")
HEADER = "mundus-deck 1"
FIELDS = ("id", "kind", "param", "players", "icon", "income", "group", "name")


class DeckError(MundusError, ValueError):
    """A deck file that does not follow the format; the message names line and field."""


@dataclass(frozen=True, slots=True)
class CardDef:
    id: str
    kind: str
    name: str
    players: int  # minimum player count (R2.3)
    icon: str | None  # event icon (R1.5) or None
    income: int  # printed income (R6.7)
    group: str = "base"
    caravel: int = 0  # caravel value (R4.5)
    merchant_class: int = 0  # 1 common, 2 uncommon, 3 rare (R6.5)
    capacity: int = 0  # warehouse capacity (R6.9)
    power: str = ""  # character/building power, "" for none

    @property
    def is_character(self) -> bool:
        return self.kind == "character"


@dataclass(frozen=True)
class Deck:
    name: str
    cards: tuple[CardDef, ...]
    by_id: dict[str, CardDef] = field(init=False, repr=False, compare=False)
    digest: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {c.id: c for c in self.cards})
        text = "\n".join(repr(c) for c in self.cards)
        object.__setattr__(self, "digest", hashlib.sha256(text.encode()).hexdigest()[:12])

    def __getitem__(self, card_id: str) -> CardDef:
        return self.by_id[card_id]

    def for_players(self, players: int, promo: bool) -> list[CardDef]:
        """R2.3: the cards in play for this player count, in file order."""
        return [
            c
            for c in self.cards
            if c.players <= players and (promo or c.group == "base")
        ]


def _field_error(source: str, lineno: int, name: str, message: str) -> DeckError:
    return DeckError(f"{source} line {lineno}, field {name!r}: {message}")


def _parse_int(source: str, lineno: int, name: str, text: str, lo: int, hi: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise _field_error(source, lineno, name, f"{text!r} is not a whole number") from None
    if not lo <= value <= hi:
        raise _field_error(source, lineno, name, f"{value} is outside {lo}-{hi}")
    return value


def _parse_line(source: str, lineno: int, line: str) -> CardDef:
    parts = line.split(None, len(FIELDS) - 1)
    if len(parts) < len(FIELDS):
        missing = FIELDS[len(parts)]
        raise _field_error(source, lineno, missing, f"missing (a line has {len(FIELDS)} fields)")
    card_id, kind, param, players_t, icon_t, income_t, group, name = parts
    if not (card_id[:1].isalpha() and card_id.isalnum() and card_id.isascii()):
        raise _field_error(source, lineno, "id", f"{card_id!r} is not letters and digits")
    if kind not in KINDS:
        raise _field_error(source, lineno, "kind", f"{kind!r} is not one of {', '.join(KINDS)}")
    players = _parse_int(source, lineno, "players", players_t, 2, 6)
    if icon_t != "-" and icon_t not in EVENTS:
        raise _field_error(source, lineno, "icon", f"{icon_t!r} is not - or one of {EVENTS}")
    income = _parse_int(source, lineno, "income", income_t, 0, 99)
    if group not in GROUPS:
        raise _field_error(source, lineno, "group", f"{group!r} is not base or promo")
    extra: dict[str, int | str] = {}
    if kind == "caravel":
        extra["caravel"] = _parse_int(source, lineno, "param", param, 1, 99)
    elif kind == "merchant":
        if param not in CLASS_OF_NAME:
            raise _field_error(source, lineno, "param", f"{param!r} is not common/uncommon/rare")
        extra["merchant_class"] = CLASS_OF_NAME[param]
    elif kind == "warehouse":
        extra["capacity"] = _parse_int(source, lineno, "param", param, 1, 9)
    elif kind == "shipyard":
        if param != "-":
            raise _field_error(source, lineno, "param", f"a shipyard takes '-', not {param!r}")
    else:
        if param not in POWERS[kind]:
            allowed = ", ".join(POWERS[kind])
            raise _field_error(source, lineno, "param", f"{param!r} is not one of {allowed}")
        extra["power"] = "" if param == "-" else param
    return CardDef(
        id=card_id,
        kind=kind,
        name=name.strip(),
        players=players,
        icon=None if icon_t == "-" else icon_t,
        income=income,
        group=group,
        **extra,  # type: ignore[arg-type]
    )


def parse_deck(text: str, source: str = "<deck>", name: str | None = None) -> Deck:
    """Parse deck-file text; raise DeckError naming the line and field of the first fault."""
    cards: list[CardDef] = []
    seen: dict[str, int] = {}
    powers: dict[str, int] = {}
    header_seen = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if not header_seen:
            if line != HEADER:
                raise DeckError(f"{source} line {lineno}: expected the header {HEADER!r}")
            header_seen = True
            continue
        card = _parse_line(source, lineno, line)
        if card.id in seen:
            raise _field_error(
                source, lineno, "id", f"{card.id} is already defined on line {seen[card.id]}"
            )
        if card.power and card.power in powers:
            raise _field_error(
                source, lineno, "param",
                f"power {card.power!r} is already on line {powers[card.power]}",
            )
        seen[card.id] = lineno
        if card.power:
            powers[card.power] = lineno
        cards.append(card)
    if not header_seen:
        raise DeckError(f"{source}: empty deck file (expected the header {HEADER!r})")
    if not cards:
        raise DeckError(f"{source}: the deck has no cards")
    return Deck(name=name or source, cards=tuple(cards))


def load_deck(path: str | Path) -> Deck:
    """Read a deck file; raise DeckError (also for an unreadable file)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckError(f"{p}: cannot read the deck file ({exc})") from None
    return parse_deck(text, source=str(p), name=p.stem)


_DEFAULT: Deck | None = None


def default_deck_text() -> str:
    """The text of the shipped default deck file (``mundus_net/engine/data/default.deck``)."""
    return resources.files("mundus_net.engine").joinpath("data/default.deck").read_text("utf-8")


def default_deck() -> Deck:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = parse_deck(default_deck_text(), source="default.deck", name="default")
    return _DEFAULT


# The decks shipped beside the default one, by file: the default deck before the rules
# correction of section 9 (caravel 10 from 3 players, warehouse D24 from 4), kept so that the
# records played with it still replay and verify.
BUILTIN_DECK_FILES = {"default": "default.deck", "first-edition": "first-edition.deck"}


_BUILTIN: dict[str, Deck] = {}


def builtin_decks() -> dict[str, Deck]:
    """Every shipped deck by name (``default`` first); each file is read once a process."""
    if not _BUILTIN:
        _BUILTIN["default"] = default_deck()
        for name, file in BUILTIN_DECK_FILES.items():
            if name not in _BUILTIN:
                text = resources.files("mundus_net.engine").joinpath(f"data/{file}").read_text(
                    "utf-8")
                _BUILTIN[name] = parse_deck(text, source=file, name=name)
    return dict(_BUILTIN)


def deck_for_record(digest: str) -> Deck | None:
    """The shipped deck whose digest is ``digest`` (what a record names), or None: how
    ``mundus verify`` and ``mundus replay`` find the deck of an old record by themselves."""
    if not digest:
        return default_deck()
    return next((d for d in builtin_decks().values() if d.digest == digest), None)
