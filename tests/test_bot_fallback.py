"""PhaseBot's fallback (docs/bots.md, "Phases a PhaseBot does not handle"): the phases a bot
does not handle are played by greedy's choices, said once on stderr; ``fallback_strategy =
"passive"`` keeps the default decision. Every bot of the docs and of ``examples/`` scores."""

from __future__ import annotations

import importlib.util
import re
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

from mundus_net.bots.base import Bot
from mundus_net.bots.greedy import GreedyBot
from mundus_net.bots.random_bot import RandomBot
from mundus_net.bots.sdk import PhaseBot, best, of_kind
from mundus_net.engine.decisions import Decision, Offer, Take
from mundus_net.engine.defaults import default_choice
from mundus_net.engine.game import OVER, PHASES, SIMULTANEOUS, Game
from mundus_net.engine.view import PlayerView
from mundus_net.tools.games import Settings, without_cpu
from mundus_net.tools.runner import play_game
from mundus_net.tools.tournament import run_tournament

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve()
BOT_DOCS = ("docs/bots.md", "docs/bot-view.md")
NOT_A_BOT_EXAMPLE = {"train_rl_agent.py"}  # trains an RL agent: not a bot class to load


def doc_bot_classes() -> dict[str, type]:
    """Every bot class defined in a ``python`` block of the bot docs, made by running the
    block as it is written (a block that shows a Protocol is no bot)."""
    found: dict[str, type] = {}
    for doc in BOT_DOCS:
        text = (ROOT / doc).read_text(encoding="utf-8")
        for number, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.DOTALL)):
            names = [name for name, bases in re.findall(r"^class (\w+)(\([^)]*\))?:", block,
                                                         re.MULTILINE) if "Protocol" not in bases]
            if not names:
                continue
            namespace: dict[str, object] = {"__name__": f"{doc}#{number}"}
            exec(compile(block, f"{doc} block {number}", "exec"), namespace)
            for name in names:
                cls = namespace[name]
                assert isinstance(cls, type) and callable(getattr(cls, "decide", None)), name
                found[name] = cls
    return found


def example_bot_classes() -> dict[str, type]:
    """Every class with a ``decide`` method defined in a file of ``examples/``."""
    found: dict[str, type] = {}
    for path in sorted((ROOT / "examples").glob("*.py")):
        if path.name in NOT_A_BOT_EXAMPLE:
            continue
        spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = ModuleType(spec.name)
        spec.loader.exec_module(module)
        for name, value in vars(module).items():
            if isinstance(value, type) and value.__module__ == module.__name__ \
                    and callable(getattr(value, "decide", None)):
                found[f"examples/{path.name}:{name}"] = value
    return found


DOC_BOTS = doc_bot_classes()
EXAMPLE_BOTS = example_bot_classes()


def test_the_docs_and_examples_have_the_bots_this_test_plays() -> None:
    assert {"MyBot", "Taker", "Learner"} <= set(DOC_BOTS)
    assert "examples/cautious_bot.py:CautiousBot" in EXAMPLE_BOTS


def mean_doubloons(make: type, games: int = 20) -> float:
    """The bot's mean doubloons over ``games`` seeded 4-player games against greedy and two
    random bots, at seat ``i mod 4`` in game ``i``."""
    money = []
    for i in range(games):
        seat = i % 4
        bots: list[Bot] = [GreedyBot(100 + i), RandomBot(200 + i), RandomBot(300 + i)]
        bots.insert(seat, make(i))
        game = play_game(Game.new(4, 1000 + i), bots)
        assert game.result is not None
        money.append(game.result.doubloons[seat])
    return statistics.fmean(money)


@pytest.mark.parametrize("name", sorted({**DOC_BOTS, **EXAMPLE_BOTS}))
def test_every_bot_of_the_docs_and_examples_scores_over_twenty_games(name: str) -> None:
    make = {**DOC_BOTS, **EXAMPLE_BOTS}[name]
    assert mean_doubloons(make) > 0


