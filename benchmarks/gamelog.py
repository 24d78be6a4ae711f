"""The game log's cost per decision, socket-free: a table of host bots played to its end, the
way `mundus host` runs it (the log on, durable: its default), beside the same table with
`--fast-log`, without a log, and the durable floor (no log, plus one fsync'd write of a few
bytes per decision: the least a log that keeps every answer through a power cut can cost).

The games alternate between the variants, so a change of load falls on all of them alike;
compare the ratios of one run. The last line is JSON.

    python benchmarks/gamelog.py --games 6
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mundus_net.bots import load_bot
from mundus_net.host.gamelog import BotSpec, GameLog
from mundus_net.host.table import Table, TableSettings

PLAYERS = 4
VARIANTS = ("durable log", "fast log", "no log", "durable floor")


def _table(seed: int) -> Table:
    bots = [load_bot("greedy", seed + k) for k in range(PLAYERS)]
    return Table(PLAYERS, TableSettings(game_id=f"bench{seed:011x}"), seed=seed, bots=bots,
                 clock=lambda: 0.0)


def play(variant: str, seed: int, folder: Path) -> tuple[int, float]:
    """One game of host bots to its end: (decisions, seconds)."""
    table = _table(seed)
    log: GameLog | None = None
    sync: Callable[[], None] = lambda: None  # noqa: E731
    floor_fd: int | None = None
    if variant in ("durable log", "fast log"):
        specs = [BotSpec("greedy", seed + k) for k in range(PLAYERS)]
        log = GameLog.create(folder, table, bots=specs, durable=variant == "durable log")
    elif variant == "durable floor":
        floor_fd = os.open(folder / f"floor-{seed}", os.O_WRONLY | os.O_CREAT, 0o600)
        fd = floor_fd

        def sync() -> None:
            os.pwrite(fd, b"0123456789abcdef", 0)
            os.fsync(fd)
    start = time.perf_counter()
    decided = 0
    table.begin()
    while not table.over:
        table.advance(budget=1)
        table.drain()
        now = len(table.record.decisions)
        for _ in range(now - decided):
            sync()
        decided = now
    seconds = time.perf_counter() - start
    if log is not None:
        log.close()
    if floor_fd is not None:
        os.close(floor_fd)
    return decided, seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=6, help="games per variant (default 6)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--dir", type=Path, default=None,
                        help="where the logs go (default: a temporary folder; the disk matters)")
    args = parser.parse_args(argv)
    totals = {v: [0, 0.0] for v in VARIANTS}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for game in range(args.games):
            for variant in VARIANTS:  # interleaved: the load falls on all alike
                folder = Path(tmp) / variant.replace(" ", "-") / str(game)
                folder.mkdir(parents=True)
                decisions, seconds = play(variant, args.seed + game, folder)
                totals[variant][0] += int(decisions)
                totals[variant][1] += seconds
            print(f"game {game + 1}/{args.games}", file=sys.stderr, flush=True)
    per = {v: 1e6 * s / max(1, int(n)) for v, (n, s) in totals.items()}
    print(f"{'variant':<14} {'decisions':>9} {'us/decision':>12} {'vs no log':>10}")
    for v in VARIANTS:
        print(f"{v:<14} {int(totals[v][0]):>9} {per[v]:>12.1f} "
              f"{per[v] / per['no log']:>9.2f}x")
    ratio = per["durable log"] / per["durable floor"]
    print(f"durable log against the durable floor: {ratio:.2f}x (goal: within 1.5x)")
    print(json.dumps({"us_per_decision": {v: round(per[v], 1) for v in VARIANTS},
                      "durable_vs_floor": round(ratio, 3),
                      "durable_vs_no_log": round(per["durable log"] / per["no log"], 3),
                      "fast_vs_no_log": round(per["fast log"] / per["no log"], 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
