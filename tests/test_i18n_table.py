"""The table screen in the players' languages (issue 28; client/tui/render.py, app.py,
choices.py, advisor.py): a whole seeded game drawn at 80x24 and 120x40 in Italian, Russian,
Dutch and Korean, every question of seat 0, with no line wider than the screen in cells (Korean
syllables take two), no line cut with "…", and no English word of the client's messages on the
main screen; the words a player types (pass, help, a choice's words) work in their language;
English stays the source's own words."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.utils import get_cwidth

from mundus_net.bots.base import load_bot
from mundus_net.client import i18n_build
from mundus_net.client.connection import Connection
from mundus_net.client.core import ClientSettings
from mundus_net.client.i18n import translator, use
from mundus_net.client.notices import PendingDecision, PublicEvents, Refused
from mundus_net.client.tui import app as tui_app
from mundus_net.client.tui import render
from mundus_net.client.tui.app import Send, ShowHelp, Snapshot, TableModel
from mundus_net.client.tui.refusals import RULE_WORDS
from mundus_net.engine.decisions import EndTurn
from mundus_net.engine.game import Game, Pending
from mundus_net.engine.view import PlayerView, StateView, public_log
from mundus_net.protocol.codec import to_wire
from mundus_net.protocol.errors import ERROR_CODES

sys.path.insert(0, __file__.rsplit("/", 1)[0])  # tui_term, beside this file

NAMES = ("Ana", "Bo", "Cy", "Dee")  # names of no language
SIZES = ((80, 24), (120, 40))
LANGUAGES = ("it", "ru", "nl", "ko")
WORD = re.compile(r"[A-Za-z]{3,}")


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    """Each test chooses its language; English again after it (the process's default)."""
    yield
    use("en")


@pytest.fixture(scope="module")
def template() -> Catalog:
    return i18n_build.extract()


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


def english_words(template: Catalog, language: str) -> set[str]:
    """The words of the client's English messages that the language's catalog never uses
    itself (a word both languages write, as Dutch's "storm" or Italian's "round", is not
    English on a Dutch or Italian screen). The F1 help's notation examples (take:5@2,
    set:5:55R:q2) are left out of the language's words: they stay notation in every
    language."""
    catalog = i18n_build.read(language)
    source: set[str] = set()
    for message in template:
        if message.id:
            ids = [message.id] if isinstance(message.id, str) else list(message.id)
            for text in ids:
                source |= _words(re.sub(r"\{\w+\}", "", text))
    theirs: set[str] = set()
    for message in catalog:
        if not message.id or "notation" in str(message.id):
            continue
        string = message.string
        texts = [string] if isinstance(string, str) else list(string or ())
        for text in texts:
            theirs |= _words(re.sub(r"\{\w+\}", "", text))
    # (the cards' short names of the "On table" column are the language's own words)
    short = " ".join(render.short_names(translator(language)).values())
    return source - theirs - _words(" ".join(NAMES)) - _words(short)


def questions(seed: int) -> Iterator[tuple[TableModel, Game]]:
    """A model of seat 0's screen at each of its questions in a seeded game of greedy bots,
    fed the log as a network client gets it (each event once, seat 0's version beside)."""
    game = Game.new(4, seed=seed, promo=True)
    bots = [load_bot("greedy", s) for s in range(4)]
    model = TableModel(address="tcp://127.0.0.1:7700")
    seen = ident = 0
    while not game.is_over:
        pending = game.pending
        assert pending is not None
        if 0 in pending.seats:
            ident += 1
            public = public_log(game, None, seen)
            mine = public_log(game, 0, seen)
            seen = len(game.log)
            data = to_wire(PlayerView(game, 0).to_dict())
            view = StateView(data, game.deck, list(game.legal(0)),
                             Pending(pending.kind, (0,), pending.detail))
            ready = PendingDecision(id=ident, kind=pending.kind, detail=dict(pending.detail),
                                    legal=tuple(game.legal(0)), deadline=None, seq=ident)
            own = tuple(to_wire(m) if m != p else None for p, m in zip(public, mine,
                                                                        strict=True))
            model.on_notice(PublicEvents(ident, tuple(to_wire(e) for e in public), own),
                            Snapshot(view, ready, NAMES, (True, True, False, True),
                                     (False, True, True, True), online=True, seat=0))
            yield model, game
        seat = pending.seats[0]
        game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))


