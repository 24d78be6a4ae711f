"""Fit the search bot's end-of-rollout evaluation to the results of greedy games.

A rollout of the search bot ends when its round ends and scores each seat's share of the win
(``mundus_net.bots.search.win_shares``). This script plays ``--games`` 4-player games of
greedy bots (the rollouts' own players), keeps every seat's ``worth_parts`` at the end of
every round but the last, with the rounds left, and fits the weights of a conditional logit:
P(seat s wins) = softmax over seats of ``w . fitted_features(parts[s], rounds_left)``, by
Newton's method on the log-likelihood of who won (a shared win of k counts 1/k each; the
problem is convex). It prints the log-loss on the games held out of the fit (the last
quarter) for the hand-made evaluation (``worths(g, 0.7) / 8``) and for the fitted one, by
stage of the game, the weights, and them as the ``FITTED`` line of search.py.

    python benchmarks/fit_evaluation.py --games 12000 --seed 32 --jobs 2   # FITTED's source
    python benchmarks/fit_evaluation.py --games 400 --data ends.npz         # keep the data

Needs numpy (the ``rl`` or ``test`` extra). The last line of stdout is JSON.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time

import numpy as np

from mundus_net.bots.base import load_bot
from mundus_net.bots.search import PARTS, _rounds_left, fitted_features, worth_parts
from mundus_net.engine.game import Game
from mundus_net.engine.seeds import derive_seed
from mundus_net.tools.runner import play_game

PLAYERS = 4
HAND_MADE = np.array([1, .7, .7, .7, .7, .7, .7, .7, 1, 0]) / 8.0  # worths(g, 0.7) / 8

_captured: list[tuple[int, float, list[list[float]]]] = []


def _capture(game: Game) -> bool:
    """At each round end: keep every seat's worth parts; never halt the game."""
    _captured.append((game.round, _rounds_left(game), worth_parts(game)))
    return False


def play(args: tuple[int, int]) -> list[tuple[int, float, list[list[float]], list[float]]]:
    """Game ``index``'s round ends: (round, rounds left, parts, share of the win per seat)."""
    seed, index = args
    _captured.clear()
    g = Game.new(PLAYERS, derive_seed(seed, "fit-game", index))
    g.keep_log = False
    g.on_round_end = _capture
    bots = [load_bot("greedy", derive_seed(seed, "fit-greedy", index, s))
            for s in range(PLAYERS)]
    play_game(g, bots)
    assert g.result is not None
    winners = g.result.winners
    share = [1.0 / len(winners) if s in winners else 0.0 for s in range(PLAYERS)]
    return [(r, left, parts, share) for r, left, parts in _captured]


def log_loss(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    u = x @ w
    u -= u.max(axis=1, keepdims=True)
    logp = u - np.log(np.exp(u).sum(axis=1, keepdims=True))
    return float(-(y * logp).sum(axis=1).mean())


def fit(x: np.ndarray, y: np.ndarray, ridge: float = 1e-3, steps: int = 30) -> np.ndarray:
    """Newton's method for the conditional logit (convex); ``ridge`` keeps it well posed."""
    m, _, f = x.shape
    w = np.zeros(f)
    for _ in range(steps):
        u = x @ w
        u -= u.max(axis=1, keepdims=True)
        p = np.exp(u)
        p /= p.sum(axis=1, keepdims=True)
        mean = np.einsum("ms,msf->mf", p, x)
        grad = np.einsum("ms,msf->f", y - p, x) / m - ridge * w
        second = np.einsum("ms,msf,msg->fg", p, x, x) - np.einsum("mf,mg->fg", mean, mean)
        hess = second / m + ridge * np.eye(f)
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-9:
            break
    return w


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--held-out", type=float, default=0.25,
                        help="share of the games kept out of the fit (default 0.25)")
    parser.add_argument("--data", help="an .npz file: read the round ends from it if it "
                        "exists, else write them to it")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.data and os.path.exists(args.data):
        saved = np.load(args.data)
        game, stage, x, y = saved["game"], saved["stage"], saved["x"], saved["y"]
        args.games = int(game.max()) + 1
    else:
        rows: list[tuple[int, int, float, list[list[float]], list[float]]] = []
        with multiprocessing.Pool(args.jobs) as pool:
            tasks = [(args.seed, i) for i in range(args.games)]
            for i, states in enumerate(pool.imap(play, tasks, chunksize=20)):
                rows.extend((i, r, left, parts, share) for r, left, parts, share in states)
                if (i + 1) % 500 == 0:
                    print(f"  {i + 1}/{args.games} games, {time.perf_counter() - start:.0f} s",
                          file=sys.stderr)
        game = np.array([row[0] for row in rows])
        stage = np.array([row[2] for row in rows])
        x = np.array([row[3] for row in rows], dtype=float)
        y = np.array([row[4] for row in rows], dtype=float)
        if args.data:
            np.savez(args.data, game=game, stage=stage, x=x, y=y)
    hand = x
    x = np.array([[fitted_features(parts, left) for parts in seats]
                  for seats, left in zip(x, stage, strict=True)])
    test = game >= args.games * (1 - args.held_out)
    w = fit(x[~test], y[~test])
    print(f"{len(x)} round ends from {args.games} games "
          f"({test.sum()} held out), {time.perf_counter() - start:.0f} s")
    print(f"{'rounds left':>12} {'states':>7} {'hand-made':>10} {'fitted':>8}")
    for lo, hi in [(0, 99), (0, 2), (2, 4), (4, 7), (7, 99)]:
        sel = test & (stage >= lo) & (stage < hi)
        if sel.any():
            print(f"{lo:>5}-{hi:<6} {sel.sum():>7} "
                  f"{log_loss(HAND_MADE, hand[sel], y[sel]):>10.4f} "
                  f"{log_loss(w, x[sel], y[sel]):>8.4f}")
    n = len(PARTS)
    print(f"{'weights':>13} {'x1':>8} {'x r/10':>8} {'/ r':>8}")
    for i, name in enumerate(PARTS):
        print(f"{name:>13} {w[i]:+8.4f} {w[n + i]:+8.4f} {w[2 * n + i]:+8.4f}")
    print("FITTED = (" + ", ".join(f"{v:.4f}" for v in w) + ")")
    print(json.dumps({"games": args.games, "seed": args.seed, "states": len(x),
                      "weights": [round(float(v), 4) for v in w],
                      "held_out_log_loss": {
                          "hand_made": round(log_loss(HAND_MADE, hand[test], y[test]), 4),
                          "fitted": round(log_loss(w, x[test], y[test]), 4),
                          "uniform": round(float(np.log(PLAYERS)), 4)}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
