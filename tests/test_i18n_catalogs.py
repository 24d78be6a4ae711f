"""The language catalogs (mundus_net/i18n, issue 28): every message the sources mark, and every
name of the game, is translated in all five catalogs with the same placeholders and the
language's plural forms, and the shipped .mo files are compiled from the .po files; and which
language a player reads (--lang, remembered with the name, the system locale, English)."""

from __future__ import annotations

import argparse

import pytest
from babel.messages.catalog import Catalog, Message

from mundus_net.client import i18n_build
from mundus_net.client.i18n import (
    LANGUAGES,
    add_language_argument,
    choose_language,
    language_of_locale,
    saved_language,
    system_language,
    translator,
)


@pytest.fixture(scope="module")
def template() -> Catalog:
    """The messages of the sources as they are now: marked by later sessions too."""
    return i18n_build.extract()


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_message_is_translated_in_every_catalog(language: str, template: Catalog
                                                      ) -> None:
    assert i18n_build.problems(language, template) == []


def test_the_template_holds_every_name_and_the_marked_sentences(template: Catalog) -> None:
    ids = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in template if m.id}
    assert {(c, m) for c, m, _ in i18n_build.name_entries()} <= ids
    assert ("term", "{count} doubloon") in ids  # marked in mundus_net/i18n, a plural


def _problems(source: Message, translated: Message, language: str = "ru") -> list[str]:
    catalog = Catalog(locale=language)
    catalog.mime_headers = [("Plural-Forms", i18n_build.PLURAL_FORMS[language])]
    return list(i18n_build.message_problems(source, translated, catalog))


def test_a_translation_with_other_placeholders_is_named() -> None:
    source = Message("{seat} takes {card}")
    assert _problems(source, Message(source.id, "{seat} prende {carta}")) == [
        "has ['carta', 'seat'], not ['card', 'seat']"]
    assert _problems(source, Message(source.id, "{card}: {seat}")) == []


def test_a_plural_needs_each_form_of_the_language_with_the_placeholders() -> None:
    source = Message(("{count} card", "{count} cards"))
    assert _problems(source, Message(source.id, ("{count} карта", "{count} карты"))) == [
        "2 plural forms, the language has 3"]
    assert _problems(source, Message(source.id, ("{count} карта", "{count} карты", "карт"))) \
        == ["plural form 2 has [], not ['count']"]
    assert _problems(source, Message(source.id, ("{count}장",)), "ko") == []


def test_an_untranslated_or_fuzzy_message_is_named() -> None:
    assert _problems(Message("Storm"), Message("Storm", "")) == ["untranslated"]
    assert _problems(Message("Storm"), Message("Storm", "Шторм", flags=["fuzzy"])) == [
        "marked fuzzy"]


@pytest.mark.parametrize(("language", "counts", "words"), [
    ("en", (1, 2, 21), ("1 doubloon", "2 doubloons", "21 doubloons")),
    ("it", (1, 2, 21), ("1 doblone", "2 dobloni", "21 dobloni")),
    ("nl", (1, 2, 21), ("1 dubloen", "2 dubloenen", "21 dubloenen")),
    ("ru", (1, 3, 5, 11, 21, 22, 25), ("1 дублон", "3 дублона", "5 дублонов", "11 дублонов",
                                       "21 дублон", "22 дублона", "25 дублонов")),
    ("ko", (1, 2, 21), ("1더블룬", "2더블룬", "21더블룬")),
])
def test_doubloons_take_the_plural_form_of_the_language(language: str,
                                                        counts: tuple[int, ...],
                                                        words: tuple[str, ...]) -> None:
    t = translator(language)
    assert tuple(t.doubloons(n) for n in counts) == words


def test_an_unknown_language_reads_english() -> None:
    assert translator("de").language == "en"
    assert translator("de").event("ST") == "Storm"


@pytest.mark.parametrize(("value", "language"), [
    ("it_IT.UTF-8", "it"), ("ru_RU.utf8", "ru"), ("nl_BE@euro", "nl"), ("ko_KR.UTF-8", "ko"),
    ("en_GB", "en"), ("C.UTF-8", None), ("POSIX", None), ("de_DE.UTF-8", None),
])
def test_a_locale_names_its_language(value: str, language: str | None) -> None:
    assert language_of_locale(value) == language


