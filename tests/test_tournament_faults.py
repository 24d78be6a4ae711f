"""Bot researchers' tournaments (issue 15): faults in plain sight (tracebacks in the rows, a
faults file, the first fault printed, a non-zero exit for a bot that never works), a bot
that ends its process named and charged, bot files shipped with the settings, bots told
each result and playing a series, progress while no game finishes."""

from __future__ import annotations

import io
import json
import os
import textwrap
import threading
from pathlib import Path

import pytest
from support.clock import FakeClock

from mundus_net.bots.base import load_bot, read_bot_files, ship_bot_files
from mundus_net.bots.greedy import GreedyBot
from mundus_net.bots.random_bot import RandomBot
from mundus_net.cli import main
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView
from mundus_net.tools.games import Settings, play_chunk
from mundus_net.tools.progress import ProgressReport
from mundus_net.tools.referee import play_refereed
from mundus_net.tools.tournament import (
    TournamentStopped,
    find_fatal_game,
    play_series,
    run_tournament,
)

FAULTY = Path(__file__).resolve().with_name("test_bot_sdk.py")  # bots that fail now and then

BOT_FILE = textwrap.dedent('''
    import os
    from mundus_net.bots.random_bot import RandomBot

    class Broken:
        def __init__(self, seed):
            pass

        def decide(self, view, legal):
            return think(view)

    def think(view):
        raise ValueError(f"no idea in round {view.round}")

    class Quitter(RandomBot):
        """Ends its process in the second round of the games of seed 5 it plays."""

        def decide(self, view, legal):
            if view.round == 2:
                os._exit(7)
            return super().decide(view, legal)
''')


def _bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_bot.py"
    path.write_text(BOT_FILE, encoding="utf-8")
    return path


