"""What the search bot loses for not seeing the hidden cards: its regret against an oracle.

Plays ``--games`` 4-player games of greedy bots and keeps every ``--every``-th decision of
phase ``--phase`` with two candidates or more (the search bot's own candidates). An *oracle*
values each candidate on the live game itself, the real hidden hands included: it plays the
candidate and then greedy rollouts to the round's end, scored as the search scores them (the
fitted evaluation), averaged over ``--shuffles`` shuffles of both draw piles (the future,
which nobody sees). Each bot of ``--bots`` (``search`` with options, as
``benchmarks/strength.py`` takes them) decides each position ``--repeats`` times with other
seeds from its own view; its *regret* is the oracle's value of the best candidate minus that
of its choice, in shares of the win, averaged over positions and repeats (greedy's regret is
that of greedy's choice). Then each other bot's regret minus the first's, paired by position
and seed, with a 95% interval.

    python benchmarks/oracle_regret.py --bots search,search:infer=true --phase take
    python benchmarks/oracle_regret.py --bots search,search:offers=all --phase offer --wide

With ``--wide`` the oracle values every legal decision, not only the search's candidates:
the regrets are then against its best of them all (a bot may choose outside the default
candidates, ``search:offers=all``), and it prints how often its best is not a candidate and
what that best gains over its best candidate, valued on ``--shuffles`` other orders of the
piles (chosen on some shuffles and valued on others, so the gain is not a winner's curse).

The oracle shares the search's rollouts and evaluation, so the regret measures what the
hidden cards and the noise of a few determinizations cost the search, by its own model;
much less noisy than a win rate, it says where a change of the search's sampling can gain.
Deterministic for a seed; the last line of stdout is JSON.
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
from mundus_net.bots.search import SEARCH_PHASES, SearchBot, look_ahead
from mundus_net.engine.decisions import Decision
from mundus_net.engine.game import Game
from mundus_net.engine.seeds import derive_seed
from mundus_net.engine.view import PlayerView

Position = tuple[Game, int, list[Decision], Decision]  # live game, seat, candidates, greedy's


def positions(games: int, every: int, phase: str, seed: int) -> list[Position]:
    """Every ``every``-th decision of ``phase`` with two candidates or more in ``games``
    greedy games: (a copy of the live game, the seat, its candidates, greedy's choice)."""
    out: list[Position] = []
    probe = SearchBot(0)
    for i in range(games):
        game = Game.new(4, derive_seed(seed, "oracle-game", i))
        bots = [GreedyBot(derive_seed(seed, "oracle-greedy", i, s)) for s in range(4)]
        seen = 0
        while not game.is_over:
            seat = game.waiting_seats()[0]
            legal = game.legal(seat)
            view = PlayerView(game, seat)
            if game.phase == phase and len(legal) > 1:
                choice = probe.greedy.decide(view, legal)
                cands = probe.candidates_for(phase, legal, choice)
                if len(cands) > 1:
                    seen += 1
                    if seen % every == 0:
                        out.append((game.copy(), seat, cands, choice))
            game.apply(seat, bots[seat].decide(view, legal))
    return out


def oracle(game: Game, seat: int, cands: Sequence[Decision], shuffles: int,
           first: int = 0) -> list[float]:
    """Each candidate's value on the live game: greedy rollouts to the round's end after it,
    averaged over ``shuffles`` orders of the draw piles (the same orders for every
    candidate; ``first``: the first order's number)."""
    judge = SearchBot(0)
    values = []
    for d in cands:
        total = 0.0
        for k in range(first, first + shuffles):
            g = look_ahead(game.copy(), game.round)
            rng = random.Random(k)
            rng.shuffle(g.draw)
            rng.shuffle(g.devpile)
            g.apply(seat, d)
            total += judge.rollout(g, seat, 1000 + k)
        values.append(total / shuffles)
    return values


def _stderr(values: Sequence[float]) -> float:
    return statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="search", help="comma-separated search bot specs")
    parser.add_argument("--phase", default="take", choices=SEARCH_PHASES)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--every", type=int, default=2, help="keep every N-th position")
    parser.add_argument("--shuffles", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--wide", action="store_true",
                        help="the oracle values every legal decision, not only the search's "
                             "candidates, and the regrets are against its best of them all")
    args = parser.parse_args(argv)
    started = time.process_time()
    specs = args.bots.split(",")
    found = positions(args.games, args.every, args.phase, args.seed)
    regrets: dict[str, list[float]] = {spec: [] for spec in specs}
    greedy: list[float] = []
    outside: list[float] = []  # --wide: what the oracle's best gains over its best candidate
    for index, (game, seat, cands, choice) in enumerate(found):
        if args.wide:
            narrow = len(cands)
            cands = [*cands, *(d for d in game.legal(seat) if d not in cands)]
            values = oracle(game, seat, cands, args.shuffles)
            # Chosen on these shuffles, valued on others: no winner's curse in the gain.
            fresh = oracle(game, seat, cands, args.shuffles, first=args.shuffles)
            top = max(range(len(cands)), key=values.__getitem__)
            top_in = max(range(narrow), key=values.__getitem__)
            outside.append(fresh[top] - fresh[top_in])
        else:
            values = oracle(game, seat, cands, args.shuffles)
        best = max(values)
        greedy.append(best - values[cands.index(choice)])
        view = PlayerView(game, seat)
        legal = game.legal(seat)
        for spec in specs:
            for r in range(args.repeats):
                bot = load_bot(spec, derive_seed(args.seed, "oracle-bot", index, r))
                picked = bot.decide(view, legal)
                # a choice outside the candidates (none by construction) counts as the worst
                value = values[cands.index(picked)] if picked in cands else min(values)
                regrets[spec].append(best - value)
    print(f"{len(found)} {args.phase} positions, {len(found) * args.repeats} decisions "
          f"per bot, {time.process_time() - started:.0f} s of CPU")
    if not found:
        raise SystemExit(f"no {args.phase} position with two candidates: play more --games")
    print(f"greedy: regret {statistics.fmean(greedy):.4f}")
    if outside:
        err = _stderr(outside)
        print(f"every legal decision: the oracle's best is not a candidate in "
              f"{sum(1 for o in outside if o != 0.0)} of {len(outside)} positions; it gains "
              f"{statistics.fmean(outside):+.4f} over its best candidate on other shuffles "
              f"(standard error {err:.4f})")
    rows = []
    for spec in specs:
        lost = regrets[spec]
        err = _stderr(lost)
        print(f"{spec}: regret {statistics.fmean(lost):.4f} (standard error {err:.4f})")
        rows.append({"bot": spec, "regret": round(statistics.fmean(lost), 5),
                     "stderr": round(err, 5)})
    first = regrets[specs[0]]
    for spec in specs[1:]:
        diffs = [b - a for a, b in zip(first, regrets[spec], strict=True)]
        mean = statistics.fmean(diffs)
        half = 1.96 * _stderr(diffs)
        print(f"{spec} - {specs[0]}: {mean:+.4f} (95% CI {mean - half:+.4f} to "
              f"{mean + half:+.4f})")
    report: dict[str, object] = {"phase": args.phase, "positions": len(found),
                                 "seed": args.seed, "greedy": round(statistics.fmean(greedy), 5),
                                 "bots": rows}
    if outside:
        report["wide"] = {"outside": sum(1 for o in outside if o != 0.0),
                          "gain": round(statistics.fmean(outside), 5)}
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
