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

With ``--hidden H`` it also fits the ``net`` evaluation: the same conditional logit plus H
hidden tanh units of each seat's ``net_inputs`` (its worth parts, the rounds left, its lead
over the best other seat, its seat after the TM, ...), by Adam on the same log-likelihood
from the linear fit (seeded by ``--seed``), prints its held-out log-loss too and writes its
weights to ``--net-out`` (search.py reads them from mundus_net/bots/data/evaluation.json).

    python benchmarks/fit_evaluation.py --games 12000 --seed 32 --jobs 2   # FITTED's source
    python benchmarks/fit_evaluation.py --games 12000 --seed 41 --jobs 2 --hidden 8 \
        --net-out mundus_net/bots/data/evaluation.json                     # the net's source
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
from mundus_net.bots.search import (
    NET_INPUTS,
    PARTS,
    _rounds_left,
    fitted_features,
    net_inputs,
    worth_parts,
)
from mundus_net.engine.game import Game
from mundus_net.engine.seeds import derive_seed
from mundus_net.tools.runner import play_game

PLAYERS = 4
HAND_MADE = np.array([1, .7, .7, .7, .7, .7, .7, .7, 1, 0]) / 8.0  # worths(g, 0.7) / 8

Ends = list[tuple[int, float, list[list[float]], list[list[float]], list[float],
                  list[float]]]
_captured: list[tuple[int, float, list[list[float]], list[list[float]]]] = []


def _capture(game: Game) -> bool:
    """At each round end: keep every seat's worth parts and net inputs; never halt."""
    left = _rounds_left(game)
    parts = worth_parts(game, left)
    _captured.append((game.round, left, parts, net_inputs(game, left, parts)))
    return False


def seat_specs(bots: tuple[str, ...], index: int) -> list[str]:
    """The bot of each seat in game ``index``: ``bots`` rotated one seat a game (its first
    bot sits at seat ``index % 4``)."""
    return [bots[(s - index) % PLAYERS] for s in range(PLAYERS)]


def is_searcher(spec: str) -> bool:
    return spec.split(":")[0] == "search"


def play(args: tuple[int, int, tuple[str, ...]]) -> Ends:
    """Game ``index``'s round ends: (round, rounds left, parts, net inputs, share of the win
    per seat, searcher flag per seat)."""
    seed, index, specs = args
    _captured.clear()
    g = Game.new(PLAYERS, derive_seed(seed, "fit-game", index))
    g.keep_log = False
    g.on_round_end = _capture
    seats = seat_specs(specs, index)
    bots = [load_bot(spec, derive_seed(seed, "fit-greedy", index, s))
            for s, spec in enumerate(seats)]
    play_game(g, bots)
    assert g.result is not None
    winners = g.result.winners
    share = [1.0 / len(winners) if s in winners else 0.0 for s in range(PLAYERS)]
    flags = [1.0 if is_searcher(spec) else 0.0 for spec in seats]
    return [(r, left, parts, inputs, share, flags) for r, left, parts, inputs in _captured]


