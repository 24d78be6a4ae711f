"""The development deck: the default deck (RULES.md sections 9-10, R1.5, R2.3) and the deck
file format's errors (docs/deck-format.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mundus_net.engine.deck import (
    DeckError,
    builtin_decks,
    deck_for_record,
    default_deck,
    default_deck_text,
    load_deck,
    parse_deck,
)
from mundus_net.engine.game import Game

HEADER = "mundus-deck 1\n"
GOOD = "D01   caravel    1   2  -   0  base  Caravel 1\n"


def test_R1_5_default_deck_has_44_base_and_5_promo_cards() -> None:
    """R1.5, section 10: 44 base development cards plus the 5 promo cards."""
    deck = default_deck()
    assert len(deck.cards) == 49
    assert sum(c.group == "base" for c in deck.cards) == 44
    assert [c.id for c in deck.cards if c.group == "promo"] == ["P01", "P02", "P03", "P04", "P05"]


@pytest.mark.parametrize(("players", "size"), [(2, 24), (3, 30), (4, 36), (5, 40), (6, 44)])
def test_R2_3_deck_size_per_player_count(players: int, size: int) -> None:
    """R2.3 / section 9: 24 cards with 2 players, 30 with 3, 36 with 4, 40 with 5, 44 with 6
    (and the 5 promo cards on top when they are on)."""
    deck = default_deck()
    assert len(deck.for_players(players, promo=False)) == size
    assert len(deck.for_players(players, promo=True)) == size + 5


def test_section_9_card_list() -> None:
    """Section 9: caravels D01-D12 of values 1-12, merchants, warehouses, shipyards,
    characters, with their player counts, icons and incomes."""
    deck = default_deck()
    for i in range(1, 13):
        assert deck[f"D{i:02d}"].kind == "caravel" and deck[f"D{i:02d}"].caravel == i
    caravels = {c.id: (c.players, c.income) for c in deck.cards if c.kind == "caravel"}
    assert caravels == {"D01": (2, 0), "D02": (2, 0), "D03": (2, 0), "D04": (2, 0),
                        "D05": (2, 0), "D06": (2, 0), "D07": (3, 0), "D08": (3, 0),
                        "D09": (4, 0), "D10": (3, 0), "D11": (5, 0), "D12": (6, 0)}
    icons = {c.id: c.icon for c in deck.cards if c.icon}
    assert icons == {"D02": "KA", "D04": "FI", "D05": "IP", "D08": "ST", "D10": "PI",
                     "D14": "ST", "D17": "KA", "D19": "PI", "D23": "IP", "D27": "FI",
                     "D30": "PI", "D31": "KA", "D33": "ST", "D39": "IP", "D41": "FI"}
    merchants = {c.id: (c.merchant_class, c.players, c.income)
                 for c in deck.cards if c.kind == "merchant"}
    assert merchants == {"D13": (1, 2, 0), "D14": (1, 2, 1), "D15": (1, 3, 2),
                         "D16": (2, 2, 0), "D17": (2, 2, 1), "D18": (2, 4, 1),
                         "D19": (3, 2, 0), "D20": (3, 5, 0), "D21": (3, 6, 1)}
    warehouses = {c.id: (c.capacity, c.players, c.income)
                  for c in deck.cards if c.kind == "warehouse"}
    assert warehouses == {"D22": (2, 2, 0), "D23": (2, 2, 0), "D24": (2, 4, 0),
                          "D25": (2, 6, 0), "D26": (1, 2, 1), "D27": (1, 2, 1),
                          "D28": (1, 2, 1), "D29": (1, 4, 1)}
    shipyards = {c.id: c.players for c in deck.cards if c.kind == "shipyard"}
    assert shipyards == {"D30": 2, "D31": 3, "D32": 4, "D33": 5, "D34": 5, "D35": 6}
    chars = {c.id: (c.power, c.players, c.income) for c in deck.cards
             if c.is_character and c.group == "base"}
    assert chars == {"D36": ("almagro", 2, 2), "D37": ("cosa", 2, 1), "D38": ("casas", 2, 1),
                     "D39": ("pizarro", 2, 0), "D40": ("valdivia", 2, 1),
                     "D41": ("orellana", 2, 0), "D42": ("cortes", 2, 3),
                     "D43": ("ponce", 3, 0), "D44": ("coronado", 4, 0)}


def _ids(players: int, deck_name: str = "default") -> set[str]:
    return {c.id for c in builtin_decks()[deck_name].for_players(players, promo=False)}


def test_section_9_caravel_10_is_a_3_player_card_and_warehouse_D24_a_4_player_card() -> None:
    """Section 9, corrected: the supply example's 3-player table has a caravel 10, so D10 is
    a 3-player card; D24 (warehouse for 2) takes the 4-player place."""
    assert "D10" not in _ids(2) and "D24" not in _ids(2)
    assert "D10" in _ids(3) and "D24" not in _ids(3)
    assert {"D10", "D24"} <= _ids(4)
    g = Game.new(3, 0)
    assert "D10" in g.queue + g.devpile and "D24" not in g.queue + g.devpile


@pytest.mark.parametrize("deck_name", ["default", "first-edition"])
@pytest.mark.parametrize(("players", "size"), [(2, 24), (3, 30), (4, 36), (5, 40), (6, 44)])
def test_section_9_deck_sizes_24_30_36_40_44(deck_name: str, players: int, size: int) -> None:
    """Section 9: 24, 30, 36, 40 and 44 cards with 2 to 6 players, in the corrected deck and in
    the first edition's alike (the correction swaps two player counts)."""
    assert len(_ids(players, deck_name)) == size
    assert len(builtin_decks()[deck_name].for_players(players, promo=True)) == size + 5


