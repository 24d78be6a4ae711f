"""The grammar of the four translations (issue 36, item 10): a number meets its noun through
ngettext (`Gruppo di 1 reliquia`, `Набор из 1 реликвии`, not `... 1 reliquie`), and a Korean
particle after a word filled in is the one that word takes (카카오를, 해적을: 받침), as Korean
software chooses them. Every message of every catalog is formatted with the numbers 1, 2, 5
and 21 and with each of the game's names, and the results are checked against forms written
here from the rulebooks (/work/shared/seeds: the names; the grammar of each language)."""

from __future__ import annotations

import gettext
import re
import string
from collections.abc import Callable
from typing import Any

import pytest
from babel.messages.catalog import Catalog

from mundus_net.client.i18n_build import read
from mundus_net.engine.cards import RESOURCE_NAMES
from mundus_net.engine.deck import EVENT_NAMES, default_deck
from mundus_net.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, korean_particles, translator

NUMBERS = (1, 2, 5, 21)
AMBIGUOUS = ("을(를)", "이(가)", "은(는)", "과(와)", "(으)로")

# The Korean rulebook's names, with the particles they take (object, subject, topic, "and",
# "to/as"), as a Korean reader writes them: a final consonant takes 을 이 은 과 으로, none
# takes 를 가 는 와 로, and ㄹ takes 로. Numbers as read: 칠 (7) ends in ㄹ, 육 (6) in ㄱ, 이 (2)
# in a vowel.
KOREAN = {
    "카카오": "를가는와로", "옥수수": "를가는와로", "담배": "를가는와로", "커피": "를가는와로",
    "면": "을이은과으로", "사탕수수": "를가는와로", "감자": "를가는와로", "인디고": "를가는와로",
    "바닐라": "를가는와로", "유물": "을이은과로",
    "국왕의 원조": "를가는와로", "원주민": "을이은과으로", "폭풍": "을이은과으로",
    "화재": "를가는와로", "해적": "을이은과으로",
    "조선소": "를가는와로", "교역소": "를가는와로", "창고 (1장)": "를가는와로",
    "캐러벨선 2": "를가는와로", "캐러벨선 6": "을이은과으로", "캐러벨선 7": "을이은과로",
    "캐러벨선 10": "을이은과으로", "일반 자원 상인": "을이은과으로",
    "후안 데 라 코사": "를가는와로",
}


def _split(particles: str) -> list[str]:
    """"을이은과으로" -> ["을", "이", "은", "과", "으로"]."""
    return [*particles[:4], particles[4:]]


@pytest.mark.parametrize("word", sorted(KOREAN))
def test_each_korean_name_takes_its_particles(word: str) -> None:
    written = " ".join(f"{word}{form}" for form in AMBIGUOUS)
    assert korean_particles(written) == " ".join(f"{word}{p}" for p in _split(KOREAN[word]))


def test_the_korean_names_checked_are_the_catalogs() -> None:
    t = translator("ko")
    names = {t.resource(r) for r in RESOURCE_NAMES} | {t.event(c) for c in EVENT_NAMES} | {
        t.card(c) for c in default_deck().cards}
    assert set(KOREAN) <= names, set(KOREAN) - names


def _messages(catalog: Catalog) -> list[tuple[str | None, Any, Any]]:
    return [(m.context, m.id, m.string) for m in catalog if m.id and m.string]


def _fields(text: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(text) if name]


def _fill(text: str, value: object) -> str:
    """``text`` formatted with every placeholder ``value``, as the Korean translator formats
    (korean_particles after str.format)."""
    return korean_particles(text.format(**{name: value for name in _fields(text)}))


CATALOGS = {language: read(language) for language in LANGUAGES}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_message_formats_with_every_number_and_every_name(language: str) -> None:
    """Each message, each plural form by the language's rule, with 1, 2, 5, 21 and each name
    in every placeholder: it formats, and in Korean no particle is left undecided."""
    t = translator(language)
    names = [t.resource(r) for r in RESOURCE_NAMES] + [t.event(c) for c in EVENT_NAMES] + [
        t.card(c) for c in default_deck().cards]
    plural = _plural(language)
    for _context, msgid, msgstr in _messages(CATALOGS[language]):
        forms = msgstr if isinstance(msgstr, tuple) else (msgstr,)
        for n in NUMBERS:
            text = forms[plural(n)] if len(forms) > 1 else forms[0]
            done = _fill(text, n)
            assert not any(a in done for a in AMBIGUOUS) or language != "ko", (msgid, done)
        if language == "ko":
            for name in names:
                done = _fill(forms[0], name)
                assert not any(a in done for a in AMBIGUOUS), (msgid, done)


