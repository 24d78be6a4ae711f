"""Every screen of a whole game, read in a real terminal (pexpect + pyte): nothing a player
must read is cut with "…" at 80x24 (the main screen at every question, every page of F1 and
F3 at every question, the newest page of F2, and at game over every page of all three), the
choices' pages hold their numbers in order, and game over shows the final standings (places,
shared ones marked, doubloons, developments) at 80x24 and 120x40, as the record has them."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from tui_term import Term, answer, choices, environment, phase, stop_tables

pytestmark = pytest.mark.network  # every test plays in a pseudo-terminal (pexpect)

SEED = 7
F1, F2, F3 = "\x1bOP", "\x1bOQ", "\x1bOR"
PGUP, PGDN, ESC = "\x1b[5~", "\x1b[6~", "\x1b"
PAGES = {F1: "Help (F1 or Esc closes)", F2: "The whole log, newest last",
         F3: "Every player's table (F3 or Esc closes)"}


def settle(t: Term) -> str:
    """The screen once a frame is whole (Term.settle)."""
    return t.settle()


def page_of(t: Term) -> tuple[int, int]:
    m = re.search(r"page (\d+) of (\d+)", t.lines()[0])
    return (int(m.group(1)), int(m.group(2))) if m else (1, 1)


def turned(page: int, pages: int) -> Callable[[Term], bool]:
    """Has the page shown changed from page ``page`` of ``pages``?"""
    return lambda t: page_of(t) != (page, pages)


def shows(text: str) -> Callable[[Term], bool]:
    return lambda t: text in t.text()


def overlay(t: Term, key: str, every_page: bool = True, close: str = ESC) -> list[str]:
    """Open F1, F2 or F3, read its pages (F2: the newest, or all of them), close it with
    ``close`` (Esc, or the same key again)."""
    t.send(key)
    t.wait_text(PAGES[key])
    screens = [settle(t)]
    step = -1 if key == F2 else 1  # the log opens at its newest page
    for _ in range(40):  # (a page's count may change while it is open: bots play on)
        page, pages = page_of(t)
        if not every_page or not 1 <= page + step <= pages:
            break
        t.send(PGUP if key == F2 else PGDN)
        t.wait(turned(page, pages), what="the next page")
        screens.append(settle(t))
    t.send(close)
    t.wait(lambda t: PAGES[key] not in t.text(), what="the page to close")
    settle(t)
    return screens


# Sentences that end in "…" of their own, not cut: a slow machine may lose the connection
# for a moment.
NOT_CUT = ("Connection lost: reconnecting by itself…",)


def cut_lines(screen: str) -> list[str]:
    """The lines with a "…" that is not part of one of the client's own sentences, and a
    last entry "" standing for the screen read."""
    lines = [""]
    for line in screen.split("\n"):
        for sentence in NOT_CUT:
            line = line.replace(sentence, "")
        if "…" in line:
            lines.append(line)
    return lines


def choice_pages(t: Term) -> list[list[int]]:
    """The numbers on every page of a choice list that needs several (PgDn), in reading
    order; back on page 1 afterwards."""
    title = next(line for line in t.lines() if line.startswith(("Choices (", "Suggestions (")))
    m = re.search(r"page 1 of (\d+)", title)
    if not m:
        return []
    pages = []
    for page in range(1, int(m.group(1)) + 1):
        if page > 1:
            t.send(PGDN)
            t.wait(shows(f"page {page} of"), what=f"page {page}")
            settle(t)
        pages.append([item.number for item in choices(t)[1]])
    for _ in pages[1:]:
        t.send(PGUP)
    t.wait(lambda t: "page 1 of" in t.text(), what="page 1 again")
    settle(t)
    return pages


def pick(now: str, t: Term, combined: bool) -> tuple[int, bool]:
    """The first take kept as it is, one combination a turn (no merchant's) then "end the
    turn", else the first choice: its number, and whether a combination was made."""
    items = choices(t)[1]
    if now == "take":
        return next(c.number for c in items if c.words == "keep it"), False
    if now == "turn":
        usable = [c for c in items if c.words != "end the turn"
                  and not c.words.startswith("Convert")]
        if usable and not combined:
            return usable[0].number, True
        return next(c.number for c in items if c.words == "end the turn"), False
    return items[0].number, False


def play(t: Term, scan: bool) -> tuple[dict[str, list[str]], list[list[list[int]]], str]:
    """Play to the end; the cut lines found on each kind of screen (one entry per screen
    read), the pages of every choice list that had several, and the game-over screen."""
    found: dict[str, list[str]] = {}
    paged: list[list[list[int]]] = []
    steps: set[tuple[str, str]] = set()
    combined = False
    while True:
        now = t.wait(lambda t: "over" if "Final standings" in t.text() else phase(t),
                     what="a question or the end")
        screen = settle(t)
        if now == "over":
            break
        if scan:
            found.setdefault("main", []).extend(cut_lines(screen))
            # F1 and F3 change with the step and the round: read once for each.
            step = (screen.split(" · ")[0], now)
            keys = ((F1, "F1"), (F2, "F2"), (F3, "F3")) if step not in steps else ((F2, "F2"),)
            steps.add(step)
            for key, name in keys:  # (closed with the key: a lone Esc waits half a second
                # to be known from the start of a key's sequence; game over closes with Esc)
                for page in overlay(t, key, every_page=key != F2, close=key):
                    found.setdefault(name, []).extend(cut_lines(page))
        pages = choice_pages(t)
        if pages:
            paged.append(pages)
        number, combined = pick(now, t, combined)
        answer(t, str(number))
    over = settle(t)
    if scan:
        found.setdefault("game over", []).extend(cut_lines(over))
        for key, name in ((F1, "F1 at game over"), (F2, "F2 at game over"),
                          (F3, "F3 at game over")):
            for page in overlay(t, key):
                found.setdefault(name, []).extend(cut_lines(page))
    return found, paged, over


def standings(screen: str) -> list[list[str]]:
    """The rows of the final standings: place, player, doubloons, developments."""
    lines = screen.split("\n")
    start = lines.index("Final standings")
    assert re.match(r"Place +Player +Doubloons +Developments$", lines[start + 1]), screen
    rows = []
    for line in lines[start + 2:]:
        m = re.match(r"(\d+(?: \(tie\))?) +(.+?) +(\d+)  (\d+)(?::|$)", line)
        if not m:
            break
        rows.append(list(m.groups()))
    return rows


def expected(record: Path) -> list[list[str]]:
    """The standings the record's result gives (places shared marked "(tie)")."""
    data = json.loads(record.read_text())
    result, names = data["result"], data["names"]
    places = result["places"]
    seats = sorted(range(len(places)), key=lambda s: (places[s], s))
    return [[f"{places[s]} (tie)" if places.count(places[s]) > 1 else str(places[s]),
             names[s] + (" (you)" if s == 0 else ""), str(result["doubloons"][s])]
            for s in seats]


def run(tmp_path: Path, cols: int, rows: int, scan: bool, *extra: str
        ) -> tuple[dict[str, list[str]], list[list[list[int]]], str, Path]:
    record = tmp_path / "game.json"
    stop = stop_tables(tmp_path)
    t = Term(["play", "--bot-pace", "0", "--bots", "3", "--seed", str(SEED), "--name", "Ana",
              "--record", str(record), *extra], environment(tmp_path), cols=cols, rows=rows)
    try:
        found, paged, over = play(t, scan)
        t.send("\x04")  # Ctrl-D leaves
        assert t.finish() == 0
    finally:
        t.close()
        stop()
    return found, paged, over, record


def test_no_screen_of_a_whole_game_cuts_a_players_text_at_80x24(tmp_path: Path) -> None:
    found, paged, over, record = run(tmp_path, 80, 24, True)
    assert set(found) >= {"main", "F1", "F2", "F3", "game over", "F2 at game over"}
    screens = {name: lines.count("") for name, lines in found.items()}
    assert screens["main"] >= 30 and screens["F1"] >= 10 and screens["F3"] >= 10, screens
    cut = {name: [line for line in lines if line] for name, lines in found.items()
           if any(lines)}
    assert not cut, "\n".join(f"{name}: {line}" for name, lines in cut.items()
                              for line in lines)
    # The choices' pages: every list that needed several holds its numbers in order.
    assert paged, "no choice list of this game needed two pages at 80x24"
    for pages in paged:  # (the order inside a page, down then across: test_tui_choices)
        runs = [sorted(n for n in page if n != 0) for page in pages]  # 0) ends every page
        assert all(run == list(range(run[0], run[0] + len(run))) for run in runs), pages
        assert all(a[-1] < b[0] for a, b in itertools.pairwise(runs)), pages
    # Game over: the final standings, as the record has them (shared places: test_tui_choices).
    rows = standings(over)
    assert [row[:3] for row in rows] == expected(record)
    assert "Game over after" in over


def test_the_final_standings_at_120x40(tmp_path: Path) -> None:
    _, _, over, record = run(tmp_path, 120, 40, False, "--round-limit", "2")
    rows = standings(over)
    assert [row[:3] for row in rows] == expected(record)
    assert all(int(row[3]) >= 0 for row in rows)
    assert cut_lines(over) == [""]
