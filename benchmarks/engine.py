"""Engine benchmark: 4-player games of random bots and of greedy bots on one core.

Each game (``Game.new`` and :func:`mundus_net.tools.runner.play_game`) is played exactly as a real
game in one process is. A *decision* is one choice a bot made and the engine applied through
``Game.apply`` (listing the legal choices and validating the one made included); the
decisions the engine applies by itself because there was a single choice are not counted.
They are counted after each game from its log (``decision`` events that are not ``auto``), so
counting costs nothing inside the timed part.

Rates are per second of this process's CPU time (``time.process_time``), so that other work on
a shared machine does not count against the engine; wall-clock rates are printed and reported
too (``*_wall``). On an idle machine the two agree.

The reference is catanatron, a pure-Python Catan engine: about 37,000 actions/s with 4 random
players on this kind of machine. When catanatron is installed (``pip install -e '.[bench]'``),
it is measured in the same run, its games interleaved with the random-bot games so that both
see the machine in the same state, and both are counted the same way: every step (ours: bot
decisions and the ones the engine applies itself; its: every action) and the steps with more
than one choice (ours: bot decisions; its: actions with more than one playable action). The
targets: every step at least 3x catanatron's rate, steps with a choice at least 6x.
Without catanatron, twice the quoted 37,000 bot decisions/s. A game of greedy bots must take
at most 10 times as long as a game of random bots.

    python benchmarks/engine.py                      # 1000 games of each kind, or 30 s each
    python benchmarks/engine.py --games 300 --seconds 10 --seed 7
    python benchmarks/engine.py --profile 300        # where the time goes, with cProfile
    python benchmarks/engine.py --no-catanatron      # only the quoted catanatron figure
    python benchmarks/engine.py --games 400 --seconds 20 --no-greedy  # the catanatron ratios

Progress goes to stderr; the last line of stdout is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import pstats
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mundus_net.bots.base import Bot
from mundus_net.bots.random_bot import RandomBot
from mundus_net.compiled import describe
from mundus_net.engine.game import Game
from mundus_net.tools.runner import play_game

PLAYERS = 4
CATANATRON_ACTIONS_PER_S = 37_000  # catanatron, 4 random players, this kind of machine
TARGET_FACTOR = 2.0  # random bots: at least twice catanatron's quoted rate (without it)
STEPS_TARGET = 3.0  # every step, ours against all of catanatron's actions, measured
CHOICES_TARGET = 6.0  # steps with a choice on both sides, measured
GREEDY_MAX_RATIO = 10.0  # a greedy game takes at most this many times a random game
PROGRESS_EVERY_S = 5.0

BotFactory = Callable[[int], Bot]


@dataclass
class Run:
    """What one kind of bot did: games played, bot decisions, and CPU and wall-clock seconds
    spent playing."""

    name: str
    games: int = 0
    decisions: int = 0  # steps with more than one legal choice (a bot's decision)
    steps: int = 0  # every step: decisions and forced ones (ours: applied automatically)
    seconds: float = 0.0
    wall: float = 0.0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0

    @property
    def decisions_per_s_wall(self) -> float:
        return self.decisions / self.wall if self.wall else 0.0

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def decisions_per_game(self) -> float:
        return self.decisions / self.games if self.games else 0.0

    @property
    def seconds_per_game(self) -> float:
        return self.seconds / self.games if self.games else 0.0


Reference = Callable[[int], tuple[int, int]]  # seed -> (actions, actions with a choice)


def catanatron_game() -> Reference | None:
    """A function that plays one seeded 4-random-player catanatron game and returns its
    actions (every action, as catanatron counts them) and those among them that had more
    than one playable action; or None if catanatron is missing."""
    try:
        catanatron = importlib.import_module("catanatron")
    except ImportError:
        return None
    colors = list(catanatron.Color)[:PLAYERS]
    draw = importlib.import_module("random").randrange

    def play(seed: int) -> tuple[int, int]:
        choices = 0

        def decide(game: Any, playable_actions: Sequence[Any]) -> Any:
            """RandomPlayer.decide (the same draw, as cheap), counting the real choices."""
            nonlocal choices
            count = len(playable_actions)
            if count > 1:
                choices += 1
            return playable_actions[draw(0, count)]

        players = [catanatron.RandomPlayer(c) for c in colors]
        for player in players:
            player.decide = decide
        # Game seeds the global generator, which catanatron's RandomPlayer draws from.
        game = catanatron.Game(players, seed=seed)
        game.play()
        return len(game.state.actions), choices

    return play


def counted_steps(game: Game) -> tuple[int, int]:
    """(every step, bot decisions) of a finished game: the log's decisions, and those a bot
    made (the engine applies a decision with a single choice itself, as ``auto``)."""
    steps = decisions = 0
    for event in game.log:
        if event.kind == "decision":
            steps += 1
            if not event.public["auto"]:
                decisions += 1
    return steps, decisions


def run(name: str, factory: BotFactory, games: int, budget: float | None, seed: int,
        reference: Reference | None = None) -> tuple[Run, Run | None]:
    """Play up to ``games`` games (and at most about ``budget`` seconds) with ``factory``'s
    bots; game ``i`` uses table seed ``seed + i`` and bot seeds derived from it. With a
    ``reference``, one of its games follows each of ours while it has used less CPU time than
    ours, so both share the machine's ups and downs (its figures: the second run)."""
    result = Run(name)
    other = None if reference is None else Run("catanatron")
    cpu, wall = time.process_time, time.perf_counter
    next_report = PROGRESS_EVERY_S
    for i in range(games):
        game_seed = seed + i
        bots = [factory(game_seed * 10 + seat) for seat in range(PLAYERS)]
        start, start_wall = cpu(), wall()
        game = Game.new(PLAYERS, game_seed)
        play_game(game, bots)
        result.seconds += cpu() - start
        result.wall += wall() - start_wall
        result.games += 1
        steps, decisions = counted_steps(game)
        result.steps += steps
        result.decisions += decisions
        while reference is not None and other is not None and other.seconds < result.seconds:
            start, start_wall = cpu(), wall()
            actions, choices = reference(seed + other.games)
            other.seconds += cpu() - start
            other.wall += wall() - start_wall
            other.games += 1
            other.steps += actions
            other.decisions += choices
        if result.seconds >= next_report:
            next_report += PROGRESS_EVERY_S
            line = f"  {name}: {result.games} games, {result.decisions_per_s:,.0f} decisions/s"
            if other is not None:
                line += f"; catanatron {other.decisions_per_s:,.0f} actions/s"
            print(line, file=sys.stderr, flush=True)
        if budget is not None and result.seconds >= budget:
            break
    return result, other