class OnlyOffers(PhaseBot):
    """Offers its lowest cards; every other phase is left to the fallback."""

    def on_offer(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return best(of_kind(legal, Offer), lambda d: -sum(d.cards), self.rng)


class OnlyTakes(PhaseBot):
    def on_take(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return best(of_kind(legal, Take), lambda d: d.card, self.rng)


class PassiveTaker(OnlyTakes):
    fallback_strategy = "passive"


def test_the_fallback_is_said_once_on_stderr_naming_the_phases(
        capsys: pytest.CaptureFixture[str]) -> None:
    game = Game.new(3, 5, round_limit=3)
    play_game(game, [OnlyOffers(0), OnlyOffers(1), OnlyOffers(2)])
    OnlyOffers(3)
    said = capsys.readouterr().err.splitlines()
    others = [p for p in PHASES if p not in ("offer", OVER)]
    # One sentence, wrapped at 80 columns with a hanging indent.
    assert all(len(line) <= 80 for line in said) and len(said) > 1
    assert all(line.startswith("  ") for line in said[1:])
    assert " ".join(line.strip() for line in said) == (
        f"OnlyOffers handles offer; greedy's choices play the other phases: "
        f"{', '.join(others)} (to choose another: fallback_strategy, docs/bots.md)")


def test_the_fallback_plays_greedys_choices_with_the_bots_seed() -> None:
    game = Game.new(4, 11)
    bot, greedy = OnlyTakes(7), GreedyBot(7)
    while game.phase != OVER and game.round < 3:
        seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
        view, legal = PlayerView(game, seat), game.legal(seat)
        decision = bot.decide(view, legal)
        if game.phase != "take":
            assert decision == greedy.decide(view, legal)
        game.apply(seat, decision)


def _leave_it(self: PhaseBot, view: PlayerView, legal: Sequence[Decision]) -> Decision:
    return self.fallback(view, legal)


LeavesAll = type("LeavesAll", (PhaseBot,), {f"on_{p}": _leave_it for p in PHASES if p != OVER})


def test_a_handler_may_leave_a_question_to_the_fallback(
        capsys: pytest.CaptureFixture[str]) -> None:
    games = []
    for make in (LeavesAll, GreedyBot):
        game = Game.new(4, 31)
        play_game(game, [make(5), RandomBot(1), GreedyBot(2), RandomBot(3)])
        games.append([e.public for e in game.log])
    assert games[0] == games[1]
    assert capsys.readouterr().err == ""  # every phase has a handler: nothing to say


class _OldPhaseBot:
    """PhaseBot as it was before the fallback: take handled, every other phase the default
    decision."""

    def __init__(self, seed: int) -> None:
        self.taker = PassiveTaker(seed)

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        if view.phase == "take":
            return self.taker.decide(view, legal)
        return default_choice(view.phase, view.seat or 0, legal)


def test_a_passive_fallback_keeps_the_default_decision_and_says_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    games = []
    for make in (PassiveTaker, _OldPhaseBot):
        game = Game.new(4, 21)
        play_game(game, [make(0), GreedyBot(1), RandomBot(2), RandomBot(3)])
        games.append(game)
    new, old = games
    assert [e.public for e in new.log] == [e.public for e in old.log]
    assert new.result == old.result and new.result is not None
    assert new.result.doubloons[0] == 0  # why the fallback is greedy now
    assert capsys.readouterr().err == ""


class Misconfigured(OnlyTakes):
    fallback_strategy = "nosuch"


def test_a_fallback_strategy_that_cannot_be_loaded_is_refused_when_the_bot_is_made() -> None:
    with pytest.raises(ValueError, match="unknown strategy 'nosuch'"):
        Misconfigured(0)
    with pytest.raises(ValueError, match="unknown strategy 'nosuch'"):  # before any game
        run_tournament(Settings((f"{HERE}:Misconfigured", "random"), 2), 2)


@pytest.mark.network
def test_the_fallback_plays_over_the_network_as_in_process() -> None:
    """Taker of docs/bots.md as a `mundus bot` process: the same game as in-process, and it
    scores."""
    bots = (f"{HERE}:OnlyTakes", "random", "random")
    settings = Settings(bots, 3, seed=3, round_limit=4)
    _, far = run_tournament(settings, 1, network=True)
    _, near = run_tournament(settings, 1)
    skip = ("fault_list", "tracebacks")  # said by the bot process, in its own words
    assert [{k: v for k, v in r.items() if k not in skip} for r in without_cpu(far)] == \
        [{k: v for k, v in r.items() if k not in skip} for r in without_cpu(near)]
    seat = far[0]["seating"].index(0)
    assert far[0]["doubloons"][seat] > 0


@pytest.mark.network
def test_the_mundus_command_says_the_fallback_once_whatever_jobs(tmp_path: Path) -> None:
    bot_file = tmp_path / "taker.py"
    bot_file.write_text("from mundus_net.bots.sdk import PhaseBot\n\n\n"
                        "class Taker(PhaseBot):\n"
                        "    def on_take(self, view, legal):\n"
                        "        return legal[-1]\n", encoding="utf-8")
    script = Path(sys.executable).with_name("mundus")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "mundus_net.cli"]
    run = subprocess.run([*command, "tournament", "--bots", f"{bot_file}:Taker,random,random",
                          "--games", "6", "--jobs", "2", "--seed", "2"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    said = [line for line in run.stderr.splitlines() if "Taker handles" in line]
    assert said == [said[0]] and "greedy's choices play the other phases" in said[0]

