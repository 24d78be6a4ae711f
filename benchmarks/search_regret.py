"""How well the search bot ranks its candidates: its loss against a long search, by variant.

Plays ``--games`` 4-player games of greedy bots, keeps the positions where a search bot in
seat 0 would search among three candidates or more (it plays greedy's choice there, so the
games are greedy games), and takes ``--positions`` of them at random. For each position a
*reference* search plays every candidate in ``--reference`` determinizations (the search's
own rollouts and evaluation, common random numbers); the candidate it rates best is the
reference best. Each bot of ``--bots`` (``search`` with options, as ``benchmarks/strength.py``
takes them) then decides the position ``--repeats`` times with other seeds, and its *regret*
is the reference value of the best candidate minus that of the one it chose, in shares of
the win, averaged over positions and repeats; greedy's regret is that of greedy's choice.

    python benchmarks/search_regret.py --bots search,search:iterations=8 --seed 7

The regret measures only the noise of the ranking: the reference shares the search's model
(greedy rollouts, random hidden hands, the round-end evaluation), so a bot with less regret
is closer to what more search would do, not necessarily stronger. Deterministic for a seed;
the last line of stdout is JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence

from mundus_net.bots.base import load_bot
from mundus_net.bots.greedy import GreedyBot
from mundus_net.bots.search import SearchBot, look_ahead
from mundus_net.engine.decisions import Decision
from mundus_net.engine.determinize import determinize
from mundus_net.engine.game import Game
from mundus_net.engine.seeds import derive_seed
from mundus_net.engine.view import PlayerView, View
from mundus_net.tools.runner import play_game

Position = tuple[PlayerView, list[Decision]]


class _Collector(SearchBot):
    """A search bot that keeps each position it would search and plays greedy's choice."""

    def __init__(self, seed: int, game: Game) -> None:
        super().__init__(seed)
        self.game = game
        self.positions: list[Position] = []

    def _search(self, view: View, cands: list[Decision]) -> Decision:
        if len(cands) >= 3:
            seat = view.seat
            assert seat is not None
            self.positions.append((PlayerView(self.game.copy(), seat), list(cands)))
        return cands[0]


def positions(games: int, seed: int) -> list[Position]:
    """Every position with three candidates or more of ``games`` greedy games."""
    out: list[Position] = []
    for i in range(games):
        game = Game.new(4, derive_seed(seed, "regret-game", i))
        collector = _Collector(derive_seed(seed, "regret-bot", i), game)
        bots: list[SearchBot | GreedyBot] = [collector]
        bots.extend(GreedyBot(derive_seed(seed, "regret-greedy", i, s)) for s in range(1, 4))
        play_game(game, bots)
        out.extend(collector.positions)
    return out


def reference_values(view: PlayerView, cands: Sequence[Decision], iterations: int,
                     seed: int) -> list[float]:
    """Each candidate's mean score over ``iterations`` determinizations of the search."""
    seat = view.seat
    assert seat is not None
    bot = SearchBot(seed)
    rng = random.Random(seed)
    totals = [0.0] * len(cands)
    for _ in range(iterations):
        base = look_ahead(determinize(view, rng), view.round)
        rollout_seed = rng.getrandbits(32)
        for i, d in enumerate(cands):
            g = base.copy()
            g.apply(seat, d)
            totals[i] += bot.rollout(g, seat, rollout_seed)
    return [t / iterations for t in totals]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="search", help="comma-separated search bot specs")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--reference", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    specs = args.bots.split(",")
    started = time.process_time()
    found = positions(args.games, args.seed)
    random.Random(args.seed).shuffle(found)
    chosen = found[:args.positions]
    greedy_regret: list[float] = []
    regret: dict[str, list[float]] = {spec: [] for spec in specs}
    agree: dict[str, list[float]] = {spec: [] for spec in specs}
    for p, (view, cands) in enumerate(chosen):
        values = reference_values(view, cands, args.reference,
                                  derive_seed(args.seed, "regret-reference", p))
        best = max(values)
        top = values.index(best)
        greedy_regret.append(best - values[0])
        for spec in specs:
            for r in range(args.repeats):
                bot = load_bot(spec, derive_seed(args.seed, "regret-search", p, r))
                if not isinstance(bot, SearchBot):
                    parser.error(f"{spec!r} is not a search bot")
                bot.rng.seed(derive_seed(args.seed, "regret-rng", p, r))
                i = cands.index(bot._search(view, list(cands)))
                regret[spec].append(best - values[i])
                agree[spec].append(1.0 if i == top else 0.0)
    rows = {spec: {"regret": round(statistics.fmean(regret[spec]), 5),
                   "agrees": round(statistics.fmean(agree[spec]), 3)} for spec in specs}
    print(f"{len(chosen)} positions (of {len(found)}) from {args.games} games, seed {args.seed}; "
          f"reference {args.reference} determinizations; "
          f"{time.process_time() - started:.0f} s of CPU")
    print(f"greedy's choice: regret {statistics.fmean(greedy_regret):.4f}")
    for spec, row in rows.items():
        print(f"{spec}: regret {row['regret']:.4f}, the reference's best "
              f"{row['agrees']:.0%} of the time")
    print(json.dumps({"seed": args.seed, "positions": len(chosen),
                      "greedy_regret": round(statistics.fmean(greedy_regret), 5),
                      "bots": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