def load_greedy() -> BotFactory | None:
    """The greedy bot class, or None (with a message) if it cannot be imported yet."""
    try:
        module = importlib.import_module("mundus_net.bots.greedy")
        factory: BotFactory = module.GreedyBot
    except (ImportError, AttributeError) as exc:
        print(f"greedy bot not available, skipped: {exc}", file=sys.stderr)
        return None
    return factory


def report(r: Run) -> None:
    print(f"{r.name:>6}: {r.games} games in {r.seconds:.2f} s CPU ({r.wall:.2f} s wall): "
          f"{r.decisions_per_s:,.0f} decisions/s ({r.decisions_per_s_wall:,.0f} wall), "
          f"{r.steps_per_s:,.0f} steps/s, "
          f"{r.games_per_s:.2f} games/s, {r.decisions_per_game:.1f} decisions/game, "
          f"{1000 * r.seconds_per_game:.2f} ms/game")


def profile(games: int, seed: int, top: int = 25) -> None:
    """Print a cProfile of ``games`` random-bot games: own time and time with callees."""
    profiler = cProfile.Profile()
    profiler.runcall(run, "random", RandomBot, games, None, seed)
    stats = pstats.Stats(profiler)
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = []
    for (path, _, name), (_, calls, own, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = "" if path.startswith("~") else path.rsplit("/", 1)[-1] + ":"
        rows.append((own, cumulative, calls, where + name))
    rows.sort(reverse=True)
    print(f"{games} games of random bots, {total:.2f} s profiled")
    print(f"{'own %':>6} {'incl %':>7} {'calls':>10}  function")
    for own, cumulative, calls, name in rows[:top]:
        print(f"{100 * own / total:6.1f} {100 * cumulative / total:7.1f} {calls:10,}  {name}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000,
                        help="games of each kind of bot (default 1000)")
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="CPU-time budget per kind of bot: stop early once it is spent "
                             "(default 30)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--no-catanatron", action="store_true",
                        help="do not measure catanatron even if it is installed")
    parser.add_argument("--no-greedy", action="store_true",
                        help="play only the random-bot games (and catanatron's)")
    parser.add_argument("--profile", type=int, metavar="N", default=0,
                        help="instead, profile N games of random bots with cProfile and print "
                             "the functions that take the most time")
    args = parser.parse_args(argv)
    print(f"build: {describe()}", flush=True)  # plain Python, or which modules compiled
    if args.profile:
        profile(args.profile, args.seed)
        return 0

    reference = None if args.no_catanatron else catanatron_game()
    if reference is None:
        print(f"{PLAYERS}-player games, one core; target "
              f"{TARGET_FACTOR * CATANATRON_ACTIONS_PER_S:,.0f} decisions/s (catanatron's "
              f"quoted {CATANATRON_ACTIONS_PER_S:,} actions/s x {TARGET_FACTOR:g}; install "
              "catanatron to measure it in the same run)")
    else:
        print(f"{PLAYERS}-player games, one core; targets {STEPS_TARGET:g}x catanatron's rate "
              f"for every step, {CHOICES_TARGET:g}x for steps with a choice, measured in this run "
              "(games interleaved)")
    print("random bots...", file=sys.stderr, flush=True)
    random_run, catanatron_run = run("random", RandomBot, args.games, args.seconds, args.seed,
                                     reference)
    report(random_run)
    if catanatron_run is not None:
        theirs = catanatron_run
        print(f"catanatron: {theirs.games} games in {theirs.seconds:.2f} s CPU: "
              f"{theirs.steps_per_s:,.0f} actions/s, "
              f"{theirs.decisions_per_s:,.0f} actions with a choice/s, "
              f"{theirs.steps / theirs.games:.1f} actions/game")
        steps_ratio = random_run.steps_per_s / theirs.steps_per_s
        choices_ratio = random_run.decisions_per_s / theirs.decisions_per_s
        print(f"counted the same way: every step {steps_ratio:.2f}x catanatron's "
              f"(target {STEPS_TARGET:g}x), steps with a choice {choices_ratio:.2f}x (target "
              f"{CHOICES_TARGET:g}x); our decisions against all its actions "
              f"{random_run.decisions_per_s / theirs.steps_per_s:.2f}x")
        met = steps_ratio >= STEPS_TARGET and choices_ratio >= CHOICES_TARGET
    else:
        met = random_run.decisions_per_s >= TARGET_FACTOR * CATANATRON_ACTIONS_PER_S
    figures: dict[str, object] = {
        "players": PLAYERS,
        "random_games": random_run.games,
        "random_decisions_per_s": round(random_run.decisions_per_s),
        "random_decisions_per_s_wall": round(random_run.decisions_per_s_wall),
        "random_steps_per_s": round(random_run.steps_per_s),
        "random_games_per_s": round(random_run.games_per_s, 3),
        "random_decisions_per_game": round(random_run.decisions_per_game, 1),
        "random_ms_per_game": round(1000 * random_run.seconds_per_game, 3),
    }
    greedy = None if args.no_greedy else load_greedy()
    if greedy is not None:
        print("greedy bots...", file=sys.stderr, flush=True)
        greedy_run, _ = run("greedy", greedy, args.games, args.seconds, args.seed)
        report(greedy_run)
        ratio = greedy_run.seconds_per_game / random_run.seconds_per_game
        print(f"a greedy game takes {ratio:.2f}x as long as a random game "
              f"(limit {GREEDY_MAX_RATIO:g}x)")
        figures.update({
            "greedy_games": greedy_run.games,
            "greedy_decisions_per_s": round(greedy_run.decisions_per_s),
            "greedy_decisions_per_s_wall": round(greedy_run.decisions_per_s_wall),
            "greedy_games_per_s": round(greedy_run.games_per_s, 3),
            "greedy_decisions_per_game": round(greedy_run.decisions_per_game, 1),
            "greedy_ms_per_game": round(1000 * greedy_run.seconds_per_game, 3),
            "greedy_to_random_game_time_ratio": round(ratio, 3),
        })
        met = met and ratio <= GREEDY_MAX_RATIO
    else:
        figures["greedy_skipped"] = True
    figures.update({
        "catanatron_reference_actions_per_s": CATANATRON_ACTIONS_PER_S,
        "random_to_catanatron_ratio": round(random_run.decisions_per_s
                                            / CATANATRON_ACTIONS_PER_S, 3),
    })
    if catanatron_run is not None:
        figures.update({
            "catanatron_games": catanatron_run.games,
            "catanatron_measured_actions_per_s": round(catanatron_run.steps_per_s),
            "catanatron_measured_choices_per_s": round(catanatron_run.decisions_per_s),
            "random_to_catanatron_measured_ratio": round(random_run.decisions_per_s
                                                         / catanatron_run.steps_per_s, 3),
            "steps_ratio": round(random_run.steps_per_s / catanatron_run.steps_per_s, 3),
            "choices_ratio": round(random_run.decisions_per_s
                                   / catanatron_run.decisions_per_s, 3),
        })
    figures["target_ratio_met"] = met
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