def test_section_9_first_edition_deck_keeps_the_old_counts_and_is_found_by_digest() -> None:
    """Section 9 before the correction, shipped for old records: caravel 10 from 4 players,
    D24 from 3; otherwise the same cards. deck_for_record finds a shipped deck by the digest a
    record names (an empty digest means the default deck; an unknown one, none)."""
    decks = builtin_decks()
    assert list(decks) == ["default", "first-edition"]
    first, default = decks["first-edition"], decks["default"]
    assert first.name == "first-edition" and default is default_deck()
    assert first["D10"].players == 4 and first["D24"].players == 3
    assert default["D10"].players == 3 and default["D24"].players == 4
    assert "D10" not in _ids(3, "first-edition") and "D24" in _ids(3, "first-edition")
    changed = [a.id for a, b in zip(first.cards, default.cards, strict=True) if a != b]
    assert changed == ["D10", "D24"]
    assert first.digest != default.digest
    assert deck_for_record(first.digest) == first
    assert deck_for_record(default.digest) == default
    assert deck_for_record("") == default
    assert deck_for_record("0" * len(default.digest)) is None


def test_a_loaded_deck_file_is_used_by_the_game(tmp_path: Path) -> None:
    """A host may load another deck file in the same format."""
    path = tmp_path / "small.deck"
    lines = [f"S{i} shipyard - 2 - 0 base Shipyard {i}" for i in range(1, 8)]
    path.write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    deck = load_deck(path)
    assert deck.name == "small"
    g = Game.new(2, 1, deck=deck)
    assert sorted(g.queue + g.devpile) == sorted(f"S{i}" for i in range(1, 8))


def test_default_deck_file_round_trips_through_the_parser() -> None:
    """The shipped default deck parses to the same cards as default_deck()."""
    text = default_deck_text()
    assert parse_deck(text).cards == default_deck().cards


# -- malformed deck files -------------------------------------------------------------------------


def error_of(text: str) -> str:
    with pytest.raises(DeckError) as info:
        parse_deck(text, source="my.deck")
    return str(info.value)


@pytest.mark.parametrize(("line", "field", "words"), [
    ("D01 ship 1 2 - 0 base Caravel 1", "kind", "'ship'"),
    ("D01 caravel 1 7 - 0 base Caravel 1", "players", "7 is outside 2-6"),
    ("D01 caravel 1 1 - 0 base Caravel 1", "players", "outside"),
    ("D01 caravel 1 two - 0 base Caravel 1", "players", "not a whole number"),
    ("D01 caravel 1 2 XX 0 base Caravel 1", "icon", "'XX'"),
    ("D01 caravel 1 2 - -1 base Caravel 1", "income", "outside"),
    ("D01 caravel 1 2 - 0 extra Caravel 1", "group", "'extra'"),
    ("D01 caravel x 2 - 0 base Caravel 1", "param", "not a whole number"),
    ("D13 merchant odd 2 - 0 base Merchant", "param", "'odd'"),
    ("D22 warehouse 0 2 - 0 base Warehouse", "param", "outside"),
    ("D30 shipyard 3 2 - 0 base Shipyard", "param", "'3'"),
    ("D36 character wizard 2 - 0 base Wizard", "param", "'wizard'"),
    ("1D caravel 1 2 - 0 base Caravel 1", "id", "'1D'"),
    ("D01 caravel 1 2 - 0 base", "name", "missing"),
    ("D01 caravel 1 2", "icon", "missing"),
])
def test_malformed_line_names_line_and_field(line: str, field: str, words: str) -> None:
    """A bad field is refused with the file, line and field named."""
    message = error_of(HEADER + "# comment\n\n" + line + "\n")
    assert message.startswith("my.deck line 4, field ")
    assert f"field {field!r}" in message
    assert words in message


def test_duplicate_id_names_both_lines() -> None:
    """A duplicate id is refused, naming the line and the earlier definition."""
    message = error_of(HEADER + GOOD + GOOD.replace("Caravel 1", "Again"))
    assert "line 3, field 'id'" in message
    assert "already defined on line 2" in message


def test_duplicate_power_is_refused() -> None:
    """Each power may appear on one card only."""
    text = HEADER + "C1 character cosa 2 - 1 base A\nC2 character cosa 2 - 1 base B\n"
    message = error_of(text)
    assert "line 3, field 'param'" in message


def test_missing_header_is_refused() -> None:
    """The first meaningful line must be the header."""
    message = error_of("# a deck\n" + GOOD)
    assert message == "my.deck line 2: expected the header 'mundus-deck 1'"
    assert "header" in error_of("mundus-deck 2\n" + GOOD)


def test_empty_file_and_deck_without_cards_are_refused() -> None:
    """No header at all, or a header and no cards."""
    assert "empty deck file" in error_of("")
    assert "empty deck file" in error_of("# only a comment\n")
    assert "no cards" in error_of(HEADER)


def test_unreadable_file_raises_deck_error(tmp_path: Path) -> None:
    """A missing, undecodable or unreadable file is a DeckError naming the file."""
    missing = tmp_path / "nope.deck"
    with pytest.raises(DeckError, match=r"nope\.deck: cannot read"):
        load_deck(missing)
    binary = tmp_path / "bin.deck"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(DeckError, match=r"bin\.deck: cannot read"):
        load_deck(binary)
    with pytest.raises(DeckError, match="cannot read"):
        load_deck(tmp_path)  # a directory


def test_error_in_a_loaded_file_names_the_path(tmp_path: Path) -> None:
    """load_deck names the file path in the error."""
    path = tmp_path / "bad.deck"
    path.write_text(HEADER + "D01 caravel 1 9 - 0 base C\n", encoding="utf-8")
    with pytest.raises(DeckError) as info:
        load_deck(path)
    assert str(info.value).startswith(f"{path} line 2, field 'players'")