def problems(screen: list[str], width: int, english: set[str]) -> list[str]:
    found = []
    for line in screen:
        if get_cwidth(line) > width:
            found.append(f"wider than {width}: {line!r}")
        if "…" in line:
            found.append(f"cut: {line!r}")
        stray = _words(line) & english
        if stray:
            found.append(f"English {sorted(stray)}: {line!r}")
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_whole_game_reads_in_the_language_uncut_at_80x24_and_120x40(
        language: str, template: Catalog) -> None:
    use(language)
    english = english_words(template, language)
    assert {"queue", "market", "hand", "choices", "round"} & english  # the check can fail
    found: list[str] = []
    screens = 0
    for model, _ in questions(seed=5):
        for width, height in SIZES:
            screen = render.to_plain(model.draw(width, height)).split("\n")
            assert len(screen) <= height
            found += [f"{model.snap.view.phase} {width}x{height}: {p}"  # type: ignore[union-attr]
                      for p in problems(screen, width, english)]
            screens += 1
    assert screens > 50
    assert found[:10] == []


def test_english_words_are_found_where_a_message_is_left_english(template: Catalog) -> None:
    """The check above sees an untranslated message: the English screen is full of them."""
    english = english_words(template, "it")
    model, _ = next(questions(seed=5))
    use("en")
    screen = render.to_plain(model.draw(80, 24)).split("\n")
    assert any("English" in p for p in problems(screen, 80, english))


@pytest.mark.parametrize(("language", "size"), [(lang, size) for lang in LANGUAGES
                                                for size in SIZES])
def test_the_final_standings_read_in_the_language(language: str, size: tuple[int, int],
                                                  template: Catalog) -> None:
    use(language)
    english = english_words(template, language)
    game = Game.new(4, seed=3, promo=True)
    bots = [load_bot("greedy", s) for s in range(4)]
    while not game.is_over:
        seat = game.waiting_seats()[0]
        game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))
    width, height = size
    screen = render.lines_of(render.screen(PlayerView(game, 0), NAMES, width, height))
    assert problems(screen, width, english) == []
    title = {"it": "Classifica finale", "ru": "Итоговая таблица", "nl": "Eindstand",
             "ko": "최종 순위"}[language]
    assert any(title in line for line in screen)


@pytest.mark.parametrize(("language", "passing", "helping"), [
    ("it", "passo", "aiuto"), ("ru", "пас", "помощь"), ("nl", "pas", "hulp"),
    ("ko", "패스", "도움말")])
def test_the_words_a_player_types_work_in_the_language(language: str, passing: str,
                                                       helping: str) -> None:
    use(language)
    model, _ = next((m, g) for m, g in questions(seed=5) if EndTurn() in g.legal(0))
    assert model.interpret(passing) == Send((EndTurn(),))
    assert model.interpret("end") == Send((EndTurn(),))  # English works in every language
    assert model.interpret(helping) == ShowHelp()
    assert model.interpret("help") == ShowHelp()
    choice = model.choices()[0]
    assert model.interpret(choice.words.upper()) == Send(choice.decisions)  # by its words
    menu = model.completions(passing[:2])
    assert (passing, menu[0][1]) in menu  # Tab completes the word
    typed = choice.words[:4]
    assert (choice.words, choice.text) in model.completions(typed)


