"""``mundus review``: each decision's share of the win after the move played and after the
search's best, from the seat's own view (deterministic for a seed, blind to cards the seat
could not see), labels and accuracy, the command and its JSON, the picture, the replay's
review line (model and a real terminal at 80 x 24), and the game-over screen's offer."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from tui_term import Term, environment

from mundus_net.bots.base import load_bot
from mundus_net.bots.review import (
    BLUNDER,
    FORMAT,
    INACCURACY,
    MISTAKE,
    DecisionReview,
    GameReview,
    ReviewError,
    accuracy,
    decision_accuracy,
    label_for,
    largest_losses,
    review_game,
    review_record,
)
from mundus_net.cli import main
from mundus_net.client.tui.replay import Replay
from mundus_net.engine.decisions import Announce, Decision, Offer
from mundus_net.engine.game import Game
from mundus_net.engine.notation import format_decision
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.engine.view import PlayerView
from mundus_net.tools.review import make_review
from mundus_net.tools.runner import play_game

NAMES = ["Ana", "Bo", "Cy"]
FAST = 2  # determinizations a decision in these tests (the command's default is 8)


def play_record(seed: int = 21, rounds: int = 2) -> GameRecord:
    game = Game.new(3, seed, round_limit=rounds)
    play_game(game, [load_bot("random" if s == 2 else "greedy", seed + s) for s in range(3)])
    return GameRecord.from_game(game, f"review-{seed}", NAMES)


@pytest.fixture(scope="module")
def record() -> GameRecord:
    return play_record()


@pytest.fixture(scope="module")
def review(record: GameRecord) -> GameReview:
    return make_review(record, iterations=FAST)


@pytest.fixture
def record_file(tmp_path: Path, record: GameRecord) -> Path:
    path = tmp_path / "game.json"
    path.write_text(record.to_json(), encoding="utf-8")
    return path


# -- the numbers --------------------------------------------------------------------------------


def test_the_same_record_and_seed_give_the_same_review(record: GameRecord,
                                                       review: GameReview) -> None:
    again = review_record(record, iterations=FAST)
    assert again == review.decisions
    assert make_review(record, iterations=FAST).to_json() == review.to_json()


def test_every_decision_of_a_choice_is_reviewed_with_the_played_one_among_those_compared(
        record: GameRecord, review: GameReview) -> None:
    game = record.replay(upto=0)
    expected = []
    for index, rec in enumerate(record.decisions):
        if len(game.legal(rec.seat)) > 1:
            expected.append(index)
        game.apply(rec.seat, rec.decision)
    assert [r.index for r in review.decisions] == expected
    for r in review.decisions:
        assert r.played == record.decisions[r.index].decision
        assert r.seat == record.decisions[r.index].seat
        assert 0.0 <= r.played_share <= r.best_share <= 1.0
        assert r.loss == pytest.approx(r.best_share - r.played_share)
        assert (r.best == r.played) == (r.loss < 1e-9)


def test_a_seat_hides_no_card_it_could_not_see() -> None:
    """Two games that differ only in what seat 0 cannot see (the other seats' hands swapped,
    the resource and development piles in another order) give seat 0 the same review of its
    first decisions (the announcement and its offer, before any other seat acts)."""
    a = Game.new(3, 5)
    state = a.state()
    assert sum(state.hands[1]) == sum(state.hands[2]) and state.hands[1] != state.hands[2]
    hands = [list(h) for h in state.hands]
    hands[1], hands[2] = hands[2], hands[1]
    state = replace(state, hands=hands, draw=list(reversed(state.draw)),
                    devpile=list(reversed(state.devpile)))
    b = Game.new(3, 5)
    b.set_state(state)
    assert a.hands != b.hands and a.draw != b.draw
    assert PlayerView(a, 0).hand == PlayerView(b, 0).hand
    moves: list[tuple[int, Decision]] = [(0, Announce(2)), (0, Offer((3, 7)))]
    assert [type(d) for d in a.legal(0)] and moves[0][1] in a.legal(0)
    first = review_game(a, moves, [0], iterations=FAST)
    second = review_game(b, moves, [0], iterations=FAST)
    assert len(first) == 2
    assert first == second


def test_labels_and_accuracy_follow_the_documented_thresholds() -> None:
    assert label_for(0.0) is None
    assert label_for(INACCURACY - 0.001) is None
    assert label_for(INACCURACY) == "inaccuracy"
    assert label_for(MISTAKE) == "mistake"
    assert label_for(BLUNDER + 0.2) == "blunder"
    assert decision_accuracy(0.0) == pytest.approx(100.0, abs=0.01)
    assert decision_accuracy(0.05) == pytest.approx(80.0, abs=0.5)
    assert decision_accuracy(1.0) == 0.0
    r = [DecisionReview(i, 0, 1, "take", Offer(()), Offer(()), 0.2, 0.2 + loss, 2)
         for i, loss in enumerate((0.0, 0.05, 0.2, 0.05))]
    assert accuracy(r) == pytest.approx(sum(x.accuracy for x in r) / 4)
    assert [x.index for x in largest_losses(r)] == [2, 1, 3]
    assert accuracy([]) is None


# -- the JSON and the command ------------------------------------------------------------------


def test_the_json_holds_every_decision_and_a_summary_per_player(review: GameReview) -> None:
    data = json.loads(review.to_json())
    assert data["format"] == FORMAT
    assert data["names"] == NAMES and data["seats"] == [0, 1, 2]
    assert data["thresholds"] == {"blunder": BLUNDER, "mistake": MISTAKE,
                                  "inaccuracy": INACCURACY}
    assert len(data["decisions"]) == len(review.decisions)
    first = data["decisions"][0]
    assert {"index", "seat", "round", "phase", "played", "best", "played_share", "best_share",
            "loss", "label", "accuracy", "reason", "line"} <= set(first)
    for player in data["summary"]:
        mine = review.of_seat(player["seat"])
        assert player["decisions"] == len(mine)
        assert player["accuracy"] == round(accuracy(mine) or 0.0, 1)
        assert player["largest_losses"] == [r.index for r in largest_losses(mine)]
        assert player["blunders"] == sum(1 for r in mine if r.label == "blunder")
        assert player["inaccuracies"] == sum(1 for r in mine if r.label == "inaccuracy")
    back = GameReview.from_json(review.to_json())
    assert back.decisions == review.decisions


@pytest.mark.parametrize("text, words", [
    ("not json", "not JSON"),
    ('{"format": "mundus-record/1"}', "not a review"),
    (json.dumps({"format": FORMAT, "players": 3}), "a field is missing"),
])
def test_a_file_that_is_no_review_is_refused(text: str, words: str) -> None:
    with pytest.raises(ReviewError, match=words):
        GameReview.from_json(text)


def test_the_command_prints_a_summary_per_player_and_writes_json(
        tmp_path: Path, record_file: Path, review: GameReview,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "review.json"
    assert main(["review", str(record_file), "--json", str(out), "--iterations", str(FAST),
                 "--lang", "en"]) == 0
    text = capsys.readouterr().out
    for seat, name in enumerate(NAMES):
        assert re.search(rf"^{name} \(seat {seat}\): accuracy [0-9.]+ over \d+ decisions",
                         text, re.M)
    assert "mundus report" in text and "--review" in text
    assert json.loads(out.read_text("utf-8")) == json.loads(review.to_json())


def test_one_seat_lists_every_decision_in_the_players_language(
        record_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(record_file), "--seat", "Bo", "--iterations", str(FAST),
                 "--lang", "it"]) == 0
    text = capsys.readouterr().out
    assert "Bo (posto 1): precisione" in text
    assert "Ana (posto 0)" not in text
    assert "ogni decisione: il numero" in text


def test_bad_arguments_are_refused_with_exit_status_2(
        tmp_path: Path, record_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(tmp_path / "none.json")]) == 2
    assert "there is no such file" in capsys.readouterr().err
    assert main(["review", str(record_file), "--seat", "Zed"]) == 2
    assert "--seat" in capsys.readouterr().err
    assert main(["review", str(record_file), "--seat", "spectator", "--lang", "en"]) == 2
    assert "a spectator makes no decisions" in capsys.readouterr().err
    assert main(["review", str(record_file), "--json", str(tmp_path / "no" / "r.json"),
                 "--lang", "en"]) == 2
    assert "--json" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(record_file.read_text("utf-8").replace('"announce:', '"offer:', 1), "utf-8")
    assert main(["review", str(bad), "--lang", "en"]) == 2
    assert "does not replay" in capsys.readouterr().err


# -- the picture --------------------------------------------------------------------------------


def test_report_draws_every_seats_win_share_from_a_review(
        tmp_path: Path, review: GameReview, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    from mundus_net.tools.report_data import load_results

    path = tmp_path / "game-review.json"
    path.write_text(review.to_json(), "utf-8")
    assert isinstance(load_results(path), GameReview)
    assert main(["report", str(path), "--out", str(tmp_path)]) == 0
    picture = tmp_path / "game-review-win-shares.png"
    assert capsys.readouterr().out.split() == [str(picture)]
    assert picture.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


# -- the replay ---------------------------------------------------------------------------------


def test_the_replay_shows_the_review_of_the_decision_that_led_here(
        record: GameRecord, review: GameReview) -> None:
    model = Replay(record)
    assert model.review_text() is None
    model.set_review(review)
    model.go(0)
    assert model.review_text() == "Review: no decision reviewed here"
    r = review.decisions[-1]
    model.set_seat(r.seat)
    model.go(r.index + 1)
    text = model.review_text()
    assert text is not None and text.startswith(f"Review: {NAMES[r.seat]}: ")
    secret = next(x for x in review.decisions if isinstance(x.played, Offer))
    model.set_seat((secret.seat + 1) % 3)
    model.go(secret.index + 1)
    text = model.review_text()
    assert text is not None and "a secret decision" in text
    assert format_decision(secret.played) not in text
    rows = model.draw(80, 24)
    assert sum(fragment[1].count("\n") for fragment in rows) == 23


def test_the_replay_refuses_the_review_of_another_game(review: GameReview) -> None:
    with pytest.raises(RecordError, match="another game"):
        Replay(play_record(seed=22)).set_review(review)


@pytest.mark.network
def test_the_review_beside_each_decision_in_the_terminal(
        tmp_path: Path, record_file: Path, review: GameReview) -> None:
    path = tmp_path / "review.json"
    path.write_text(review.to_json(), "utf-8")
    r = review.decisions[0]
    t = Term(["replay", str(record_file), "--review", str(path), "--as", str(r.seat), "--at",
              str(r.index + 1), "--lang", "en"], environment(tmp_path), cols=80, rows=24)
    try:
        t.wait(lambda t: any(line.startswith(f"Review: {NAMES[r.seat]}: ")
                             for line in t.lines()), what="the review line")
        assert t.lines()[-2].startswith(f"Decision {r.index + 1} of ")
        t.send("n")
        t.wait(lambda t: t.lines()[-2].startswith(f"Decision {r.index + 2} of "),
               what="the next decision")
        t.send("q")
        assert t.finish() == 0
    finally:
        t.close()


# -- after a game of mundus play ----------------------------------------------------------------


def test_the_game_over_screen_offers_the_review() -> None:
    from mundus_net.client.notices import GameOver
    from mundus_net.client.tui.app import TableModel
    from mundus_net.tools.play import review_command

    game = Game.new(3, 21, round_limit=1)
    play_game(game, [load_bot("greedy", s) for s in range(3)])
    assert game.result is not None
    line = review_command(Path("/tmp/game.json"), "Ana")
    assert line.endswith("review /tmp/game.json --seat Ana")
    model = TableModel(after_game=f"see it: {line}")
    model.on_notice(GameOver(game.result), model.snap)
    assert model.over
    assert f"see it: {line}" in model.sentences


@pytest.mark.network
def test_the_replay_reviews_the_game_itself_when_given_no_file(
        tmp_path: Path, record_file: Path, review: GameReview) -> None:
    r = review.decisions[0]
    t = Term(["replay", str(record_file), "--review", "--as", str(r.seat), "--at",
              str(r.index + 1), "--lang", "en"], environment(tmp_path), cols=80, rows=24)
    try:
        t.wait(lambda t: any(line.startswith(f"Review: {NAMES[r.seat]}: ")
                             for line in t.lines()), what="the review line")
        t.send("q")
        assert t.finish() == 0
    finally:
        t.close()


def test_the_game_over_screen_at_80x24_shows_the_review_with_the_standings() -> None:
    """The events that end the game bring the game-over lines with them (the frame with the
    final standings has them, not only the one after the GameOver notice), and at 80x24 the
    screen shows the review's command whole beside the standings and the last round's
    summary, the witnessed chain too, once each (the GameOver notice that follows adds
    nothing): the queue, market, players table and hand leave it the rows."""
    from mundus_net.client.notices import GameOver, PublicEvents
    from mundus_net.client.tui.app import Snapshot, TableModel
    from mundus_net.client.tui.render import split_rows
    from mundus_net.engine.view import StateView, public_log
    from mundus_net.protocol.codec import to_wire
    from mundus_net.tools.play import review_command

    game = Game.new(4, 7, round_limit=3)
    play_game(game, [load_bot("greedy", s) for s in range(4)])
    assert game.result is not None and game.pending is None
    record = Path("/tmp/pytest-of-someone/pytest-1234/test_a_whole_game_of_thre0/game.json")
    offer = f"Once you leave, see where the game was won and lost: " \
            f"{review_command(record, 'Ana')}"
    view = StateView(PlayerView(game, 0).to_dict(), game.deck, [], None)
    events = public_log(game, 0)
    snap = Snapshot(view, None, ("Ana", "Bo", "Cy", "Di"), online=True, seat=0,
                    result=game.result, witnessed=(len(events), "ab" * 32))
    model = TableModel(after_game=offer)
    model.on_notice(PublicEvents(1, tuple(to_wire(e) for e in events)), snap)
    assert model.over and model.sentences[-1] == offer
    model.on_notice(GameOver(game.result), snap)
    assert model.sentences.count(offer) == 1
    lines = ["".join(t for _, t in row) for row in split_rows(model.draw(80, 23))]
    screen = "\n".join(lines)
    assert len(lines) == 23 and "Final standings" in screen, screen
    assert "see where the game was won and lost:" in screen, screen
    assert "--seat Ana" in screen and "Your client saw" in screen, screen
    assert any(re.match(r"Round 3 is over", line) for line in lines), screen  # the summary
