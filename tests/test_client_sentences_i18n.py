"""The log sentences, round summaries and F1 help in the player's language (issue 28): the same
events worded in Italian, Russian, Dutch and Korean with no English word left, placeholders all
filled, Russian counts in their three plural forms, and English unchanged when no language is
chosen (client/tui/sentences.py, client/tui/helptext.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from prompt_toolkit.utils import get_cwidth
from support.positions import bot_step

from mundus_net.bots.random_bot import RandomBot
from mundus_net.client import i18n
from mundus_net.client.i18n import translator
from mundus_net.client.tui.helptext import HELP, help_lines, help_text, round_summary, split_rounds
from mundus_net.client.tui.sentences import Narrator, event_text, sentence
from mundus_net.engine.deck import default_deck
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView, public_log
from mundus_net.protocol.codec import to_wire

NAMES = ["Ana", "Bo", "Cy", "Dee", "Eve"]
TRANSLATED = ("it", "ru", "nl", "ko")
# English words of the source sentences that none of the four languages writes. Words the
# languages share with English are left out: "in", "a", "per" (Italian, Dutch), "is", "set", "over",
# "of" (Dutch), "round", "rare" (Italian), "host", "bot", "client" (loanwords).
ENGLISH = frozenset(re.findall(r"\w+", """
the you your took take takes and with cards card offer offers offered doubloon doubloons
player players from into was were has have are game trade master market fleet fleets
series event queue nothing nobody turn relic relics warehouses warehouse seat rules see to
for by back away new begins ends received stored discarded paid gave chose will play first
pirates lost display dealt each shuffled draw pile sealed revealed showed perfect combination
made sold swapped earning joins left went income shipyards common uncommon merchant
caravel caravels choose pick store give announce split keep may when someone watching
"""))
# Latin-script words a Russian or Korean line may hold: the players' names, rule IDs, the
# rules document's path.
LATIN_ALLOWED = frozenset({*NAMES, "docs", "rules", "md", "R", "P", "TM"})


@cache
def _games() -> tuple[Game, ...]:
    games = []
    for seed in range(6):
        players = 2 + seed % 4
        g = Game.new(players, seed, promo=seed % 2 == 0, first_tm=None)
        bots = [RandomBot(seed * 31 + s) for s in range(players)]
        while not g.is_over:
            bot_step(g, bots)
        games.append(g)
    return tuple(games)


HOST_EVENTS: list[dict[str, Any]] = [
    {"kind": "joined", "seat": 1, "name": "Bo", "bot": True},
    {"kind": "joined", "seat": 2, "name": "Cy"},
    {"kind": "away", "seat": 0}, {"kind": "away", "seat": 1},
    {"kind": "back", "seat": 0}, {"kind": "back", "seat": 1},
    {"kind": "spectator", "name": "Eve"}, {"kind": "spectator"},
    {"kind": "committed", "seat": 0}, {"kind": "committed", "seat": 2},
    {"kind": "commitments", "round": 1},
    {"kind": "violation", "seat": 0}, {"kind": "violation", "seat": 2},
    {"kind": "timeout", "seat": 0, "phase": "take"}, {"kind": "timeout", "seat": 3},
    {"kind": "started"},
    {"kind": "fair_deal", "mixed": True}, {"kind": "fair_deal", "mixed": False},
    {"kind": "seed_reveal"}, {"kind": "stopping"},
    {"kind": "stand_in", "seat": 0}, {"kind": "stand_in", "seat": 1},
    {"kind": "stand_in_end", "seat": 0}, {"kind": "stand_in_end", "seat": 1},
    {"kind": "contribution_late", "seat": 0}, {"kind": "contribution_late", "seat": 2},
]


def _lines(language: str) -> Iterator[str]:
    """Every log line, round summary and help page of the played games, in ``language``."""
    t = translator(language)
    deck = default_deck()
    for g in _games():
        names = NAMES[:g.players]
        for seat in (None, *range(g.players)):
            narrate = Narrator(names, seat, deck, t)
            for event in public_log(g, seat):
                line = narrate(to_wire(event))
                if line is not None:
                    yield line
        for events in split_rounds(public_log(g, None)):
            yield from round_summary(events, names, deck, t)
        for kind in HELP:
            yield from help_lines(kind, 78, PlayerView(g, 0), t)
    for event in HOST_EVENTS:
        line = sentence(event, NAMES[:4], 0, deck, 3, t)
        if line is not None:
            yield line
    for code in (None, "KA", "IP", "ST", "FI", "PI"):
        yield event_text(code, t)


def _english_words(line: str, language: str) -> set[str]:
    words = re.findall(r"[A-Za-z]+", line.replace("docs/rules.md", ""))
    if language in ("ru", "ko"):
        return {w for w in words if w not in LATIN_ALLOWED}
    return {w for w in words if w.lower() in ENGLISH and w not in NAMES}


@pytest.mark.parametrize("language", TRANSLATED)
def test_log_summaries_and_help_hold_no_english_word(language: str) -> None:
    """R7 (every step of the round) and R8.4 (game over) worded in the player's language."""
    lines = list(_lines(language))
    assert len(lines) > 500
    found = {line: words for line in lines if (words := _english_words(line, language))}
    assert found == {}
    assert not [line for line in lines if "{" in line or "}" in line or "None" in line]


def test_the_same_event_reads_in_each_language() -> None:
    event = {"kind": "take", "seat": 1, "card": 2, "source": 0, "swap": 4}
    texts = {language: sentence(event, NAMES, 0, t=translator(language))
             for language in ("en", *TRANSLATED)}
    assert texts == {
        "en": "Bo took corn from you and swapped it for coffee in the market",
        "it": "Bo ha preso granturco da te, scambiandola con caffè del mercato",
        "ru": "Bo берёт: кукуруза (из предложения: вы); обмен на карту с рынка: кофе",
        "nl": "Bo nam maïs van jou en ruilde die voor koffie op de markt",
        "ko": "Bo님이 당신에게서 옥수수를 가져왔습니다; 시장의 커피와 교환",
    }


