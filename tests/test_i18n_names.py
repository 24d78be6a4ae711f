"""The game's names in the five languages are the rulebooks' (issue 28): every card, resource,
event, step and term of each catalog against the list of tests/rulebook_names.py, and that list
against the rulebooks' text in ../shared/seeds (skipped, saying why, in a clone without the
shared folder)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from rulebook_names import NAMES, RULEBOOKS, Corrected, Printed, Translated, marker

from mundus_net.client import i18n_build
from mundus_net.client.i18n import LANGUAGES, translator
from mundus_net.engine.cards import RESOURCE_NAMES
from mundus_net.engine.deck import EVENT_NAMES, CardDef, default_deck

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def _plain(text: str) -> str:
    """Case, accents, apostrophes for accents and the ``{value}`` placeholder aside."""
    text = text.replace("{value}", "").replace("'", "").replace("’", "")
    decomposed = unicodedata.normalize("NFKD", text)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c))
                    .casefold().split())


def _rulebook_lines(language: str) -> list[str]:
    path = SEEDS / RULEBOOKS[language]
    if not path.is_file():
        pytest.skip(f"the rulebooks are not here ({SEEDS}): a clone without ../shared")
    return path.read_text(encoding="utf-8").splitlines()


def test_the_list_names_every_name_the_catalogs_hold() -> None:
    wanted = {(context, message) for context, message, _ in i18n_build.name_entries()}
    for language in LANGUAGES:
        assert set(NAMES[language]) == wanted, language


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_card_is_named_as_the_rulebook_list_says(language: str) -> None:
    names, t = NAMES[language], translator(language)
    for card in default_deck().cards:  # the 44 developments and the five promo cards
        if card.kind == "caravel":
            wanted = names["card", "Caravel {value}"][0].format(value=card.caravel)
        else:
            wanted = names["card", card.name][0]
        assert t.card(card) == wanted, (card.id, card.name)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_resources_events_steps_and_terms_are_named_as_the_list_says(language: str) -> None:
    names, t = NAMES[language], translator(language)
    for resource, english in RESOURCE_NAMES.items():
        assert t.resource(resource) == names["resource", english][0]
    for code, english in EVENT_NAMES.items():
        assert t.event(code) == names["event", english][0]
    for step in ("Event", "Supply", "Trade", "Progression"):
        assert t.step(step) == names["step", step][0]
    for term in ("Trade Master", "market"):
        assert t.term(term) == names["term", term][0]


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_each_name_is_printed_where_the_list_says(language: str) -> None:
    lines = _rulebook_lines(language)
    for key, (name, source) in NAMES[language].items():
        if isinstance(source, Translated):
            continue
        line = lines[source.line - 1]
        assert _plain(source.text) in _plain(line), (key, source, line)
        if isinstance(source, Printed) and not source.form:
            # The name is what is printed, or the head of it ("relic" of "Inca relic").
            assert _plain(name) in _plain(source.text), (key, name, source)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_name_the_catalog_does_not_take_from_the_rulebook_is_not_printed_there(
        language: str) -> None:
    """What the list calls a translation or a correction really is none of the rulebook's
    own words: a name found in the rulebook should be cited from it."""
    text = _plain("\n".join(_rulebook_lines(language)))
    for key, (name, source) in NAMES[language].items():
        if isinstance(source, Translated | Corrected) and len(_plain(name)) > 3:
            assert _plain(name) not in text, (key, name)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_catalog_marks_where_each_name_comes_from(language: str) -> None:
    catalog = i18n_build.read(language)
    for (context, english), (_, source) in NAMES[language].items():
        message = catalog.get(english, context)
        assert message is not None, (context, english)
        assert " ".join(message.user_comments) == marker(language, source), (context, english)


def test_some_names_come_from_every_rulebook_and_the_translated_ones_are_few() -> None:
    for language, names in NAMES.items():
        printed = sum(isinstance(s, Printed) for _, s in names.values())
        assert printed >= len(names) * 2 // 3, (language, printed, len(names))


def test_a_custom_decks_own_names_stay_as_its_file_writes_them() -> None:
    galleon = CardDef(id="X01", kind="caravel", name="Galleon", players=2, icon=None,
                      income=0, caravel=3)
    fort = CardDef(id="X02", kind="building", name="Fort", players=2, icon=None, income=1)
    caravel = CardDef(id="X03", kind="caravel", name="Caravel 13", players=2, icon=None,
                      income=0, caravel=13)
    t = translator("it")
    assert (t.card(galleon), t.card(fort), t.card(caravel)) == ("Galleon", "Fort",
                                                                "Caravella 13")
