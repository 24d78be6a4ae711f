"""The real terminal client in a pseudo-terminal: ``mundus play --bots 3`` played to its end.

The test reads the screen (pyte) and plays as a person would, by the choices' words: an
offer by its cards, a take by the card and the player it comes from ("keep it"), in the
progression turn the first combination and then "end the turn". No choice on any screen is
notation alone. Afterwards the game record the table wrote is replayed, and every screen the
test answered is checked against the engine at that moment: the hand, the number of legal
decisions, and that the words picked name the decision that was sent. The final result on
the screen is the record's. Along the way: help (F1) with rule IDs, Tab completion, chat,
a malformed decision, a decision of the wrong kind, nonsense, and one the engine refuses
(its rule ID shown in the player's terms, the decision asked again)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from tui_term import (
    NOTATION_ONLY,
    Shown,
    Term,
    answer,
    choices,
    colour_codes,
    environment,
    hand,
    phase,
    stop_tables,
)

from mundus_net.engine.cards import RESOURCE_NAMES
from mundus_net.engine.decisions import (
    Decision,
    EndTurn,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
    Offer,
    Take,
)
from mundus_net.engine.game import Game
from mundus_net.engine.notation import parse_decision
from mundus_net.engine.view import PlayerView

ME = 0  # mundus play seats its player first; the bots are "greedy 1-3" at seats 1-3
SEED = 7
ROUNDS = 3

pytestmark = pytest.mark.network  # every test plays in a pseudo-terminal (pexpect)


@dataclass
class Seen:
    """One decision as the screen showed it, and what the test picked."""

    phase: str
    hand: list[int]
    count: int
    items: list[Shown]
    legal_total: int | None  # the turn's "of N legal"
    picked: Shown


def ask(t: Term) -> str:
    """Wait for a question (or the end); its phase, or "over"."""
    return str(t.wait(lambda t: "over" if "Game over after" in t.text() else phase(t),
                      what="a question or the end"))


def first_offer(t: Term, seen: list[Seen] | None = None) -> None:
    """Wait for the first offer (announcing first when this seat is the first Trade Master)."""
    if ask(t) == "announce":
        count, items = choices(t)
        if seen is not None:
            seen.append(Seen("announce", hand(t), count, items, None, items[0]))
        answer(t, str(items[0].number))
    assert ask(t) == "offer"


def status(t: Term) -> str:
    """The status above the input line: a long message wraps to a second line, whole."""
    return " ".join(line.strip() for line in t.lines()[-3:-1])


def pick(now: str, items: list[Shown], combined: bool) -> Shown:
    """What a person would pick, by the words: the first take kept as it is, the first
    combination of the turn (then "end the turn"), else the first choice."""
    if now == "take":
        return next(c for c in items if c.words == "keep it")
    if now == "turn":
        if not combined:
            usable = [c for c in items if c.words != "end the turn"
                      and not c.words.startswith("Convert")]
            if usable:
                return usable[0]
        return next(c for c in items if c.words == "end the turn")
    return items[0]


def named(decision: Decision, shown: Shown, names: list[str]) -> bool:
    """Do the words picked on screen name this decision?"""
    def card(value: int) -> str:
        return RESOURCE_NAMES[value]

    match decision:
        case Take(seat, value, None):
            return shown.words == "keep it" and shown.group == f"{card(value)} from {names[seat]}"
        case Offer(cards):
            return shown.words.startswith(" + ".join(card(c) for c in cards) + " (worth")
        case MakeSet(value, cards, target):
            in_group = shown.group is not None and f"Set of {len(cards)} {card(value)}" in \
                shown.group
            return in_group and shown.words.startswith(f"queue {target}:")
        case MakeSeries(cards):
            return shown.words.startswith(f"Series of {len(cards)}")
        case MakeRelicSet(size):
            return shown.words.startswith(f"Relic set of {size}")
        case EndTurn():
            return shown.words == "end the turn"
    return bool(shown.words)


def test_a_whole_game_against_three_bots_by_the_words(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    stop = stop_tables(tmp_path)  # should the test fail midway
    t = Term(["play", "--bot-pace", "0", "--bots", "3", "--seed", str(SEED),
              "--round-limit", str(ROUNDS), "--name", "Ana", "--record", str(record)],
             environment(tmp_path), cols=80, rows=24)
    seen: list[Seen] = []
    try:
        first_offer(t, seen)
        _detours(t)
        combined = False
        while (now := ask(t)) != "over":
            count, items = choices(t)
            assert items, t.text()
            codes = [c.words for c in items if NOTATION_ONLY.match(c.words)]
            assert not codes, f"choices in notation alone: {codes}\n{t.text()}"
            total = None
            if now == "turn":
                m = re.search(r"Suggestions \(\d+ of (\d+) legal", t.text())
                assert m, t.text()
                total = int(m.group(1))
            chosen = pick(now, items, combined)
            combined = now == "turn" and chosen.words != "end the turn"
            seen.append(Seen(now, hand(t), count, items, total, chosen))
            answer(t, str(chosen.number))
        final = t.text()
        t.send("\x04")  # Ctrl-D leaves
        t.wait_raw(r"Game over after 3 rounds \(the round limit\): .*(?:wins?|share\s+the)")
        # The review of the game, offered on the game-over screen and again as you leave.
        t.wait_raw(r"review it: \S+ review \S+game\.json --seat Ana")
        assert t.finish() == 0
    finally:
        t.close()
        stop()
    coloured = colour_codes(bytes(t.raw))
    assert coloured, "xterm-256color without NO_COLOR should be coloured"
    # Only the 16 basic colours: a 16-colour terminal shows everything.
    assert not [c for c in coloured if b"38;5;" in c or b"48;5;" in c or b"38;2;" in c]
    assert final.count("Game over after") == 1, final  # one game-over line
    assert "see where the game was won and lost:" in final, final

    data = json.loads(record.read_text())
    result = data["result"]
    names = data["names"]
    assert names[ME] == "Ana" and result["rounds"] == ROUNDS
    assert names[1:] == ["greedy 1", "greedy 2", "greedy 3"]  # a bot's number is its seat
    winners = " and ".join("You" if s == ME else names[s] for s in result["winners"])
    best = result["doubloons"][result["winners"][0]]
    assert f"Game over after 3 rounds (the round limit): {winners}" in final
    assert f"with {best} doubloons" in final

    # Replay the record: before each of this seat's decisions the engine's hand and legal
    # decisions are what the screen showed, and the words picked name the decision sent.
    options = data["options"]
    game = Game.new(options["players"], options["seed"], first_tm=options["first_tm"],
                    round_limit=options["round_limit"])
    mine = 0
    for seat, text, _by in data["decisions"]:
        _, decision = parse_decision(text)
        if seat == ME:
            assert mine < len(seen), f"the record has more decisions of seat {ME} than typed"
            shown = seen[mine]
            legal = game.legal(ME)
            assert sorted(PlayerView(game, ME).hand) == shown.hand, (mine, shown)
            assert named(decision, shown.picked, names), (mine, decision, shown.picked)
            if shown.phase == "turn":
                assert shown.legal_total == len(legal)
            elif shown.phase == "take":
                # Every take but the swaps that change nothing (no Orellana here).
                useful = [d for d in legal if not (isinstance(d, Take) and d.swap == d.card)]
                assert shown.count == len(useful), (mine, shown, legal)
            else:
                assert shown.count == len(legal), (mine, shown, legal)
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
    t.wait(lambda t: t.text().count("(worth ") > 7, what="the menu with each offer's words")
    t.send("\x1b")  # Esc closes the menu
    t.wait(lambda t: "offer:" not in t.text().replace("offer> offer:", ""),
           what="the menu to close")
    t.send("\x15")  # Ctrl-U empties the line
    t.wait(lambda t: t.lines()[-1] == "offer>", what="an empty line")

    answer(t, "say hello table")
    t.wait_text("<Ana> hello table")

    answer(t, "offer:")
    t.wait(lambda t: "needs an argument" in status(t), what="the notation error")
    answer(t, "announce:3")
    t.wait(lambda t: "does not answer this decision" in status(t), what="the kind error")
    answer(t, "99")
    t.wait(lambda t: re.search(r"Choose 1-\d+", status(t)), what="the range error")
    answer(t, "banana")
    t.wait(lambda t: "is not something you can do here" in status(t), what="the nonsense")
    assert phase(t) == "offer"


def test_a_refused_decision_shows_the_rule_and_is_asked_again(tmp_path: Path) -> None:
    """Taking your own offered card parses and is of the right kind, so it goes to the host;
    the engine refuses it (R5.5) and the same question is asked again."""
    stop = stop_tables(tmp_path)
    t = Term(["play", "--bot-pace", "0", "--bots", "3", "--seed", str(SEED), "--round-limit",
              "1", "--name", "Ana"], environment(tmp_path), cols=80, rows=24)
    try:
        first_offer(t)
        answer(t, "1")
        assert ask(t) == "take"
        answer(t, f"take:1@{ME}")
        t.wait(lambda t: "Refused: R5.5: take a card of another player" in t.text(),
               what="the refusal")
        answer(t, "take:9@2")  # greedy 2 offers no vanilla: said with greedy 2's name
        t.wait(lambda t: "greedy 2 has no such card on the table" in t.text(),
               what="the refusal in the player's terms")
        t.wait(lambda t: phase(t) == "take", what="the same question again")
        answer(t, "1")
        t.wait(lambda t: "Refused" not in status(t), what="the next question")
    finally:
        t.close()
        stop()


def test_a_whole_game_at_80x24_shows_each_rounds_end_and_the_queue_icons(tmp_path: Path
                                                                        ) -> None:
    """At 80x24, by choice numbers: the first question after a round's end shows that round's
    summary on the main screen (before anything is typed); every storage question names next
    round's event on the queue line; the whole log (F2) tells this seat's dealt and returned
    cards in the new round, after "Round N ends"."""
    stop = stop_tables(tmp_path)
    t = Term(["play", "--bot-pace", "0", "--bots", "3", "--seed", "3", "--round-limit", "4",
              "--name", "Ana"], environment(tmp_path), cols=80, rows=24)
    summaries: list[int] = []
    stores = 0
    try:
        asked_in = 1
        combined = False
        while (now := ask(t)) != "over":
            m = re.match(r"Round (\d+) ", t.lines()[0])
            assert m, t.text()
            if int(m.group(1)) > asked_in:  # the first question since the round's end
                asked_in = int(m.group(1))
                t.wait_text(f"Round {asked_in - 1} is over")
                screen = t.text()
                for name in ("you", "greedy 1", "greedy 2", "greedy 3"):
                    assert re.search(rf"^  {name} +[+-]?\d+  now +\d+", screen, re.M), screen
                summaries.append(asked_in - 1)
            if now == "store":
                stores += 1
                assert re.search(r"^Queue \(next round: [A-Za-z' ]+\): 1 ", t.text(), re.M), \
                    t.text()
            _, items = choices(t)
            chosen = pick(now, items, combined)
            combined = now == "turn" and chosen.words != "end the turn"
            answer(t, str(chosen.number))
        t.wait_text("Round 4 is over")
        summaries.append(4)
        # The log's last line comes when the table stops, a few seconds after the game: read
        # the whole log after it, or a line added while F2 turns its pages shifts them.
        t.wait_text("its host has stopped")
        log = whole_log(t)
        t.send("\x04")
        assert t.finish() == 0
    finally:
        t.close()
        stop()
    assert summaries == [1, 2, 3, 4] and stores > 0
    # Each line under its round: this seat's cards of round N+1 come after "Round N ends".
    last = ""
    for line in log:
        if re.match(r"Round \d+ (begins|ends)", line):
            last = line
        elif line.startswith("You were dealt") or line.endswith("back from the warehouses"):
            assert re.match(r"Round \d+ begins", last), (line, last)


def whole_log(t: Term) -> list[str]:
    """Every sentence of the whole log (F2), page by page from the first, wrapped lines
    joined."""
    t.send("\x1bOQ")  # F2
    t.wait_text("The whole log")
    m = re.search(r"page (\d+) of (\d+)", t.lines()[0])
    pages = int(m.group(2)) if m else 1
    for _ in range(pages - 1):
        t.send("\x1b[5~")  # PgUp: older
    t.wait(lambda t: not m or f"page 1 of {pages}" in t.lines()[0], what="the first page")
    sentences: list[str] = []
    for page in range(1, pages + 1):
        t.wait_text(f"page {page} of {pages}" if pages > 1 else "The whole log")
        for line in t.lines()[1:-3]:
            if line.startswith("   ") and sentences:
                sentences[-1] += " " + line.strip()
            elif line.strip():
                sentences.append(line.strip())
        t.send("\x1b[6~")  # PgDn: newer
    t.send("\x1bOQ")
    t.wait(lambda t: "The whole log" not in t.text(), what="the log to close")
    return sentences