class Learner(RandomBot):
    """Counts the games it was told the end of, and keeps their results."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.results: list[tuple[int, tuple[int, ...]]] = []

    def on_game_end(self, view: PlayerView) -> None:
        assert view.result is not None and view.seat is not None
        self.results.append((view.seat, tuple(view.result.winners)))


class BadEnding(RandomBot):
    def on_game_end(self, view: PlayerView) -> None:
        raise RuntimeError("cannot learn")


# -- tracebacks ---------------------------------------------------------------------------------


def test_every_fault_is_in_its_row_with_the_traceback_of_the_bot() -> None:
    bots = (f"{FAULTY}:RaisingBot", "random")
    _, rows = run_tournament(Settings(bots, 2, seed=1, round_limit=3), 2)
    for row in rows:
        assert len(row["fault_list"]) == sum(sum(f.values()) for f in row["faults"])
        errors = [f for f in row["fault_list"] if f["kind"] == "error"]
        assert errors and all(f["reason"] == "error: RuntimeError: the strategy broke"
                              for f in errors)
        assert len(row["tracebacks"]) == 1  # the same failure each time: kept once a game
        trace = row["tracebacks"][errors[0]["traceback"]]
        assert 'raise RuntimeError("the strategy broke")' in trace
        assert "play_refereed" not in trace  # from the bot's decide down
        asked = row["decisions"][row["seating"].index(0)]
        assert asked // 5 == len(errors)  # RaisingBot fails every 5th decision it is asked


def test_the_cli_prints_the_first_fault_and_writes_every_one_to_the_faults_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bots = f"{FAULTY}:RaisingBot,random"
    out = tmp_path / "run.json"
    status = main(["tournament", "--bots", bots, "--games", "2", "--round-limit", "3",
                   "--json", str(out)])
    err = capsys.readouterr().err
    assert status == 0
    assert "first fault: game 0" in err and "RuntimeError: the strategy broke" in err
    assert 'raise RuntimeError("the strategy broke")' in err  # the traceback, printed
    faults = tmp_path / "run.faults.jsonl"
    lines = [json.loads(line) for line in faults.read_text().splitlines()]
    rows = json.loads(out.read_text())["games"]
    assert len(lines) == sum(len(row["fault_list"]) for row in rows) > 1
    assert {line["bot"] for line in lines} == {f"{FAULTY}:RaisingBot"}
    assert all("the strategy broke" in line["traceback"] for line in lines)
    assert f"in {faults}" in err


@pytest.mark.network  # a worker process: the bot is the user's code
def test_a_bot_that_faults_in_every_decision_makes_the_exit_status_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = _bot_file(tmp_path)
    status = main(["tournament", "--bots", f"{bot}:Broken,random", "--games", "2",
                   "--round-limit", "2", "--faults", str(tmp_path / "f.jsonl")])
    err = capsys.readouterr().err
    assert status == 1
    assert "bot #0" in err and "faulted in every one of its" in err
    assert "ValueError: no idea in round 1" in err and "in think" in err


# -- a bot that ends its process ----------------------------------------------------------------


@pytest.mark.network
def test_the_game_whose_bot_ends_its_process_is_found_by_replaying_alone(
        tmp_path: Path) -> None:
    settings = Settings((f"{_bot_file(tmp_path)}:Quitter", "random"), 2, seed=5).with_files()
    assert find_fatal_game(settings, 0, 3, deadline_s=120) == (0, 7)
    calm = Settings(("random", "random"), 2, seed=5)
    assert find_fatal_game(calm, 0, 2, deadline_s=120) is None


@pytest.mark.network
def test_a_bot_that_ends_its_process_stops_the_tournament_with_the_game_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = _bot_file(tmp_path)
    settings = Settings((f"{bot}:Quitter", "random"), 2, seed=5)
    with pytest.raises(TournamentStopped) as info:
        run_tournament(settings, 4, jobs=2)
    assert "game 0 ended the process playing it (exit status 7)" in str(info.value)
    assert "Quitter #0" in str(info.value) and info.value.rows == []
    status = main(["tournament", "--bots", f"{bot}:Quitter,random", "--games", "3",
                   "--seed", "5", "--json", str(tmp_path / "t.json")])
    err = capsys.readouterr().err
    assert status == 1 and "stopped after 0 of 3 games: game 0 ended the process" in err
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["games"] == [] and "exit status 7" in data["summary"]["stopped"]


# -- bot files travel with the settings -----------------------------------------------------------


def test_a_bot_file_is_read_once_and_shipped_with_the_settings(tmp_path: Path) -> None:
    """Workers elsewhere (Dask) may not see the file: the settings carry its source."""
    bot = _bot_file(tmp_path)
    relative = os.path.relpath(bot)
    settings = Settings((f"{relative}:Broken", "random"), 2, round_limit=1).with_files()
    ((given, full, source),) = settings.files
    assert given == relative and full == str(bot) and "class Broken" in source
    bot.unlink()  # as on a worker that has no such file
    rows = play_chunk(settings, 0, 1)  # what a worker is sent
    trace = rows[0]["tracebacks"][0]
    assert f'File "{bot}"' in trace and 'raise ValueError(f"no idea' in trace  # its lines


def test_shipped_source_stands_in_for_the_missing_file(tmp_path: Path) -> None:
    gone = tmp_path / "gone.py"
    gone.write_text("from mundus_net.bots.random_bot import RandomBot as Mine\n")
    files = read_bot_files([f"{gone}:Mine"])
    gone.unlink()
    ship_bot_files(files)
    assert isinstance(load_bot(f"{gone}:Mine", 3), RandomBot)


# -- told the end; a series -------------------------------------------------------------------


def test_on_game_end_tells_each_bot_the_result() -> None:
    game = Game.new(3, 4, round_limit=2)
    learners = [Learner(1), Learner(2), Learner(3)]
    assert play_refereed(game, learners) == []
    assert game.result is not None
    assert [bot.results for bot in learners] == [
        [(seat, tuple(game.result.winners))] for seat in range(3)]


def test_a_failing_on_game_end_is_a_fault_that_changes_no_decision() -> None:
    game = Game.new(2, 4, round_limit=2)
    faults = play_refereed(game, [BadEnding(1), RandomBot(2)])
    assert [(f.seat, f.kind, f.phase) for f in faults] == [(0, "error", "over")]
    assert "on_game_end: RuntimeError: cannot learn" in faults[0].detail
    again = Game.new(2, 4, round_limit=2)
    play_refereed(again, [RandomBot(1), RandomBot(2)])
    assert again.result == game.result


def test_one_bot_object_plays_a_whole_series_and_is_told_every_result() -> None:
    learner = Learner(7)
    summary, rows = play_series([learner, GreedyBot(8), RandomBot(9)], 6, players=2, seed=2,
                                round_limit=2)
    assert summary["games"] == 6 and [b["games"] for b in summary["per_bot"]] == [4, 4, 4]
    mine = [row for row in rows if 0 in row["seating"]]
    assert [(row["seating"].index(0), tuple(row["winners"])) for row in mine] == \
        learner.results


def test_the_cli_series_keeps_one_bot_per_entry(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    assert main(["tournament", "--bots", "greedy,random", "--games", "3", "--series",
                 "--round-limit", "2", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["summary"]["games"] == 3
    with pytest.raises(SystemExit):
        main(["tournament", "--bots", "greedy,random", "--series", "--jobs", "2"])
    assert "--series plays every game in this process" in capsys.readouterr().err


# -- progress -------------------------------------------------------------------------------------


def test_progress_is_written_every_30_seconds_even_while_no_game_finishes() -> None:
    log, clock = io.StringIO(), FakeClock(0.0)
    report = ProgressReport(log, "tournament", tty=False, clock=clock)
    report(0, 400)
    report(3, 400)  # games 1-3 finished first: counted before game 0
    before = log.getvalue().count("\n")
    for second in range(1, 95):
        clock.now = float(second)
        report.tick()
    lines = log.getvalue().splitlines()[before:]
    assert len(lines) == 3  # at 30, 60 and 90 s
    assert all(line.startswith("tournament: 3/400 games") for line in lines)
    assert "1m30s elapsed" in lines[-1]
    report(400, 400)
    clock.now = 200.0
    report.tick()
    assert not log.getvalue().splitlines()[-1].startswith("tournament: 3/")


def test_the_heartbeat_thread_stops_with_the_run() -> None:
    report = ProgressReport(io.StringIO(), "tournament", tty=False, clock=FakeClock(0.0))
    with report.heartbeat(check_s=0.01):
        report(1, 2)
    # leaving the block joined the thread: nothing is left running
    assert not [t for t in threading.enumerate() if t.name == "progress"]
