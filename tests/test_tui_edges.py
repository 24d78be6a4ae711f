"""The edges a player meets in the first hour (issue 36), each the way a person meets it: the
real client in a pseudo-terminal (pexpect + pyte), keys in, the screen read, at 80x24 and
larger. A line of any length leaves the next prompt whole; a refusal's hint names only what
the question accepts; below 80x24 the screen says how big to make the terminal, and the
table comes back when it is; the "On table" column shows the cards in words, a blank before
the next column; "N more (F3)" counts developments; a round's summary never leaves out what
a player's doubloons came from; a progression turn's pages hold whole groups, several to a
page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tui_term import Shown, Term, answer, choices, environment, phase, stop_tables

from mundus_net.engine.cards import RESOURCE_NAMES

pytestmark = pytest.mark.network  # every test plays in a pseudo-terminal (pexpect)

SEED = 7
F3 = "\x1bOR"
PGDN = "\x1b[6~"
SIZES = [(80, 24), (120, 40)]
# The cards' short names in English, as docs/client.md lists them.
SHORT = {"coc", "cor", "tob", "cof", "cot", "sug", "pot", "ind", "van", "rel"}


@contextmanager
def playing(tmp_path: Path, cols: int = 80, rows: int = 24, *extra: str) -> Iterator[Term]:
    """``mundus play --seed 7`` as Ann, the bots moving at once; its table stopped after."""
    stop = stop_tables(tmp_path)
    t = Term(["play", "--bot-pace", "0", "--bots", "3", "--seed", str(SEED), "--name", "Ann",
              "--no-record", *extra], environment(tmp_path), cols=cols, rows=rows)
    try:
        yield t
    finally:
        t.close()
        stop()


def ask(t: Term) -> str:
    """Wait for a question; its phase (the input line's prompt, whole)."""
    return str(t.wait(phase, what="a question"))


def status(t: Term) -> str:
    """The status above the input line (a long message takes two lines)."""
    return " ".join(line.strip() for line in t.lines()[-3:-1])


def refused(t: Term, typed: str) -> str:
    """Type ``typed`` and Enter; the status line's answer, once the input line is clear."""
    t.send(typed)
    t.wait(lambda t: t.lines()[-1].endswith(typed[-20:]), what="the echo")
    t.send("\r")
    t.wait(lambda t: "not something you can do here" in status(t), what="the hint")
    t.settle()
    return status(t)


@pytest.mark.parametrize("cols, rows", SIZES)
def test_a_line_of_3000_characters_leaves_the_next_prompts_whole(tmp_path: Path, cols: int,
                                                                 rows: int) -> None:
    with playing(tmp_path, cols, rows) as t:
        assert ask(t) == "announce"  # Ann is the first Trade Master at seed 7
        said = refused(t, "x" * 3000)
        assert t.lines()[-1] == "announce>", t.text()  # not "ce>", nor blank
        assert said.startswith("“" + "x" * 30 + "” is not something")
        answer(t, "3")
        assert ask(t) == "offer"
        t.settle()
        assert t.lines()[-1] == "offer>", t.text()


def test_a_hint_names_pass_only_where_passing_is_allowed(tmp_path: Path) -> None:
    with playing(tmp_path) as t:
        assert ask(t) == "announce"
        said = refused(t, "zz")
        assert "type a number 1-3, help, or press Tab" in said and "pass" not in said, said
        answer(t, "3")
        assert ask(t) == "offer"
        said = refused(t, "zz")
        assert "type a number 1-4, help, or press Tab" in said and "pass" not in said, said
        play_to(t, "turn")  # the progression turn can end: "pass" is one of its answers
        said = refused(t, "zz")
        assert re.search(r"type a number [0-9, -]+, pass, help, or press Tab", said), said


@pytest.mark.parametrize("language, words", [("en", "make the terminal at least 80x24"),
                                             ("it", "allarga il terminale ad almeno 80x24")])
def test_below_80x24_the_screen_says_so_and_the_table_comes_back(
        tmp_path: Path, language: str, words: str) -> None:
    with playing(tmp_path, 60, 20, "--lang", language) as t:
        t.wait(lambda t: words in " ".join(t.lines()), what="the size to make it")
        t.settle()
        text = t.text()
        assert "60x20" in text and "Player" not in text and "Giocatore" not in text, text
        assert t.lines()[-1].endswith(">")  # the input line stays: typing still works
        for cols, rows, small in ((80, 24, False), (79, 24, True), (80, 23, True),
                                  (120, 40, False)):
            t.resize(cols, rows)

            def drawn(t: Term, small: bool = small) -> bool:
                said = words in " ".join(t.lines())
                return said if small else not said and t.lines()[0].startswith("Round 1 · ")

            t.wait(drawn, what=f"the screen at {cols}x{rows}")
            if not small:
                t.settle()
                table = [line for line in t.lines() if re.match(r"> Ann |  greedy \d ", line)]
                assert len(table) == 4, t.text()  # the players table, whole


def play_to(t: Term, wanted: str, by_words: dict[str, str] | None = None) -> None:
    """Answer every question until ``wanted`` is asked: the choice whose words (or group)
    hold the phase's entry of ``by_words`` if one does, else a take kept as it is, else the
    first choice (0, ending a progression turn)."""
    by_words = by_words or {}
    while (now := ask(t)) != wanted:
        t.settle()
        _, items = choices(t)
        assert items, t.text()
        answer(t, str(preferred(now, items, by_words.get(now)).number))


def preferred(now: str, items: list[Shown], words: str | None) -> Shown:
    if words is not None:
        for item in items:
            if (words in item.words or words in (item.group or "")) and (
                    now != "take" or item.words == "keep it"):
                return item
    if now == "take":
        return next(item for item in items if item.words == "keep it")
    if now == "turn":
        return next(item for item in items if item.number == 0)
    return items[0]


def column(lines: list[str], title: str, after: str) -> list[tuple[str, str]]:
    """Each player's row of the players table, cut at the column ``title``: (the cell, what
    stands before the next column ``after``'s start)."""
    head = next(i for i, line in enumerate(lines) if re.match(r"  Player +TM", line))
    start, end = lines[head].index(title), lines[head].index(after)
    return [(line[start:end], line[end - 2:end]) for line in lines[head + 1:head + 5]]


@pytest.mark.parametrize("cols, rows", SIZES)
def test_the_on_table_column_shows_the_cards_in_words_a_blank_before_the_next(
        tmp_path: Path, cols: int, rows: int) -> None:
    """At seed 7 Ann announces 4 and keeps the Trade Master's seat with the best offer: at
    her first take every offer lies whole on the table, 4 cards whose names do not fit the
    column (at 80 or 120 columns), and their short names do (docs/client.md)."""
    names = {*SHORT, *RESOURCE_NAMES.values()}
    with playing(tmp_path, cols, rows) as t:
        play_to(t, "take", {"announce": "offers 4", "offer": "worth 21"})
        t.settle()
        cells = column(t.lines(), "On table", "Developments")
        for cell, gap in cells:
            assert cards_in(cell, names) == 4, (cell, t.text())
            assert gap == "  ", t.text()  # two blanks at least: the cell does not run on
        assert any(", " not in cell for cell, _ in cells)  # short names: the names do not fit


def cards_in(cell: str, names: set[str]) -> int:
    """How many cards a cell of the "On table" column names: ``cocoa, corn, coffee ×2``,
    ``coc cor cof cof`` or ``coc cor cof×2`` (never a bare value)."""
    items = cell.strip().split(", ") if ", " in cell else cell.split()
    count = 0
    for item in items:
        m = re.fullmatch(r"(.+?) ?×(\d)", item)
        name, times = (m.group(1), int(m.group(2))) if m else (item, 1)
        assert name in names, (item, cell)
        count += times
    return count


def test_n_more_counts_developments_not_parts(tmp_path: Path) -> None:
    """Ann buys the Warehouse for 1 in round 1 (stores 1, +1 a round): in round 2's take
    step, beside the "On table" column, her developments read "1 more (F3)", not "2 more"."""
    with playing(tmp_path) as t:
        play_to(t, "store", {"announce": "offers 4", "offer": "worth 21", "take": "cocoa from",
                             "gift": "sugar cane", "first": "you play first",
                             "turn": "Warehouse for 1"})
        play_to(t, "take")
        t.settle()
        lines = t.lines()
        head = next(line for line in lines if "On table" in line)
        ann = next(line for line in lines if line.startswith(("> Ann ", "  Ann ")))
        developments = ann[head.index("Developments"):].strip()
        assert developments in ("1 more (F3)", "store 1 (F3)"), t.text()


BOT = "ExplorerOfTheSea"  # greedy, under a name as long as the summary's name column


def _summary_rows(lines: list[str]) -> dict[str, str]:
    """The round's summary on the main screen: each player's row, with its continuation."""
    at = next(i for i, line in enumerate(lines) if re.match(r"Round \d+ is over", line))
    rows: dict[str, str] = {}
    who = ""
    for line in lines[at + 1:]:
        m = re.match(rf"  (you|{BOT} \d) +([+-]?\d+)\b(.*)", line)
        if m:
            who = m.group(1)
            rows[who] = m.group(3).strip()
        elif who and line.startswith("    ") and line.strip():
            rows[who] += " " + line.strip()
        else:
            break
    return rows


def _sources_in_f3(t: Term) -> dict[str, str]:
    """What each player's doubloons came from, as F3's summary says it in full."""
    t.send(F3)
    t.wait_text("Every player's table")
    t.settle()
    text = re.sub(r"\s+", " ", " ".join(t.lines()))
    t.send(F3)
    t.wait(lambda t: "Every player's table" not in t.text(), what="F3 to close")
    t.settle()
    return dict(re.findall(rf"(you|{BOT} \d): [+-]\d+ \(([^)]*)\)", text))


def test_a_rounds_summary_keeps_every_players_sources(tmp_path: Path) -> None:
    """At 80x24 a row whose developments' names are long once lost what its doubloons came
    from ("greedy bot 1 +14 now 47 took Shipyard"): it goes on a row of its own instead."""
    strategy = tmp_path / "explorers.py"
    strategy.write_text("from mundus_net.bots.greedy import GreedyBot\n\n\n"
                        f"class {BOT}(GreedyBot):\n    pass\n")
    checked = 0
    rounds = 1
    with playing(tmp_path, 80, 24, "--round-limit", "5", "--strategy",
                 f"{strategy}:{BOT}") as t:
        while True:
            now = t.wait(lambda t: "over" if "Final standings" in t.text() else phase(t),
                         what="a question or the end")
            screen = t.settle()
            if now == "over":
                break
            m = re.match(r"Round (\d+) · ", screen)
            if m and int(m.group(1)) > rounds:  # a new round's first question: the summary
                rounds = int(m.group(1))       # of the last is on the screen (or comes)
                t.wait(lambda t: re.search(r"^Round \d+ is over", t.text(), re.M),
                       what="the round's summary")
                t.settle()
                rows = _summary_rows(t.lines())
                for who, sources in _sources_in_f3(t).items():
                    assert f"({sources})" in rows.get(who, ""), (who, sources, t.text())
                    checked += 1
            _, items = choices(t)
            answer(t, str(preferred(str(now), items, None).number))
    assert rounds == 5 and checked >= 8


def _pages(t: Term) -> list[list[str]]:
    """Every page of the choices shown (PgDn), each page's lines below its title."""
    first = next(line for line in t.lines() if line.startswith("Suggestions ("))
    m = re.search(r"page 1 of (\d+)", first)
    pages = []
    for page in range(1, int(m.group(1)) + 1 if m else 2):
        if page > 1:
            t.send(PGDN)
            t.wait_text(f"page {page} of")
        lines = t.settle().split("\n")
        at = next(i for i, line in enumerate(lines) if line.startswith("Suggestions ("))
        pages.append(lines[at + 1:-2])
    return pages


def test_a_progression_turns_pages_hold_whole_groups_several_to_a_page(tmp_path: Path) -> None:
    """Ann's warehouse puts a stored-cards line on her screen. At round 2's progression turn
    her three groups of suggestions (10 choices) once took two pages at 80x24, a group alone
    on one: given the rows of the question's summary line, the empty stored line and the
    log's older moves, they are one page, every group under its title."""
    with playing(tmp_path) as t:
        play_to(t, "store", {"announce": "offers 4", "offer": "worth 21", "take": "cocoa from",
                             "gift": "sugar cane", "first": "you play first",
                             "turn": "Warehouse for 1"})
        play_to(t, "turn", {"first": "you play first"})
        t.settle()
        assert t.text().count(" Set of ") == 2, t.text()
        pages = _pages(t)
        assert len(pages) == 1, pages
        assert re.match(r" Set of 4 sugar cane .*:$", pages[0][0]), pages
        numbers = [int(n) for line in pages[0] for n in re.findall(r"(\d+)\) ", line)]
        assert numbers == [*range(1, 10), 0], pages
        lines = t.lines()
        above = lines[next(i for i, line in enumerate(lines) if line.startswith("Hand ")) - 1]
        assert above.startswith(("greedy", "  ")), t.text()  # the newest move stays
