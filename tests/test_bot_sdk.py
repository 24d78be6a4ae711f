"""The bot SDK (docs/bots.md): the referee that charges failing bots the default decision,
the helpers, and the example bot loaded by module:Class and by file path."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from mundus_net.bots.base import load_bot, split_options
from mundus_net.bots.random_bot import RandomBot
from mundus_net.bots.sdk import PhaseBot, best, by_kind, describe, of_kind
from mundus_net.engine.decisions import Announce, ChooseFirst, Decision, EndTurn, Take
from mundus_net.engine.defaults import default_choice, default_decision
from mundus_net.engine.game import FIRST, Game
from mundus_net.engine.record import GameRecord
from mundus_net.engine.view import PlayerView, View
from mundus_net.tools.games import Settings, seat_names
from mundus_net.tools.referee import (
    FAULT_KINDS,
    BrokenBot,
    fault_counts,
    make_bot,
    play_refereed,
    record_of,
)
from mundus_net.tools.runner import play_game
from mundus_net.tools.tournament import run_tournament

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve()


# -- bots that fail, each now and then (every 5th decision it is asked) ----------------------


class _Sometimes(RandomBot):
    every = 5

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.asked = 0

    def decide(self, view: View, legal: Sequence[Decision]) -> Decision:
        self.asked += 1
        if self.asked % self.every == 0:
            return self.fail(view, legal)
        return super().decide(view, legal)

    def fail(self, view: View, legal: Sequence[Decision]) -> Decision:
        raise NotImplementedError


class RaisingBot(_Sometimes):
    def fail(self, view: View, legal: Sequence[Decision]) -> Decision:
        raise RuntimeError("the strategy broke")


class IllegalBot(_Sometimes):
    def fail(self, view: View, legal: Sequence[Decision]) -> Decision:
        if self.asked % 10 == 0:
            return "not a decision"  # type: ignore[return-value]
        return Announce(7) if view.phase != "announce" else EndTurn()


class SlowBot(_Sometimes):
    """Its first two decisions use 30 ms of CPU time (the limit in the tests is 10 ms)."""

    def decide(self, view: View, legal: Sequence[Decision]) -> Decision:
        self.asked += 1
        if self.asked <= 2:
            start = time.thread_time()
            while time.thread_time() - start < 0.03:
                pass
        return RandomBot.decide(self, view, legal)


class SleepyBot(_Sometimes):
    """Its first two decisions wait 30 ms without working (a loaded machine, as the bot
    sees it)."""

    def decide(self, view: View, legal: Sequence[Decision]) -> Decision:
        self.asked += 1
        if self.asked <= 2:
            time.sleep(0.03)
        return RandomBot.decide(self, view, legal)


def _game(seed: int = 3, players: int = 3) -> Game:
    return Game.new(players, seed, round_limit=4)


def test_well_behaved_bots_play_the_same_game_as_the_plain_runner() -> None:
    a, b = _game(), _game()
    play_game(a, [RandomBot(s) for s in range(3)])
    faults = play_refereed(b, [RandomBot(s) for s in range(3)], time_limit=10.0)
    assert faults == []
    assert a.result == b.result
    assert [e.public for e in a.log] == [e.public for e in b.log]


@pytest.mark.parametrize(("bot_class", "kind"), [(RaisingBot, "error"),
                                                  (IllegalBot, "illegal")])
def test_a_failing_bot_is_charged_the_default_and_the_game_goes_on(
        bot_class: type[_Sometimes], kind: str) -> None:
    game = _game()
    charged: list[Decision] = []
    bot = bot_class(1)
    original = bot.fail

    def fail(view: View, legal: Sequence[Decision]) -> Decision:
        charged.append(default_decision(game, 0))  # what the referee will play instead
        return original(view, legal)

    bot.fail = fail  # type: ignore[method-assign]
    faults = play_refereed(game, [bot, RandomBot(2), RandomBot(3)], time_limit=10.0)
    assert game.is_over
    assert faults and {f.kind for f in faults} == {kind}
    assert all(f.seat == 0 for f in faults)
    assert len(faults) == bot.asked // bot.every
    assert fault_counts(faults, 3) == [{kind: len(faults)}, {}, {}]
    record = record_of(game, "g", ["a", "b", "c"], faults)
    defaults = [d for d in record.decisions if d.by == "default"]
    assert [d.decision for d in defaults] == charged
    assert all(d.seat == 0 for d in defaults)
    assert len(record.violations) == len(faults)
    assert record.violations[0]["reason"].startswith(kind)
    # The record replays to the same game.
    again = GameRecord.from_json(record.to_json())
    assert again.replay().result == game.result


def test_a_slow_decision_is_replaced_by_the_default() -> None:
    game = _game()
    bot = SlowBot(1)
    faults = play_refereed(game, [bot, RandomBot(2), RandomBot(3)], time_limit=0.01)
    assert [f.kind for f in faults] == ["timeout", "timeout"]
    assert faults[0].number == 0 and faults[0].detail == "used more than 0.01 s of CPU time"
    record = record_of(game, "g", ["a", "b", "c"], faults)
    for fault in faults:  # the late answer was thrown away: the default was played
        charged = record.decisions[fault.number]
        assert charged.by == "default" and charged.seat == fault.seat == 0
        before = record.replay(upto=fault.number)
        assert charged.decision == default_decision(before, 0)
    assert game.is_over


def test_the_time_limit_counts_cpu_time_not_waiting() -> None:
    """A decision that waits (the machine is busy with other work) is not late: only the
    CPU time of the bot's thread counts, so a loaded machine gives the same faults."""
    game = _game()
    faults = play_refereed(game, [SleepyBot(1), RandomBot(2), RandomBot(3)], time_limit=0.01)
    assert faults == [] and game.is_over


