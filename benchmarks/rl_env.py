"""Environment steps per second against the bare engine's decisions per second, in one run.

Both play whole games with uniformly random legal decisions from the same seeds: the bare
engine picks from ``game.legal(seat)``; the PettingZoo AEC environment builds each acting
seat's observation vector and action mask, and picks from its legal action indexes
(``info["legal_actions"]``, the mask's ones). The ratio is what the
environment costs per step (target: at most 3x the bare engine). Also the Gymnasium
environment (one random agent against random bots: its steps are only the agent's). Every
side draws its choices with ``random.Random(game)``, so the harness costs the same on each.

    python benchmarks/rl_env.py            # 4 players, 60 games each way, best of 3
    python benchmarks/rl_env.py --games 200 --players 3 --repeat 5

The last line is JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time

from mundus_net.compiled import describe
from mundus_net.engine.game import OVER, SIMULTANEOUS, Game
from mundus_net.rl.aec import MundusAEC
from mundus_net.rl.single import MundusEnv


def bare(players: int, games: int) -> tuple[int, float]:
    steps, start = 0, time.perf_counter()
    for g in range(games):
        rng = random.Random(g)
        game = Game.new(players, g)
        while game.phase != OVER:
            seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
            legal = game.legal(seat)
            game.apply(seat, legal[rng.randrange(len(legal))])
            steps += 1
    return steps, time.perf_counter() - start


def aec(players: int, games: int) -> tuple[int, float]:
    env = MundusAEC(players)
    steps, start = 0, time.perf_counter()
    for g in range(games):
        rng = random.Random(g)  # the bare engine's draw: the harness costs the same
        env.reset(seed=g)
        for _agent in env.agent_iter():
            _obs, _, done, truncated, info = env.last()
            if done or truncated:
                env.step(None)
                continue
            legal = info["legal_actions"]  # the mask's indexes, as the bare engine's list
            env.step(legal[rng.randrange(len(legal))])
            steps += 1
    return steps, time.perf_counter() - start


def single(players: int, games: int) -> tuple[int, float]:
    env = MundusEnv(players)
    steps, start = 0, time.perf_counter()
    for g in range(games):
        rng = random.Random(g)
        _, info = env.reset(seed=g)
        over = False
        while not over:
            legal = info["legal_actions"]
            _, _, over, _, info = env.step(legal[rng.randrange(len(legal))])
            steps += 1
    return steps, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each, alternating; the best rate of each counts")
    args = parser.parse_args(argv)
    print(f"build: {describe()}", flush=True)  # plain Python, or which modules compiled
    runs = (("bare", bare), ("aec", aec), ("gymnasium", single))
    for _, run in runs:  # warm up: imports, the action tables of each seat
        run(args.players, 2)
    # What the warm-up left (modules, the environments' tables) is set aside from the garbage
    # collector, so that its full collections in one run do not walk what another made.
    gc.collect()
    gc.freeze()
    figures = dict.fromkeys((name for name, _ in runs), 0.0)
    for r in range(args.repeat):
        for name, run in runs:
            steps, took = run(args.players, args.games)
            figures[name] = max(figures[name], steps / took)
            print(f"run {r + 1} {name:>9}: {steps} steps in {took:.2f} s, "
                  f"{steps / took:,.0f} steps/s")
    ratio = figures["bare"] / figures["aec"]
    print(f"best: bare {figures['bare']:,.0f}, aec {figures['aec']:,.0f}, gymnasium "
          f"{figures['gymnasium']:,.0f} steps/s; the AEC environment costs {ratio:.2f}x the "
          "bare engine per step (target <= 3x)")
    print(json.dumps({"players": args.players, "games": args.games, "repeat": args.repeat,
                      "bare_steps_per_s": round(figures["bare"]),
                      "aec_steps_per_s": round(figures["aec"]),
                      "gymnasium_steps_per_s": round(figures["gymnasium"]),
                      "cost_ratio": round(ratio, 2), "target_met": ratio <= 3}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
