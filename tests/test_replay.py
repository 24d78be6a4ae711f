"""``mundus replay``: the model (positions, cached states, views, the log, the status line)
without a terminal, then the real full-screen client in a pseudo-terminal: stepping forwards
and back, by round, to both ends, switching the view between the seats and the spectator.
Also ``mundus sim --records``, whose files the replay reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tui_term import Term, environment, hand

from mundus_net.bots.base import load_bot
from mundus_net.cli import main
from mundus_net.client.tui import render
from mundus_net.client.tui.replay import CACHE_EVERY, Replay, load_replay, parse_viewer
from mundus_net.client.tui.sentences import Narrator
from mundus_net.engine.decisions import Offer
from mundus_net.engine.game import Game
from mundus_net.engine.notation import format_decision
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.engine.view import PlayerView, public_log
from mundus_net.tools.games import seating
from mundus_net.tools.runner import play_game
from mundus_net.tools.sim import run_sim

NAMES = ["Ana", "Bo", "Cy"]

# Keys as a terminal sends them.
RIGHT, LEFT, PAGE_UP, PAGE_DOWN, HOME, END = \
    "\x1b[C", "\x1b[D", "\x1b[5~", "\x1b[6~", "\x1b[H", "\x1b[F"


def play_record(seed: int = 11, rounds: int = 3) -> GameRecord:
    game = Game.new(3, seed, round_limit=rounds)
    play_game(game, [load_bot("greedy", seed + s) for s in range(3)])
    return GameRecord.from_game(game, f"test-{seed}", NAMES)


@pytest.fixture(scope="module")
def record() -> GameRecord:
    return play_record()


@pytest.fixture
def record_file(tmp_path: Path, record: GameRecord) -> Path:
    path = tmp_path / "game.json"
    path.write_text(record.to_json(), encoding="utf-8")
    return path


# -- the model ----------------------------------------------------------------------------------


def test_every_position_is_the_record_replayed_that_far(record: GameRecord) -> None:
    model = Replay(record, every=5)
    assert model.total == len(record.decisions) > 20
    assert len(model.cached) == len(range(0, model.total, 5)) + 1
    # Forwards, then backwards and jumping about: always the same game as a fresh replay.
    order = [*range(0, model.total + 1, 3), model.total, *range(model.total, -1, -7), 1, 0]
    for k in order:
        model.go(k)
        fresh = record.replay(upto=k)
        for seat in (None, 0, 1, 2):
            assert PlayerView(model.game, seat).to_dict() == PlayerView(fresh, seat).to_dict()
        assert model.round == fresh.round
        assert model.log_lens[k] == len(fresh.log)


def test_the_log_is_what_the_viewer_could_read_then(record: GameRecord) -> None:
    model = Replay(record)
    for seat in (None, 1):
        model.set_seat(seat)
        for k in (0, 7, model.total // 2, model.total):
            model.go(k)
            narrate = Narrator(model.names, seat, model.deck)
            expected = [s for s in map(narrate, public_log(record.replay(upto=k), seat)) if s]
            assert model.sentences() == expected


def test_stepping_and_rounds(record: GameRecord) -> None:
    model = Replay(record)
    assert sorted(model.cached) == [*range(0, model.total, CACHE_EVERY), model.total]
    model.previous()
    assert model.position == 0
    model.next()
    model.next()
    assert model.position == 2
    model.end()
    model.next()
    assert model.position == model.total and model.final.is_over
    model.home()
    assert (model.position, model.round) == (0, 1)
    model.next_round()
    assert model.round == 2 and model.rounds[model.position - 1] == 1
    model.next_round()
    assert model.round == 3
    model.next_round()  # the last round: to the end
    assert model.position == model.total
    model.previous_round()
    assert model.round == 2 and model.rounds[model.position - 1] == 1
    model.previous_round()
    assert model.position == 0


def test_switching_the_view_cycles_the_seats_then_the_spectator(record: GameRecord) -> None:
    model = Replay(record)
    seen = []
    for _ in range(5):
        model.switch_view()
        seen.append(model.seat)
    assert seen == [0, 1, 2, None, 0]
    with pytest.raises(ValueError, match="seat 3 is not at this table"):
        model.set_seat(3)


def test_a_spectator_never_sees_a_hand_nor_a_sealed_offer(record: GameRecord) -> None:
    model = Replay(record)
    k = next(i + 1 for i, d in enumerate(record.decisions) if isinstance(d.decision, Offer))
    offer = record.decisions[k - 1]
    model.go(k)
    notation = format_decision(offer.decision)
    assert notation.startswith("offer:")
    screen = render.to_plain(model.draw(100, 40))
    assert "Spectating: no hand" in screen and not re.search(r"^Hand \d+:", screen, re.M)
    assert f"{NAMES[offer.seat]}: offer (sealed)" in model.status()
    assert "offer:" not in model.status()
    model.set_seat((offer.seat + 1) % 3)  # another seat: still sealed
    assert "offer (sealed)" in model.status()
    model.set_seat(offer.seat)  # its own offer: shown
    assert model.status().endswith(f"{NAMES[offer.seat]}: {notation}")
    screen = render.to_plain(model.draw(100, 40))
    cards = PlayerView(model.game, offer.seat).hand
    assert f"Hand {len(cards)}:" in screen


def test_status_line(record: GameRecord) -> None:
    model = Replay(record, seat=1)
    assert model.status() == (f"Decision 0 of {model.total} · round 1 · as Bo (seat 1) · "
                              "the start of the game")
    model.end()
    assert model.status().startswith(f"Decision {model.total} of {model.total} (game over) · "
                                     "round 3 · as Bo (seat 1) · ")
    for height in (0, 1, 2, 3, 24):
        lines = render.lines_of(model.draw(80, height))
        assert len(lines) == height
        assert all(len(line) <= 80 for line in lines)


def test_the_viewer_argument() -> None:
    assert parse_viewer("spectator", NAMES) is None
    assert parse_viewer("2", NAMES) == 2
    assert parse_viewer("bo", NAMES) == 1
    with pytest.raises(ValueError, match="not at this table"):
        parse_viewer("3", NAMES)
    with pytest.raises(ValueError, match="a seat number or a player's name"):
        parse_viewer("Zed", NAMES)


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "not a JSON document"),
    ('{"format": "something-else"}', "not a game record"),
    ('{"format": "mundus-record/1", "game": "x"}', 'its "options" field is missing'),
    (None, "does not replay"),  # a decision that breaks a rule
    ("", "it is empty"),
])
def test_a_broken_record_is_refused_with_exit_status_2(
        tmp_path: Path, record: GameRecord, capsys: pytest.CaptureFixture[str],
        text: str | None, message: str) -> None:
    if text is None:
        data = json.loads(record.to_json())
        data["decisions"][0][1] = "announce:4" if data["decisions"][0][1] != "announce:4" \
            else "announce:2"
        data["decisions"][1] = data["decisions"][0]  # the announcer announces twice
        text = json.dumps(data)
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mundus replay: {path}: ")
    assert message in err
    with pytest.raises(RecordError):
        load_replay(path)


def test_a_missing_file_and_a_bad_viewer(tmp_path: Path, record_file: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nothing.json")]) == 2
    assert "there is no such file" in capsys.readouterr().err
    assert main(["replay", str(record_file), "--as", "9"]) == 2
    assert "--as: seat 9 is not at this table" in capsys.readouterr().err


def test_sim_records_replay_to_the_same_result(tmp_path: Path) -> None:
    summary = run_sim(3, ["greedy", "random", "random"], 3, seed=5, rotate=True,
                      records=tmp_path / "recs")
    files = sorted((tmp_path / "recs").glob("game-*.json"))
    assert [f.name for f in files] == ["game-000000.json", "game-000001.json",
                                       "game-000002.json"]
    wins = 0.0
    seats_of_greedy: list[int] = []
    for i, path in enumerate(files):
        record = GameRecord.from_json(path.read_text(encoding="utf-8"))
        game = record.replay()
        assert game.is_over and game.result == record.result
        assert game.result is not None
        assert {d.by for d in record.decisions} == {"bot"}
        greedy = record.names.index("greedy #0")
        assert seating(i, 3, 3, seed=5)[greedy] == 0  # where the design seats entry 0
        seats_of_greedy.append(greedy)
        if greedy in game.result.winners:
            wins += 1 / len(game.result.winners)
    assert wins == summary["per_bot"][0]["wins"]
    assert sorted(seats_of_greedy) == [0, 1, 2]  # three games: greedy in every seat once


# -- the real client in a pseudo-terminal -------------------------------------------------------


def status_line(t: Term) -> str:
    return t.lines()[-2]


def wait_status(t: Term, pattern: str) -> re.Match[str]:
    rx = re.compile(pattern)
    found: re.Match[str] = t.wait(lambda t: rx.search(status_line(t)), what=pattern)
    return found


@pytest.mark.network
def test_stepping_through_a_game_in_the_terminal(tmp_path: Path, record: GameRecord,
                                                 record_file: Path) -> None:
    model = Replay(record)
    n = model.total
    t = Term(["replay", str(record_file)], environment(tmp_path), cols=100, rows=32)
    try:
        wait_status(t, rf"^Decision 0 of {n} · round 1 · as spectator · the start")
        assert "Spectating: no hand" in t.text()
        assert t.lines()[-1].startswith("→/n next · ←/p back")
        for key, k in ((RIGHT, 1), ("n", 2), (RIGHT, 3), (LEFT, 2), ("p", 1)):
            t.send(key)
            model.go(k)
            wait_status(t, rf"^Decision {k} of {n} · ")
            assert status_line(t) == model.status()[:100].rstrip()
        t.send(PAGE_DOWN)
        start2 = model.round_start(2)
        wait_status(t, rf"^Decision {start2} of {n} · round 2 · ")
        assert t.lines()[0].startswith("Round 2 · ")
        t.send(PAGE_DOWN)
        wait_status(t, r" · round 3 · ")
        t.send(PAGE_UP)
        wait_status(t, rf"^Decision {start2} of {n} · round 2 · ")
        t.send(END)
        wait_status(t, rf"^Decision {n} of {n} \(game over\) · round 3 · ")
        t.wait_text("Game over after 3 rounds")
        t.send(HOME)
        wait_status(t, rf"^Decision 0 of {n} · round 1 · ")
        # The view of each seat: its own hand, then the spectator's: none.
        t.send(PAGE_DOWN)
        wait_status(t, r" · round 2 · as spectator")
        model.go(start2)
        for seat, name in enumerate(NAMES):
            t.send("s")
            wait_status(t, rf" · as {name} \(seat {seat}\) · ")
            assert hand(t) == sorted(PlayerView(model.game, seat).hand)
        t.send("s")
        wait_status(t, r" · as spectator · ")
        assert "Spectating: no hand" in t.text()
        assert not any(re.match(r"Hand \d+:", line) for line in t.lines())
        t.send("q")
        assert t.finish() == 0
    finally:
        t.close()


@pytest.mark.network
def test_starting_as_a_seat_at_a_decision(tmp_path: Path, record: GameRecord,
                                          record_file: Path) -> None:
    model = Replay(record)
    k = model.total // 2
    model.go(k)
    t = Term(["replay", str(record_file), "--as", "Cy", "--at", str(k)], environment(tmp_path),
             cols=80, rows=24)
    try:
        wait_status(t, rf"^Decision {k} of {model.total} · round {model.round} · as Cy ")
        assert hand(t) == sorted(PlayerView(model.game, 2).hand)
        t.send("\x03")  # Ctrl-C leaves too
        assert t.finish() == 0
    finally:
        t.close()


def test_without_a_terminal_it_says_so(record_file: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(record_file)]) == 2
    assert "needs a terminal" in capsys.readouterr().err