def test_the_tournament_counts_faults_per_bot_and_goes_on(tmp_path: Path) -> None:
    bots = (f"{HERE}:RaisingBot", f"{HERE}:IllegalBot", "random")
    settings = Settings(bots, 3, seed=5, round_limit=3, records=str(tmp_path))
    summary, rows = run_tournament(settings, 3)
    per_bot = summary["per_bot"]
    assert set(per_bot[0]["faults"]) == set(FAULT_KINDS)
    assert per_bot[0]["faults"]["error"] > 0 and per_bot[0]["faults"]["illegal"] == 0
    assert per_bot[1]["faults"]["illegal"] > 0 and per_bot[1]["faults"]["error"] == 0
    assert per_bot[2]["faults"] == dict.fromkeys(FAULT_KINDS, 0)
    assert summary["faults"]["error"] == per_bot[0]["faults"]["error"]
    for row in rows:
        for seat, bot in enumerate(row["seating"]):
            if bot == 2:
                assert row["faults"][seat] == {}
    record = GameRecord.from_json((tmp_path / "game-000000.json").read_text())
    assert any(d.by == "default" for d in record.decisions)
    assert {d.by for d in record.decisions} <= {"bot", "default"}


def test_a_bot_whose_factory_fails_plays_defaults() -> None:
    bot = make_bot(f"{HERE}:broken_factory", 1)
    assert isinstance(bot, BrokenBot)
    game = _game()
    faults = play_refereed(game, [bot, RandomBot(2), RandomBot(3)])
    assert faults and {f.kind for f in faults} == {"error"}
    assert "cannot make bot" in faults[0].detail


def broken_factory(seed: int) -> PhaseBot:
    if seed != 0:  # load_bot(spec, 0) at set-up works; the seeded ones fail
        raise OSError("no model file")
    return PhaseBot(seed)


# -- the helpers -------------------------------------------------------------------------------