def test_the_table_app_speaks_the_players_language() -> None:
    """TableApp(language=) (session.py passes Seating.language, from --lang) makes it the
    language of every screen of the client."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        conn = Connection("tcp://127.0.0.1:1", ClientSettings("Ana"), insecure=True)
        table = tui_app.TableApp(conn, color=False, language="ko")
    assert table.translator.language == "ko"
    assert "연결 중" in render.to_plain(table.model.draw(80, 24))  # "Connecting to ..."
    model, _ = next(questions(seed=5))
    assert "라운드" in render.to_plain(model.draw(80, 24))


def test_korean_columns_are_padded_in_cells() -> None:
    assert render.ljust_cells("손패", 6) == "손패  "
    assert render.rjust_cells("손패", 5) == " 손패"
    assert get_cwidth(render.ljust_cells("교역장", 4)) == 6  # never cut
    wrapped = render.wrap_text("카드 열 " * 12, 20)  # 8 cells a time, 4 characters
    assert wrapped[0] == "카드 열 카드 열 카드" and len(wrapped) == 5
    assert all(get_cwidth(line) <= 20 for line in wrapped)
    assert " ".join(wrapped).split() == ("카드 열 " * 12).split()  # broken between words


# -- a whole game in a pseudo-terminal ---------------------------------------------------------

ASKED = re.compile(r"^(\S+)>(?: |$)")  # the input line at a question: the step's word, translated
OVER = {"it": "Classifica finale", "ru": "Итоговая таблица", "nl": "Eindstand",
        "ko": "최종 순위"}


def _lines(t: Any) -> list[str]:
    """The screen's lines, read cell by cell: pyte's own ``display`` fails on a cell left
    empty where a redraw overwrote half of a wide (Korean) character."""
    screen = t.screen
    return ["".join(screen.buffer[y][x].data for x in range(screen.columns)).rstrip()
            for y in range(screen.lines)]


def _settle(t: Any) -> list[str]:
    """The screen once a frame is whole (Term.settle)."""
    t.settle()
    return _lines(t)


def _asked(t: Any, over: str) -> str | None:
    """The step the input line asks about, "over" at the final standings, else None."""
    lines = _lines(t)
    if any(over in line for line in lines):
        return "over"
    m = ASKED.match(lines[-1])
    return m.group(1) if m else None


def _answer(t: Any, text: str) -> None:
    """Type ``text`` and Enter, once the input line shows it; then wait for it to clear."""
    t.send(text)
    t.wait(lambda t: _lines(t)[-1].endswith("> " + text), what=f"the echo of {text!r}")
    t.send("\r")
    t.wait(lambda t: _lines(t)[-1].endswith(">"), what="the input line to clear")


@pytest.mark.network
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_whole_game_in_a_terminal_at_80x24_in_the_language(
        language: str, template: Catalog, tmp_path: Path) -> None:
    """`mundus play --lang` against three bots in a pseudo-terminal: at every question the
    screen (table, log, choices, status and the input line) has no cut line and no English
    word; the turn ends with the language's pass word, every other question takes its first
    choice; taking your own card is refused in the language (R5.5), F1's pages read in it;
    the final standings come in the language (the review's command, with the record's path,
    is read as F1's notation is: paths and commands are no prose)."""
    from tui_term import Term, environment, stop_tables

    use(language)
    english = english_words(template, language) - {"greedy"}  # the bots' names
    stop = stop_tables(tmp_path)
    t = Term(["play", "--bot-pace", "0", "--bots", "3", "--seed", "7", "--name", "Ana",
              "--lang", language], environment(tmp_path), cols=80, rows=24)
    tr = translator(language)
    turn = tr._(tui_app.PROMPTS["turn"]).rstrip("> ")
    take = tr._(tui_app.PROMPTS["take"]).rstrip("> ")
    refused = tr._("Refused: {reason}").format(reason="R5.5: ")
    help_title = tr._("Help (F1 or Esc closes)")
    # (its start: a long translation may be cut on the status line)
    game_over = tr._("The game is over: press Enter (or Ctrl-D) to leave.")[:16]
    found: list[str] = []
    questions = 0
    tried: set[str] = set()
    try:
        while True:
            now = t.wait(lambda t: _asked(t, OVER[language]), what="a question or the end")
            if now == "over":  # the standings are drawn a frame before the game-over notice
                t.wait(lambda t: game_over in "\n".join(_lines(t)), what="the game-over line")
            found += [f"{now}: {p}" for p in problems(_settle(t), 80, english)
                      # the review's command at the end names the record's path: not prose
                      if now != "over" or "English" not in p or _prose_english(p, english)]
            if now == "over":
                break
            if now == take and "refusal" not in tried:  # your own card: the host refuses
                tried.add("refusal")
                _answer(t, "take:1@0")  # seat 0 is Ana's own
                t.wait(lambda t: any(refused in line for line in _lines(t)),
                       what="the refusal in the language")
                found += [f"refused: {p}" for p in problems(_settle(t), 80, english)]
            if now == turn and "help" not in tried:  # F1: the turn's help, then the commands
                tried.add("help")
                t.send("\x1bOP")
                t.wait(lambda t: help_title in _lines(t)[0], what="the help page")
                shown: list[str] = []
                for page in range(3):
                    if page:  # the page PageDown turned to, drawn
                        def turned(t: Any, before: list[str] = shown) -> bool:
                            return _lines(t) != before
                        t.wait(turned, what=f"F1's page {page + 1}")
                    shown = _settle(t)
                    found += [f"F1 page {page + 1}: {p}" for p in problems(shown, 80, english)
                              if "English" not in p or _prose_english(p, english)]
                    numbers = re.findall(r"\d+", shown[0])  # the title: ... page N of M
                    if len(numbers) < 3 or numbers[-2] == numbers[-1]:
                        break  # the last page
                    t.send("\x1b[6~")  # PageDown
                t.send("\x1b")  # Esc closes
                t.wait(lambda t: help_title not in _lines(t)[0], what="the help to close")
            questions += 1
            _answer(t, tui_app.typed_words("pass")[0] if now == turn else "1")
        t.send("\x04")  # Ctrl-D leaves
        assert t.finish() == 0
    finally:
        t.close()
        stop()
    assert questions >= 30
    assert found[:10] == []


def _numbers(lines: list[str], names: tuple[str, ...]) -> dict[str, list[str]]:
    """The players table's numbers of each named seat ($, hand, stored): language-neutral."""
    rows: dict[str, list[str]] = {}
    for line in lines:
        m = re.match(r"^[> ] (\S+)", line)
        if m and m.group(1) in names and m.group(1) not in rows:
            rows[m.group(1)] = re.findall(r"(?<!\S)\d+(?!\S)", line)[:3]
    return rows


@pytest.mark.network
def test_three_players_of_three_languages_share_a_table(tmp_path: Path) -> None:
    """A `mundus host` and three `mundus join --lang` in pseudo-terminals (Italian, Russian,
    Korean) play a game together with a bot: each reads its own language at every question
    (no English word, no cut line) and all three see the same table (its numbers), at the
    offer step of round 2 where the game waits for the three of them."""
    from support.waits import free_ports
    from test_tui_lobby import Host
    from tui_term import Term, environment

    players = (("it", "Ana"), ("ru", "Boris"), ("ko", "Chul"))
    names = tuple(name for _, name in players)
    english = {lang: english_words(i18n_build.extract(), lang) - {"greedy", "bot"}  # greedy bot 0
               for lang, _ in players}
    offer = {lang: translator(lang)._(tui_app.PROMPTS["commit"]).rstrip("> ")
             for lang, _ in players}
    turn = {lang: translator(lang)._(tui_app.PROMPTS["turn"]).rstrip("> ")
            for lang, _ in players}
    second = {lang: translator(lang)._("Round {number}").format(number=2)
              for lang, _ in players}
    host = Host(tmp_path, "--seats", "4", "--bots", "1", "--port", str(free_ports()),
                "--seed", "3", "--no-invite", "--name", "Babel")
    terms: dict[str, Term] = {}
    found: list[str] = []
    try:
        address = host.wait_line(r"join at (tcp://\S+)").group(1)
        for lang, name in players:
            terms[lang] = Term(["join", address, "--name", name, "--lang", lang],
                               environment(tmp_path / name), cols=80, rows=24)
        deadline = time.monotonic() + 240
        while True:
            assert time.monotonic() < deadline, "\n----\n".join(
                "\n".join(_lines(t)) for t in terms.values())
            waiting = 0
            for lang, t in terms.items():
                t.pump(0.05)
                now = _asked(t, "\x00")
                if now is None:
                    continue
                screen = _settle(t)
                found += [f"{lang} {now}: {p}" for p in problems(screen, 80, english[lang])]
                if now == offer[lang] and second[lang] in screen[0]:
                    waiting += 1  # round 2's offers: wait for the others there
                    continue
                _answer(t, tui_app.typed_words("pass", translator(lang))[0]
                        if now == turn[lang] else "1")
            if waiting == len(terms):
                break
        for t in terms.values():
            t.send("x\x7f")  # a key: the round's summary gives the players table its place
        time.sleep(0.5)
        tables = [_numbers(_settle(t), names) for t in terms.values()]
        assert tables[0] == tables[1] == tables[2] and len(tables[0]) == 3, tables
    finally:
        for t in terms.values():
            t.close()
        host.stop()
    assert found[:10] == []


# Every refusal a player can meet: each error code of docs/protocol.md §10, and an engine
# refusal (``illegal``) of each rule the engine names (mundus_net/engine/game.py, RuleError).
REFUSALS = [(code, None) for code in sorted(ERROR_CODES) if code != "illegal"] + \
    [("illegal", rule) for rule in sorted(RULE_WORDS)] + [("illegal", "R8.2"), ("illegal", "R9.9")]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_refusal_is_worded_in_the_language_from_its_code_and_rule_R5_5_R6_2(
        language: str, template: Catalog) -> None:
    """The host's refusal is worded by the client from its code and rule ID: the host's
    English message never reaches the screen; the rule ID stays (docs/rules.md), and the
    status line and log hold no English word and no cut line at 80x24."""
    use(language)
    english = english_words(template, language)
    model, _ = next(questions(seed=5))
    found: list[str] = []
    for number, (code, rule) in enumerate(REFUSALS):
        message = f"{rule}: seat 1 has no such card on the table" if rule \
            else ERROR_CODES[code]
        model.on_notice(Refused(code=code, message=message, rule=rule, request="decide",
                                id=number), model.snap)
        shown = [model.status.text, *([model.sentences[-1]] if code != "stale" else [])]
        for text in shown:
            assert "seat 1" not in text and ERROR_CODES[code] not in text, text
            if rule:
                assert rule in text
            found += [f"{code} {rule}: {p}" for p in problems([text], 10**4, english)]
        screen = render.to_plain(model.draw(80, 24)).split("\n")
        found += [f"{code} {rule} 80x24: {p}" for p in problems(screen, 80, english)]
    assert found == []


def test_an_english_refusal_keeps_the_engines_detail_in_player_terms_R5_5() -> None:
    """In English the engine's own detail, which names the card or seat, is kept."""
    use("en")
    model, _ = next(questions(seed=5))
    model.on_notice(Refused(code="illegal", message="R5.5: seat 1 has no such card on the table",
                            rule="R5.5", request="decide", id=1), model.snap)
    assert model.status.text == "Refused: R5.5: Bo has no such card on the table"
    model.on_notice(Refused(code="seat_in_use", message="whatever the host says", rule=None,
                            request="hello", id=2), model.snap)
    assert model.status.text == "Refused: another client sits in this seat right now"


# What stays as it is typed in every language: notation (take:5@2, series:12345), paths
# (docs/rules.md), commands (`mundus play`) and key names.
NOT_PROSE = re.compile(r"`[^`]*`|\S*[:/@]\S*|\b(?:PageUp|PageDown|Ctrl|Tab|Esc|Enter|end)\b")


def _prose_english(problem: str, english: set[str]) -> set[str]:
    """The English words of a problem's line once its notation, paths and keys are left out."""
    line = problem.split(": ", 1)[1]
    return _words(NOT_PROSE.sub(" ", line)) & english


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_help_page_reads_in_the_language_uncut_at_80_columns(
        language: str, template: Catalog) -> None:
    """F1 at each question of a whole game: the help page (the step's help with its rule IDs,
    the commands, the events) has no English word, no cut line and no line wider than the
    screen's 78 cells of text, Korean included."""
    use(language)
    english = english_words(template, language)
    found: list[str] = []
    kinds: set[str] = set()
    for model, _ in questions(seed=5):
        kind = model.ready.kind if model.ready is not None else ""
        if kind in kinds:
            continue
        kinds.add(kind)
        page = model.help_lines(78)
        assert any(re.search(r"\b[RP]\d", line) for line in page), kind  # its rule IDs
        found += [f"{kind}: {p}" for p in problems(page, 78, english)
                  if "English" not in p or _prose_english(p, english)]
        model.open_overlay("help")
        screen = render.to_plain(model.draw(80, 24)).split("\n")
        found += [f"{kind} 80x24: {p}" for p in problems(screen, 80, english)
                  if "English" not in p or _prose_english(p, english)]
        model.open_overlay(None)
    assert len(kinds) >= 5
    assert found == []


def test_a_refused_reveal_says_the_default_offer_was_played_in_each_language_R5_2() -> None:
    """A reveal the rules refuse had the default offer played (protocol §7): the client says
    so from the request's type, in every language (English keeps the host's detail)."""
    from mundus_net.client.tui.refusals import refusal_reason
    host = "R5.2: offer exactly 2 card(s) (the default offer was played)"
    for language in LANGUAGES:
        t = translator(language)
        reason = refusal_reason("illegal", "R5.2", host, t=t, request="reveal")
        assert reason == t._("{reason} (the default offer was played)").format(
            reason="R5.2: " + t._(RULE_WORDS["R5.2"]))
        assert "default" not in reason
    assert refusal_reason("illegal", "R5.2", host, t=translator("en"), request="reveal") == host