def log_loss(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    return _loss_of_logits(x @ w, y)


def _loss_of_logits(u: np.ndarray, y: np.ndarray) -> float:
    """The mean log-loss of the softmax over seats of logits ``u`` (m, seats)."""
    u = u - u.max(axis=1, keepdims=True)
    logp = u - np.log(np.exp(u).sum(axis=1, keepdims=True))
    return float(-(y * logp).sum(axis=1).mean())


def fit(x: np.ndarray, y: np.ndarray, ridge: float = 1e-3, steps: int = 30) -> np.ndarray:
    """Newton's method for the conditional logit (convex); ``ridge`` keeps it well posed."""
    return fit_offset(np.zeros(x.shape[:2]), x, y, ridge, steps)


def _net_logits(net: dict[str, np.ndarray], x: np.ndarray, v: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """The net's hidden units (m, seats, H) and logits (m, seats); ``v`` standardized."""
    h = np.tanh(v @ net["hidden"] + net["bias"])
    return h, h @ net["out"] + x @ net["linear"]


def net_log_loss(net: dict[str, np.ndarray], x: np.ndarray, v: np.ndarray,
                 y: np.ndarray) -> float:
    return _loss_of_logits(_net_logits(net, x, v)[1], y)


def fit_net(x: np.ndarray, v: np.ndarray, y: np.ndarray, linear: np.ndarray, hidden: int,
            seed: int, epochs: int = 20, batch: int = 512, rate: float = 3e-3,
            decay: float = 1e-4) -> dict[str, np.ndarray]:
    """The ``net`` evaluation by Adam on the log-likelihood, from the linear fit ``linear``
    and small random hidden weights; ``v`` standardized; the rate / 3 after 70% of the
    epochs; ``decay``: L2 on the hidden weights."""
    rng = np.random.default_rng(seed)
    k = v.shape[2]
    net = {"hidden": rng.normal(0.0, 0.3 / np.sqrt(k), (k, hidden)),
           "bias": np.zeros(hidden), "out": np.zeros(hidden), "linear": linear.copy()}
    first = {name: np.zeros_like(p) for name, p in net.items()}
    second = {name: np.zeros_like(p) for name, p in net.items()}
    order = np.arange(len(x))
    step = 0
    for epoch in range(epochs):
        if epoch == int(epochs * 0.7) + 1:
            rate /= 3
        rng.shuffle(order)
        for a in range(0, len(order), batch):
            idx = order[a:a + batch]
            h, u = _net_logits(net, x[idx], v[idx])
            u -= u.max(axis=1, keepdims=True)
            p = np.exp(u)
            p /= p.sum(axis=1, keepdims=True)
            g = (p - y[idx]) / len(idx)  # d loss / d logit
            gh = g[:, :, None] * net["out"] * (1 - h * h)
            grads = {"hidden": np.einsum("msk,msh->kh", v[idx], gh) + decay * net["hidden"],
                     "bias": gh.sum(axis=(0, 1)), "out": np.einsum("ms,msh->h", g, h),
                     "linear": np.einsum("ms,msf->f", g, x[idx])}
            step += 1
            for name, p_ in net.items():
                first[name] = 0.9 * first[name] + 0.1 * grads[name]
                second[name] = 0.999 * second[name] + 0.001 * grads[name] ** 2
                p_ -= rate * (first[name] / (1 - 0.9 ** step)) / (
                    np.sqrt(second[name] / (1 - 0.999 ** step)) + 1e-8)
        print(f"  net epoch {epoch + 1}/{epochs}", file=sys.stderr, flush=True)
    return net


def load_ends(path: str) -> tuple[np.ndarray, ...]:
    """The round ends saved by ``--data``: game, rounds left, worth parts, net inputs, share
    of the win and searcher flags (all 0 in files from before the flags)."""
    saved = np.load(path)
    y = saved["y"]
    flags = saved["searcher"] if "searcher" in saved else np.zeros_like(y)
    return saved["game"], saved["stage"], saved["x"], saved["v"], y, flags


def searcher_features(x: np.ndarray, stage: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """The fitted features plus the searcher flag, times 1, the rounds left / 10 and 1 /
    the rounds left (the ``seat`` evaluation's linear part)."""
    r = stage[:, None]
    extra = np.stack([flags, flags * r / 10.0, flags / np.maximum(r, 1.0)], axis=2)
    return np.concatenate([x, extra], axis=2)


def shipped_logits(path: str, x: np.ndarray, raw: np.ndarray) -> np.ndarray:
    """The logits of a ``net`` weights file (evaluation.json) for fitted features ``x`` and
    net inputs ``raw`` (not standardized)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    net = {"hidden": np.array(data["hidden"]).T, "bias": np.array(data["bias"]),
           "out": np.array(data["out"]), "linear": np.array(data["linear"])}
    v = (raw - np.array(data["mean"])) / np.array(data["scale"])
    return _net_logits(net, x, v)[1]


def fit_offset(base: np.ndarray, x: np.ndarray, y: np.ndarray, ridge: float = 1e-6,
               steps: int = 30) -> np.ndarray:
    """The weights of features ``x`` added to fixed logits ``base`` (m, seats), by Newton's
    method (the conditional logit with an offset)."""
    m, _, f = x.shape
    w = np.zeros(f)
    for _ in range(steps):
        u = base + x @ w
        u -= u.max(axis=1, keepdims=True)
        p = np.exp(u)
        p /= p.sum(axis=1, keepdims=True)
        mean = np.einsum("ms,msf->mf", p, x)
        grad = np.einsum("ms,msf->f", y - p, x) / m - ridge * w
        second = np.einsum("ms,msf,msg->fg", p, x, x) - np.einsum("mf,mg->fg", mean, mean)
        step = np.linalg.solve(second / m + ridge * np.eye(f), grad)
        w += step
        if np.abs(step).max() < 1e-9:
            break
    return w


def _row_losses(u: np.ndarray, y: np.ndarray, flags: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per position: the log-loss over seats of logits ``u``, the searcher's own (the binary
    log-loss of its share: its win counted 1, a shared win 1/k) and its predicted share."""
    u = u - u.max(axis=1, keepdims=True)
    logp = u - np.log(np.exp(u).sum(axis=1, keepdims=True))
    p = np.clip((np.exp(logp) * flags).sum(axis=1), 1e-9, 1 - 1e-9)
    mine = (y * flags).sum(axis=1)
    own = -(mine * np.log(p) + (1 - mine) * np.log(1 - p))
    return -(y * logp).sum(axis=1), own, p


def _losses(u: np.ndarray, y: np.ndarray, flags: np.ndarray) -> tuple[float, float]:
    """The mean log-losses of :func:`_row_losses`."""
    every, own, _ = _row_losses(u, y, flags)
    return float(every.mean()), float(own.mean())


def _fit_net(x: np.ndarray, v: np.ndarray, y: np.ndarray, train: np.ndarray,
             args: argparse.Namespace) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """The linear fit then the net on the ``train`` rows; the net, and the inputs' mean and
    scale."""
    w = fit(x[train], y[train])
    flat = v[train].reshape(-1, v.shape[2])
    mean, scale = flat.mean(axis=0), flat.std(axis=0) + 1e-6
    net = fit_net(x[train], (v[train] - mean) / scale, y[train], w, args.hidden, args.seed,
                  args.epochs)
    return net, mean, scale


def _searcher_fits(args: argparse.Namespace, game: np.ndarray, stage: np.ndarray,
                   hand: np.ndarray,
                   x: np.ndarray, v: np.ndarray, y: np.ndarray, flags: np.ndarray,
                   test: np.ndarray, start: float) -> int:
    """Round ends of games with a search bot: the held-out log-loss (all seats, and the
    searcher's own share) of the shipped net, the net refitted without the searcher flag,
    and with it (``--net-out``: that one's weights, the ``seat`` evaluation's)."""
    hidden = args.hidden or 8
    args.hidden = hidden
    train = ~test
    table: dict[str, tuple[float, float]] = {}
    at = test & (flags.sum(axis=1) > 0)
    table["hand_made"] = _losses(hand[at] @ HAND_MADE, y[at], flags[at])
    shipped = os.path.join(os.path.dirname(__file__), os.pardir, "mundus_net", "bots", "data",
                           "evaluation.json")
    base = shipped_logits(shipped, x, v)
    table["shipped_net"] = _losses(base[at], y[at], flags[at])
    xs = searcher_features(x, stage, flags)
    offset = fit_offset(base[train], xs[train, :, -3:], y[train])
    table["shipped_flag"] = _losses(base[at] + xs[at, :, -3:] @ offset, y[at], flags[at])
    plain, mean, scale = _fit_net(x, v, y, train, args)
    table["refit_net"] = _losses(_net_logits(plain, x[at], (v[at] - mean) / scale)[1], y[at],
                                 flags[at])
    vs = np.concatenate([v, flags[:, :, None]], axis=2)
    seat, mean, scale = _fit_net(xs, vs, y, train, args)
    seat_logits = _net_logits(seat, xs[at], (vs[at] - mean) / scale)[1]
    table["seat_net"] = _losses(seat_logits, y[at], flags[at])
    table["uniform"] = (round(float(np.log(PLAYERS)), 4), _losses(
        np.zeros_like(y[at]), y[at], flags[at])[1])
    print(f"{len(x)} round ends ({at.sum()} held out, of games with a search bot), "
          f"{time.perf_counter() - start:.0f} s")
    print(f"{'evaluation':>12} {'log-loss':>9} {'searcher':>9}")
    for name, (every, own) in table.items():
        print(f"{name:>12} {every:>9.4f} {own:>9.4f}")
    before, _, p_before = _row_losses(base[at], y[at], flags[at])
    after, _, p_after = _row_losses(seat_logits, y[at], flags[at])
    games = game[at]
    by_game = np.array([(after - before)[games == k].mean() for k in np.unique(games)])
    print(f"seat_net - shipped_net, by game: {by_game.mean():+.4f} (95% +-"
          f"{1.96 * by_game.std(ddof=1) / np.sqrt(len(by_game)):.4f}, {len(by_game)} games);"
          f" the searcher's share predicted {p_before.mean():.3f} (shipped_net), "
          f"{p_after.mean():.3f} (seat_net), won {(y[at] * flags[at]).sum(axis=1).mean():.3f}")
    losses = {name: [round(a, 4) for a in pair] for name, pair in table.items()}
    if args.seat_model == "offset":
        # The shipped net as it is, the searcher flag in its linear part only.
        with open(shipped, encoding="utf-8") as f:
            data = json.load(f)
        seat = {"linear": np.array(data["linear"] + list(offset)),
                "hidden": np.array([[*c, 0.0] for c in data["hidden"]]).T,
                "bias": np.array(data["bias"]), "out": np.array(data["out"])}
        mean, scale = np.array([*data["mean"], 0.0]), np.array([*data["scale"], 1.0])
    if args.net_out:
        k = len(PARTS)
        with open(args.net_out, "w", encoding="utf-8") as out:
            json.dump({"format": "mundus-net search evaluation",
                       "source": f"python benchmarks/fit_evaluation.py --games {args.games} "
                                 f"--seed {args.seed} --bots {args.bots} --hidden {hidden}"
                                 f" --epochs {args.epochs} --seat-model {args.seat_model}"
                                 + (f" --pool {os.path.basename(args.pool)}" if args.pool
                                    else ""),
                       "held_out_log_loss": {name: pair[0] for name, pair in losses.items()},
                       "held_out_searcher_log_loss": {name: pair[1]
                                                      for name, pair in losses.items()},
                       "inputs": [*NET_INPUTS, "searcher"],
                       "linear": _rounded(seat["linear"][:3 * k]),
                       "searcher": _rounded(seat["linear"][3 * k:]),
                       "mean": _rounded(mean), "scale": _rounded(scale),
                       "hidden": [_rounded(c) for c in seat["hidden"].T],
                       "bias": _rounded(seat["bias"]), "out": _rounded(seat["out"])},
                      out, indent=1)
            out.write("\n")
    print(json.dumps({"games": args.games, "seed": args.seed, "bots": args.bots,
                      "states": len(x), "held_out_log_loss": losses}))
    return 0


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(a), 5) for a in values]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--held-out", type=float, default=0.25,
                        help="share of the games kept out of the fit (default 0.25)")
    parser.add_argument("--data", help="an .npz file: read the round ends from it if it "
                        "exists, else write them to it")
    parser.add_argument("--hidden", type=int, default=0,
                        help="hidden units of the net evaluation to fit too (0: none)")
    parser.add_argument("--epochs", type=int, default=20, help="of the net's fit")
    parser.add_argument("--net-out", help="write the net's weights to this JSON file")
    parser.add_argument("--pool", help="an .npz file of round ends (--data) added to the "
                        "fit, never to the games held out (e.g. greedy games' with search "
                        "games')")
    parser.add_argument("--seat-model", choices=("net", "offset"), default="net",
                        help="with a search bot's games, the weights --net-out writes: the "
                        "net refitted with the searcher flag (net), or the shipped net with "
                        "the flag's linear weights only (offset)")
    parser.add_argument("--bots", default="greedy,greedy,greedy,greedy",
                        help="the 4 bots of the games played, comma-separated, rotated one "
                        "seat a game (default: four greedy bots); a search bot's seat is "
                        "flagged as the searcher's in the data")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.data and os.path.exists(args.data):
        game, stage, x, v, y, searcher = load_ends(args.data)
        args.games = int(game.max()) + 1
    else:
        specs = tuple(args.bots.split(","))
        if len(specs) != PLAYERS:
            parser.error(f"--bots names {PLAYERS} bots, not {len(specs)}")
        rows: list[tuple[int, int, float, list[list[float]], list[list[float]],
                         list[float], list[float]]] = []
        with multiprocessing.Pool(args.jobs) as pool:
            tasks = [(args.seed, i, specs) for i in range(args.games)]
            every = 100 if any(map(is_searcher, specs)) else 500
            for i, states in enumerate(pool.imap(play, tasks, chunksize=20)):
                rows.extend((i, *state) for state in states)
                if (i + 1) % every == 0:
                    print(f"  {i + 1}/{args.games} games, {time.perf_counter() - start:.0f} s",
                          file=sys.stderr)
        game = np.array([row[0] for row in rows])
        stage = np.array([row[2] for row in rows])
        x = np.array([row[3] for row in rows], dtype=float)
        v = np.array([row[4] for row in rows], dtype=float)
        y = np.array([row[5] for row in rows], dtype=float)
        searcher = np.array([row[6] for row in rows], dtype=float)
        if args.data:
            np.savez(args.data, game=game, stage=stage, x=x, v=v, y=y, searcher=searcher)
    test = game >= args.games * (1 - args.held_out)
    if args.pool:
        more = load_ends(args.pool)
        game, stage, x, v, y, searcher = (np.concatenate([a, b]) for a, b in zip(
            (game, stage, x, v, y, searcher), more, strict=True))
        test = np.concatenate([test, np.zeros(len(more[0]), dtype=bool)])
    hand = x
    x = np.array([[fitted_features(parts, left) for parts in seats]
                  for seats, left in zip(x, stage, strict=True)])
    if searcher.any():
        return _searcher_fits(args, game, stage, hand, x, v, y, searcher, test, start)
    w = fit(x[~test], y[~test])
    net = None
    if args.hidden > 0:
        flat = v[~test].reshape(-1, v.shape[2])
        mean, scale = flat.mean(axis=0), flat.std(axis=0) + 1e-6
        v = (v - mean) / scale
        net = fit_net(x[~test], v[~test], y[~test], w, args.hidden, args.seed, args.epochs)
    print(f"{len(x)} round ends from {args.games} games "
          f"({test.sum()} held out), {time.perf_counter() - start:.0f} s")
    print(f"{'rounds left':>12} {'states':>7} {'hand-made':>10} {'fitted':>8}"
          + (f" {'net':>8}" if net else ""))
    for lo, hi in [(0, 99), (0, 2), (2, 4), (4, 7), (7, 99)]:
        sel = test & (stage >= lo) & (stage < hi)
        if sel.any():
            print(f"{lo:>5}-{hi:<6} {sel.sum():>7} "
                  f"{log_loss(HAND_MADE, hand[sel], y[sel]):>10.4f} "
                  f"{log_loss(w, x[sel], y[sel]):>8.4f}"
                  + (f" {net_log_loss(net, x[sel], v[sel], y[sel]):>8.4f}" if net else ""))
    n = len(PARTS)
    print(f"{'weights':>13} {'x1':>8} {'x r/10':>8} {'/ r':>8}")
    for i, name in enumerate(PARTS):
        print(f"{name:>13} {w[i]:+8.4f} {w[n + i]:+8.4f} {w[2 * n + i]:+8.4f}")
    print("FITTED = (" + ", ".join(f"{v:.4f}" for v in w) + ")")
    losses = {"hand_made": round(log_loss(HAND_MADE, hand[test], y[test]), 4),
              "fitted": round(log_loss(w, x[test], y[test]), 4),
              "uniform": round(float(np.log(PLAYERS)), 4)}
    if net is not None:
        losses["net"] = round(net_log_loss(net, x[test], v[test], y[test]), 4)
        if args.net_out:
            with open(args.net_out, "w", encoding="utf-8") as out:
                json.dump({"format": "mundus-net search evaluation",
                           "source": f"python benchmarks/fit_evaluation.py --games "
                                     f"{args.games} --seed {args.seed} --hidden {args.hidden}"
                                     f" --epochs {args.epochs}",
                           "held_out_log_loss": losses, "inputs": list(NET_INPUTS),
                           "linear": _rounded(net["linear"]), "mean": _rounded(mean),
                           "scale": _rounded(scale),
                           "hidden": [_rounded(c) for c in net["hidden"].T],
                           "bias": _rounded(net["bias"]), "out": _rounded(net["out"])},
                          out, indent=1)
                out.write("\n")
    print(json.dumps({"games": args.games, "seed": args.seed, "states": len(x),
                      "weights": [round(float(a), 4) for a in w],
                      "held_out_log_loss": losses}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