def test_helpers_group_and_describe_decisions() -> None:
    game = Game.new(4, 7)
    seat = game.waiting_seats()[0]
    legal = game.legal(seat)
    groups = by_kind(legal)
    assert sum(len(v) for v in groups.values()) == len(legal)
    kind = type(legal[0])
    assert of_kind(legal, kind) == groups[kind.__name__]
    assert describe(Take(2, 5, None))
    assert best([3, 1, 3], lambda x: x) == 3
    assert best([1, 2, 2, 2], lambda x: x, random.Random(0)) == 2
    with pytest.raises(ValueError):
        best([], lambda x: x)


def test_the_default_choice_from_the_legal_list_alone() -> None:
    assert default_choice(FIRST, 2, [ChooseFirst(0), ChooseFirst(2)]) == ChooseFirst(2)
    assert default_choice("announce", 0, [Announce(2), Announce(3)]) == Announce(2)
    with pytest.raises(ValueError):
        default_choice("announce", 0, [])


def test_a_phase_bot_falls_back_to_the_default() -> None:
    game = Game.new(3, 1, round_limit=2)
    play_refereed(game, [PhaseBot(0), PhaseBot(1), PhaseBot(2)])
    assert game.is_over


class MisspeltBot(PhaseBot):
    """on_trun for on_turn: a handler that would never be called."""

    def on_trun(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return legal[-1]


def test_a_misspelt_phase_handler_is_refused_when_the_bot_loads() -> None:
    with pytest.raises(ValueError, match=r"MisspeltBot\.on_trun handles no phase; did you "
                                         r"mean on_turn\?"):
        MisspeltBot(0)
    with pytest.raises(ValueError, match="on_trun handles no phase"):
        load_bot(f"{Path(__file__)}:MisspeltBot", 0)
    with pytest.raises(ValueError, match="on_trun handles no phase"):  # before any game
        run_tournament(Settings((f"{Path(__file__)}:MisspeltBot", "random"), 2), 2)


def test_bot_options_are_given_after_the_strategy_and_checked() -> None:
    bot = load_bot("search:iterations=8:temperature=2.5", 1)
    assert (bot.iterations, bot.temperature) == (8, 2.5)  # type: ignore[attr-defined]
    assert split_options("my/file.py:Bot:depth=3:fast=true") == (
        "my/file.py:Bot", {"depth": 3, "fast": True})
    with pytest.raises(ValueError, match=r"'greedy' takes no option 'nosuch' \(its options: "
                                         r"deck\)"):
        load_bot("greedy:nosuch=1")
    names = seat_names(Settings(("search:iterations=8", "random"), 2), (0, 1))
    assert names == ["search #0", "random #1"]


# -- the example bot ---------------------------------------------------------------------------


def test_the_example_bot_loads_by_module_class_and_by_path(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(ROOT))])
    monkeypatch.delitem(sys.modules, "examples", raising=False)
    monkeypatch.delitem(sys.modules, "examples.cautious_bot", raising=False)
    by_module = load_bot("examples.cautious_bot:CautiousBot", 4)
    by_path = load_bot("examples/cautious_bot.py:CautiousBot", 4)
    assert type(by_module).__name__ == type(by_path).__name__ == "CautiousBot"
    a, b = Game.new(4, 9), Game.new(4, 9)
    play_refereed(a, [by_module, RandomBot(1), RandomBot(2), RandomBot(3)])
    assert play_refereed(b, [by_path, RandomBot(1), RandomBot(2), RandomBot(3)]) == []
    assert a.result == b.result and a.result is not None


@pytest.mark.network
def test_the_example_bot_plays_from_the_mundus_command() -> None:
    script = Path(sys.executable).with_name("mundus")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "mundus_net.cli"]
    run = subprocess.run([*command, "sim", "--players", "2", "--bots",
                          "examples.cautious_bot:CautiousBot,random", "--games", "2", "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert '"examples.cautious_bot:CautiousBot"' in run.stdout
