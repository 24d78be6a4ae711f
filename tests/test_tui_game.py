"""The real terminal client in a pseudo-terminal: ``mundus play --bots 3`` played to its end.

The test reads the screen (pyte) and types as a person would: the first choice by number,
``end`` in the progression turn once a combination is made. Afterwards the game record the
table wrote is replayed, and every screen the test answered is checked against the engine at
that moment: the hand, the number of legal decisions and the choices listed. The final result
on the screen is the record's. Along the way: help (F1) with rule IDs, Tab completion, chat,
a malformed decision, a decision of the wrong kind, and one the engine refuses (its rule ID
shown, the decision asked again)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from tui_term import (
    Term,
    answer,
    choices,
    colour_codes,
    environment,
    hand,
    phase,
    stop_tables,
)

from mundus_net.engine.game import Game
from mundus_net.engine.notation import format_decision, parse_decision
from mundus_net.engine.view import PlayerView

ME = 3  # the bots take the first seats
SEED = 7
ROUNDS = 3

pytestmark = pytest.mark.network  # every test plays in a pseudo-terminal (pexpect)


@dataclass
class Seen:
    """One decision as the screen showed it, and what the test typed."""

    phase: str
    hand: list[int]
    count: int
    items: list[str]
    legal_total: int | None  # the turn's "of N legal"
    typed: str  # the decision(s) the typed line stands for, in notation


def ask(t: Term) -> str:
    """Wait for a question (or the end); its phase, or "over"."""
    return str(t.wait(lambda t: "over" if "Game over after" in t.text() else phase(t),
                      what="a question or the end"))


def status(t: Term) -> str:
    return t.lines()[-2]


def test_a_whole_game_against_three_bots(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    stop = stop_tables(tmp_path)  # should the test fail midway
    t = Term(["play", "--bots", "3", "--seed", str(SEED), "--round-limit", str(ROUNDS),
              "--name", "Ana", "--record", str(record)], environment(tmp_path))
    seen: list[Seen] = []
    try:
        assert ask(t) == "offer"
        _detours(t)
        made_combination = False
        while (now := ask(t)) != "over":
            count, items = choices(t)
            assert items, t.text()
            total = None
            if now == "turn":
                m = re.search(r"Suggestions \(\d+ of (\d+) legal", t.text())
                assert m, t.text()
                total = int(m.group(1))
                # One combination a turn (never a conversion plan, which sends two), then end.
                if not made_combination and items[0] != "end" and "," not in items[0]:
                    typed, line, made_combination = items[0], "1", True
                else:
                    typed, line, made_combination = "end", "end", False
            else:
                typed, line = items[0], "1"
            seen.append(Seen(now, hand(t), count, items, total, typed))
            answer(t, line)
        final = t.text()
        t.send("\x04")  # Ctrl-D leaves
        t.wait_raw(r"Game over after 3 rounds \(the round limit\): .* wins?")
        assert t.finish() == 0
    finally:
        t.close()
        stop()
    assert colour_codes(bytes(t.raw)), "xterm-256color without NO_COLOR should be coloured"

    data = json.loads(record.read_text())
    result = data["result"]
    names = data["names"]
    assert names[ME] == "Ana" and result["rounds"] == ROUNDS
    winners = " and ".join(names[s] for s in result["winners"])
    best = result["doubloons"][result["winners"][0]]
    assert f"Game over after 3 rounds (the round limit): {winners}" in final
    assert f"with {best} doubloons" in final

    # Replay the record: before each of this seat's decisions the engine's hand and legal
    # decisions are what the screen showed.
    options = data["options"]
    game = Game.new(options["players"], options["seed"], first_tm=options["first_tm"],
                    round_limit=options["round_limit"])
    mine = 0
    for seat, text, _by in data["decisions"]:
        _, decision = parse_decision(text)
        if seat == ME:
            assert mine < len(seen), f"the record has more decisions of seat {ME} than typed"
            shown = seen[mine]
            legal = [format_decision(d) for d in game.legal(ME)]
            assert sorted(PlayerView(game, ME).hand) == shown.hand, (mine, shown)
            assert format_decision(decision) == shown.typed.split(",")[0], (mine, shown)
            if shown.phase == "turn":
                assert shown.legal_total == len(legal)
                assert all(item.split(",")[0] in legal for item in shown.items)
                assert shown.items[-1] == "end" or len(shown.items) < shown.count
            else:
                assert shown.count == len(legal), (mine, shown, legal)
                assert shown.items == legal[:len(shown.items)], (mine, shown, legal)
            mine += 1
        game.apply(seat, decision)
    assert mine == len(seen)
    assert game.is_over and game.result is not None
    assert list(game.result.doubloons) == result["doubloons"]


def _detours(t: Term) -> None:
    """At the first question (an offer): help, completion, chat and bad decisions, none of
    which answers it."""
    t.send("\x1bOP")  # F1
    t.wait_text("Help (F1 or Esc closes)")
    # The title can be drawn a frame before the body: wait for the body too.
    t.wait(lambda term: "Rules: R5.2, R5.3" in re.sub(r"\s+", " ", term.text()),
           what="the offer help with its rule IDs")
    t.send("\x1bOP")
    t.wait(lambda t: "Help (F1" not in t.text(), what="the help to close")

    t.send("off\t")  # Tab completes the common part and lists the offers
    t.wait(lambda t: t.lines()[-1].startswith("offer> offer:"), what="the completion")
    t.wait_text("cocoa, corn (worth 3)")  # the menu, with each offer's words
    t.send("\x1b")  # Esc closes the menu
    t.wait(lambda t: "(worth 3)" not in t.text(), what="the menu to close")
    t.send("\x15")  # Ctrl-U empties the line
    t.wait(lambda t: t.lines()[-1] == "offer>", what="an empty line")

    answer(t, "say hello table")
    t.wait_text("<Ana> hello table")

    answer(t, "offer:")
    t.wait(lambda t: "needs an argument" in status(t), what="the notation error")
    answer(t, "announce:3")
    t.wait(lambda t: "does not answer this decision" in status(t), what="the kind error")
    answer(t, "99")
    t.wait(lambda t: "Choose 1-10" in status(t), what="the range error")
    assert phase(t) == "offer"


def test_a_refused_decision_shows_the_rule_and_is_asked_again(tmp_path: Path) -> None:
    """Taking your own offered card parses and is of the right kind, so it goes to the host;
    the engine refuses it (R5.5) and the same question is asked again."""
    stop = stop_tables(tmp_path)
    t = Term(["play", "--bots", "3", "--seed", str(SEED), "--round-limit", "1", "--name",
              "Ana"], environment(tmp_path), cols=80, rows=24)
    try:
        assert ask(t) == "offer"
        answer(t, "1")  # offers cocoa and corn (seed 7)
        assert ask(t) == "take"
        answer(t, f"take:1@{ME}")
        t.wait(lambda t: "Refused: R5.5: take a card of another player" in t.text(),
               what="the refusal")
        assert phase(t) == "take"
        answer(t, "1")
        t.wait(lambda t: "Refused" not in status(t), what="the next question")
    finally:
        t.close()
        stop()
