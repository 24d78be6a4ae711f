"""Bot strength against three greedy bots, with the CPU it costs, for several bots in one run.

For each bot given, ``--games`` 4-player games in which it holds one seat (seat ``i mod 4``
in game ``i``, so every seat equally often) and greedy bots the other three; the same game
seeds for every bot. It prints, per bot: the win rate with its 95% Wilson interval (a shared
victory of k counts 1/k), the CPU time per game of the bot alone, and per decision (mean,
95th percentile), measured with ``time.thread_time`` around each ``decide``; then each other
bot's win rate minus the first's over the same games, with a 95% interval from the per-game
differences (paired: tighter than the two intervals side by side).

    python benchmarks/strength.py --bots search --games 100 --jobs 2
    python benchmarks/strength.py --bots search,search:iterations=6 --games 1000 --seed 77

Games are cut into chunks and played in ``--jobs`` worker processes; results are gathered in
game order, so the figures (but the CPU times) are the same whatever ``--jobs``. Progress goes
to stderr; the last line of stdout is JSON.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from mundus_net.bots.base import Bot, load_bot
from mundus_net.compiled import describe
from mundus_net.engine.decisions import Decision
from mundus_net.engine.game import Game
from mundus_net.engine.seeds import derive_seed
from mundus_net.engine.view import PlayerView
from mundus_net.tools.results import cpu_figures, wilson
from mundus_net.tools.runner import play_game

PLAYERS = 4


class _Timed:
    """A bot whose decisions' CPU times are kept."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.times: list[float] = []

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        start = time.thread_time()
        decision = self.bot.decide(view, legal)
        self.times.append(time.thread_time() - start)
        return decision


def play(spec: str, seed: int, index: int) -> tuple[float, list[float], int]:
    """Game ``index``: (the bot's share of the win, its decisions' CPU times, rounds)."""
    game_seed = derive_seed(seed, "strength-game", index)
    seat = index % PLAYERS
    game = Game.new(PLAYERS, game_seed)
    timed = _Timed(load_bot(spec, derive_seed(seed, "strength-bot", index)))
    bots: list[Any] = [load_bot("greedy", derive_seed(seed, "strength-greedy", index, s))
                       for s in range(PLAYERS)]
    bots[seat] = timed
    play_game(game, bots)
    result = game.result
    assert result is not None
    share = 1.0 / len(result.winners) if seat in result.winners else 0.0
    return share, timed.times, result.rounds


def _chunk(args: tuple[str, int, int, int]) -> list[tuple[float, list[float], int]]:
    spec, seed, start, stop = args
    return [play(spec, seed, i) for i in range(start, stop)]


def measure(specs: Sequence[str], games: int, seed: int, jobs: int) -> list[dict[str, Any]]:
    """Every bot's figures. The bots take turns chunk by chunk (bot A's games 0-9, bot B's
    games 0-9, A's 10-19, ...), so a change in the machine's load falls on all of them alike
    and their CPU times stay comparable."""
    size = max(1, min(10, games // (jobs * 8) or 1))
    parts = [(spec, seed, a, min(games, a + size))
             for a in range(0, games, size) for spec in specs]
    rows: dict[str, list[tuple[float, list[float], int]]] = {spec: [] for spec in specs}
    started = time.monotonic()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for (spec, *_), done in zip(parts, pool.imap(_chunk, parts), strict=True):
            rows[spec].extend(done)
            if spec == specs[-1]:
                print(f"{len(rows[spec])}/{games} games each, "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    return [_figures(spec, rows[spec], games) for spec in specs]


def _figures(spec: str, rows: list[tuple[float, list[float], int]], games: int
             ) -> dict[str, Any]:
    wins = sum(r[0] for r in rows)
    times = [t for r in rows for t in r[1]]
    per_game = [sum(r[1]) for r in rows]
    low, high = wilson(wins, games)
    cpu = cpu_figures([1000 * t for t in times]) or {"mean": 0.0, "p95": 0.0}
    return {"bot": spec, "games": games, "wins": round(wins, 3),
            "win_rate": round(wins / games, 4), "win_rate_ci95": [round(low, 4), round(high, 4)],
            "cpu_s_per_game": round(statistics.fmean(per_game), 3),
            "decision_ms_mean": round(cpu["mean"], 2), "decision_ms_p95": round(cpu["p95"], 2),
            "decisions_per_game": round(len(times) / games, 1),
            "shares": [r[0] for r in rows]}


def paired(first: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """``other``'s win rate minus ``first``'s over the same games, with a 95% interval from
    the per-game differences (normal approximation): the same deals and seats for both, so
    much of the luck of the deal cancels out."""
    diffs = [b - a for a, b in zip(first["shares"], other["shares"], strict=True)]
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
    return {"bot": other["bot"], "against": first["bot"], "difference": round(mean, 4),
            "difference_ci95": [round(mean - half, 4), round(mean + half, 4)]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="search", help="comma-separated bot specs")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    print(f"build: {describe()}", flush=True)  # plain Python, or which modules compiled
    figures = measure(args.bots.split(","), args.games, args.seed, args.jobs)
    for f in figures:
        low, high = f["win_rate_ci95"]
        print(f"{f['bot']}: wins {f['win_rate']:.1%} (95% CI {low:.1%}-{high:.1%}) of "
              f"{f['games']} games against three greedy bots; CPU {f['cpu_s_per_game']:.2f} s "
              f"a game, {f['decision_ms_mean']:.1f} ms a decision (p95 "
              f"{f['decision_ms_p95']:.1f} ms)")
    comparisons = [paired(figures[0], f) for f in figures[1:]]
    for c in comparisons:
        low, high = c["difference_ci95"]
        print(f"{c['bot']} - {c['against']}: {c['difference']:+.1%} over the same games "
              f"(95% CI {low:+.1%} to {high:+.1%})")
    for f in figures:
        del f["shares"]
    print(json.dumps({"seed": args.seed, "bots": figures, "paired": comparisons}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