def _plural(language: str) -> Callable[[int], int]:
    """The index of the plural form for a number, by the compiled catalog's own rule."""
    catalog = gettext.translation(DOMAIN, LOCALE_DIR, [language])
    rule: Callable[[int], int] = catalog.plural  # type: ignore[attr-defined]
    return rule


# Forms written from the rulebooks' words and each language's grammar: what the relic-set
# messages read for 1, 2, 5 and 21 relics, and the doubloons.
RELIC_SET = {
    "en": ("Relic set of 1 for 1", "Relic set of 2 for 1", "Relic set of 5 for 1",
           "Relic set of 21 for 1"),
    "it": ("Gruppo di 1 reliquia per 1", "Gruppo di 2 reliquie per 1",
           "Gruppo di 5 reliquie per 1", "Gruppo di 21 reliquie per 1"),
    "ru": ("Набор из 1 реликвии за 1", "Набор из 2 реликвий за 1", "Набор из 5 реликвий за 1",
           "Набор из 21 реликвии за 1"),
    "nl": ("Set van 1 reliek voor 1", "Set van 2 relieken voor 1", "Set van 5 relieken voor 1",
           "Set van 21 relieken voor 1"),
    "ko": ("유물 1장 세트: 1", "유물 2장 세트: 1", "유물 5장 세트: 1", "유물 21장 세트: 1"),
}
DOUBLOONS = {
    "en": ("1 doubloon", "2 doubloons", "5 doubloons", "21 doubloons"),
    "it": ("1 doblone", "2 dobloni", "5 dobloni", "21 dobloni"),
    "ru": ("1 дублон", "2 дублона", "5 дублонов", "21 дублон"),
    "nl": ("1 dubloen", "2 dubloenen", "5 dubloenen", "21 dubloenen"),
    "ko": ("1더블룬", "2더블룬", "5더블룬", "21더블룬"),
}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_number_meets_its_noun_in_the_known_form(language: str) -> None:
    t = translator(language)
    relics = tuple(t.ngettext("Relic set of {count} for {doubloons}",
                              "Relic set of {count} for {doubloons}", n).format(
        count=n, doubloons=1) for n in NUMBERS)
    assert relics == RELIC_SET[language]
    assert tuple(t.doubloons(n) for n in NUMBERS) == DOUBLOONS[language]


# A number placeholder right before a noun that takes its number, in a message that is not
# an ngettext one, is a plural written by hand: `{count} reliquie` reads "1 reliquie".
INFLECTED = {
    "it": r"reliqui[ae]|doblon[ei]|cart[ae]\b|post[oi]\b|giocator[ei]",
    "ru": r"реликви|дублон|карт|мест|игрок|раунд|верф",
    "nl": r"reliek|relieken|dubloen|kaart|plaats|ronde|speler",
}
AT_LEAST_TWO = {"players", "seats"}  # a table has 2-6: one plural form in it and nl
# Russian: после "для" a number of 2 or more takes the genitive plural (для 2 игроков, для 5
# игроков); a place is an ordinal read aloud (1 место: первое место).
RUSSIAN_FREE = re.compile(r"для \{(players|seats)\} |\{place\} место")


@pytest.mark.parametrize("language", sorted(INFLECTED))
def test_no_number_meets_a_noun_outside_ngettext(language: str) -> None:
    found = []
    for _context, msgid, msgstr in _messages(CATALOGS[language]):
        if isinstance(msgid, tuple):
            continue
        if language == "ru":
            msgstr = RUSSIAN_FREE.sub("", msgstr)
        for field, noun in re.findall(r"\{(\w+)\} (\w+)", msgstr):
            if re.match(INFLECTED[language], noun) and not (
                    field in AT_LEAST_TWO and language != "ru"):
                found.append(msgstr)
    assert not found, found