def test_the_first_locale_variable_set_decides() -> None:
    assert system_language({"LANG": "it_IT.UTF-8"}) == "it"
    assert system_language({"LC_MESSAGES": "ko_KR.UTF-8", "LANG": "it_IT.UTF-8"}) == "ko"
    assert system_language({"LC_ALL": "nl_NL.UTF-8", "LC_MESSAGES": "ko_KR",
                            "LANG": "it_IT"}) == "nl"
    assert system_language({"LC_ALL": "", "LANG": "ru_RU.UTF-8"}) == "ru"
    assert system_language({"LC_ALL": "C", "LANG": "ru_RU.UTF-8"}) is None
    assert system_language({}) is None


def test_lang_beats_the_locale_and_is_remembered_for_that_name() -> None:
    italian = {"LANG": "it_IT.UTF-8"}
    assert choose_language(None, "Ana", {}) == "en"  # nothing set: English
    assert choose_language(None, "Ana", italian) == "it"  # the locale
    assert saved_language("Ana") is None  # the locale's choice is not remembered
    assert choose_language("ko", "Ana", italian) == "ko"
    assert choose_language(None, "Ana", italian) == "ko"  # remembered for Ana
    assert choose_language(None, "Boris", italian) == "it"  # not for another name
    assert choose_language("auto", "Ana", italian) == "it"  # forgotten: the locale again
    assert choose_language(None, "Ana", {}) == "en"


def test_lang_accepts_a_language_code_or_a_locale_and_refuses_others() -> None:
    parser = argparse.ArgumentParser()
    add_language_argument(parser)
    assert parser.parse_args(["--lang", "RU"]).lang == "ru"
    assert parser.parse_args(["--lang", "ko_KR.UTF-8"]).lang == "ko"
    assert parser.parse_args(["--lang", "auto"]).lang == "auto"
    assert parser.parse_args([]).lang is None
    with pytest.raises(SystemExit):
        parser.parse_args(["--lang", "de"])


@pytest.mark.parametrize("command", ["play", "join", "watch"])
def test_play_join_and_watch_take_lang(command: str) -> None:
    from mundus_net.cli import build_parser

    assert build_parser(command).parse_args([command, "--lang", "nl"]).lang == "nl"


@pytest.mark.parametrize("command", ["join", "watch"])
def test_the_chosen_language_reaches_the_client(command: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """What join and watch hand to the client (sit() replaced: nothing connects)."""
    import importlib

    from mundus_net.cli import build_parser
    from mundus_net.client.tui.session import Seating, save_name

    module = importlib.import_module(f"mundus_net.client.tui.{command}")
    seated: list[Seating] = []
    monkeypatch.setattr(module, "needs_terminal", lambda _command: False)

    def sit(seating: Seating) -> int:
        seated.append(seating)
        return 0

    monkeypatch.setattr(module, "sit", sit)
    for variable in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "nl_NL.UTF-8")
    save_name("Ana")  # watch remembers the language for the player's own name

    def run(*options: str) -> str:
        argv = [command, "tcp://127.0.0.1:9", "--name", "Ana", *options]
        args = build_parser(command).parse_args(argv)
        assert args.func(args) == 0
        return seated[-1].language

    assert run() == "nl"  # the locale
    assert run("--lang", "ko") == "ko"
    assert run() == "ko"  # remembered
    assert run("--lang", "auto") == "nl"


# The files whose messages `mundus host` and `mundus bot` print (issue 28).
CONSOLE_SOURCES = ("host/cli.py", "client/bot.py", "client/notices.py", "client/known_hosts.py",
                   "mundus_net/i18n")


def _values(text: str) -> dict[str, object]:
    return {name: f"<{name}>" for name in i18n_build.placeholders(text)}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_console_message_formats_with_its_placeholders(language: str,
                                                             template: Catalog) -> None:
    """Each message of the host's and the bot's consoles, translated, fills in every
    placeholder its source gives (and no other, no stray brace), each plural form included:
    a translation that breaks str.format would stop the host mid-game."""
    t = translator(language)
    console = [m for m in template if m.id and any(f.startswith(CONSOLE_SOURCES)
                                                   for f, _ in m.locations)]
    assert len(console) > 90
    for message in console:
        if isinstance(message.id, str):
            said = t.pgettext(message.context, message.id) if message.context \
                else t._(message.id)
            filled = said.format(**_values(message.id))
            assert "{" not in filled and "}" not in filled, (message.id, said)
            assert all(f"<{name}>" in filled for name in _values(message.id)), (message.id,
                                                                                said)
            continue
        singular, plural = message.id
        for count in (1, 2, 3, 5, 11, 21, 22):
            said = t.ngettext(singular, plural, count)
            filled = said.format(**_values(plural))
            assert "{" not in filled, (plural, count, said)
            if language != "en" or count != 1:
                assert all(f"<{name}>" in filled for name in _values(plural)), (plural, said)