@pytest.mark.parametrize(("gain", "words"), [
    (1, "Вы получили 1 дублон"), (3, "Вы получили 3 дублона"), (5, "Вы получили 5 дублонов"),
    (11, "Вы получили 11 дублонов"), (21, "Вы получили 21 дублон"),
    (22, "Вы получили 22 дублона"),
])
def test_russian_counts_take_their_three_plural_forms_R6_8(gain: int, words: str) -> None:
    event = {"kind": "income", "seat": 0, "gain": gain, "parts": {}}
    assert sentence(event, NAMES, 0, t=translator("ru")) == words


def test_the_reader_and_another_seat_are_two_sentences() -> None:
    """Each language conjugates the verb for "you" and for a name (R5.5)."""
    ru = translator("ru")
    event = {"kind": "discard", "seat": 0, "cards": [2, 4]}
    assert sentence(event, NAMES, 0, t=ru) == "Вы сбросили: кукуруза, кофе"
    assert sentence(event, NAMES, 1, t=ru) == "Ana сбрасывает: кукуруза, кофе"
    assert sentence(event, NAMES, 0, t=translator("it")) == "Hai scartato: granturco, caffè"


def test_help_names_its_rule_ids_in_every_language_R5_5() -> None:
    for language in ("en", *TRANSLATED):
        text = help_text("take", t=translator(language))
        assert "R5.5, R5.6, R5.7, R5.8, R5.10" in text
    assert help_lines("take", 60, t=translator("nl"))[0] == "Neem een kaart"


def test_english_is_the_default_and_use_switches_the_process_language() -> None:
    event = {"kind": "round_end", "round": 4, "doubloons": [7, 9]}
    english = "Round 4 ends. Doubloons: Bo 9, you 7"
    try:
        assert sentence(event, NAMES, 0) == english
        assert sentence(event, NAMES, 0, t=translator("en")) == english
        i18n.use("nl")
        assert sentence(event, NAMES, 0) == "Einde van ronde 4. Dubloenen: Bo 9, jij 7"
        assert help_lines("store", 70)[0] == "Kaarten opslaan (einde van de ronde)"
    finally:
        i18n.use("en")
    assert sentence(event, NAMES, 0) == english


# -- the replay viewer and what the commands print (client/tui/replay.py, session.py) ----------


def _replay(language: str) -> Any:
    from mundus_net.bots.base import load_bot
    from mundus_net.client.tui.replay import Replay
    from mundus_net.engine.record import GameRecord
    from mundus_net.tools.runner import play_game

    game = Game.new(3, 11, round_limit=3)
    play_game(game, [load_bot("greedy", 11 + s) for s in range(3)])
    record = GameRecord.from_game(game, "test-11", NAMES[:3])
    return Replay(record, t=translator(language))


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_replay_status_and_log_are_in_the_language_R2_6(language: str) -> None:
    model = _replay(language)
    lines = []
    for seat in (None, 0, 1):
        model.set_seat(seat)
        for k in range(0, model.total + 1, 7):
            model.go(k)
            # The decision itself stays in the notation (docs/notation.md), language-neutral.
            lines.append(model.status().rsplit(" · ", 1)[0])
            lines.extend(model.sentences()[-3:])
    found = {line: words for line in lines if (words := _english_words(line, language))}
    assert found == {}


def test_the_replay_speaks_english_by_default() -> None:
    model = _replay("en")
    model.go(0)
    assert model.status() == (f"Decision 0 of {model.total} · round 1 · as spectator · the "
                              "start of the game")


def test_leaving_and_the_result_are_said_in_the_language(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """What `mundus join` prints after the screen closes (R8.4: places and doubloons)."""
    from types import SimpleNamespace

    from mundus_net.client.tui import session

    i18n.use("ru")
    try:
        seating = session.Seating("tcp://127.0.0.1:9", "Ana")
        session.say_how_to_come_back(seating, "Стол Аны", 0, NAMES[:2], None)
        result = SimpleNamespace(winners=(1,), rounds=12, reason="doubloons",
                                 doubloons=(41, 75), places=(2, 1))
        core: Any = SimpleNamespace(result=result, seat=0)
        session.say_result(core, NAMES[:2])
    finally:
        i18n.use("en")
    out = capsys.readouterr().out
    assert "Вы вышли из-за стола «Стол Аны». Ваше место 0 (Ana) сохранено" in out
    assert "Вернуться:" in out
    assert "Игра окончена после 12 раундов (набрано 75 дублонов): побеждает Bo." in out
    assert "  1. Bo: 75 дублонов\n  2. Ana (вы): 41 дублон\n" in out


@pytest.mark.parametrize("language", ("en", *TRANSLATED))
def test_help_lines_fit_their_width_in_cells_korean_included_R5_5(language: str) -> None:
    """F1 help is wrapped in terminal cells (a Korean syllable takes two), so no line is wider
    than the screen and the client needs no second wrapping; every word of the help is kept."""
    t = translator(language)
    for kind in HELP:
        for width in (24, 38, 78, 118):
            lines = help_lines(kind, width, t=t)
            assert all(get_cwidth(line) <= width for line in lines), (kind, width)
            title = t._(HELP[kind].title)
            whole = help_text(kind, t=t).replace(f"{title}.", title, 1)
            assert "".join(lines).replace(" ", "") == whole.replace(" ", ""), (kind, width)
