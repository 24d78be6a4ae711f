"""Tournament benchmark: games per second with ``--jobs 2`` against ``--jobs 1``.

The same games (a greedy bot and three random ones, seats rotated, the same seed) are played
by ``mundus_net.tools.tournament.run_tournament`` with one worker and with two worker processes,
back to back in this run (alternately, ``--repeat`` times; the best time of each counts, the
least disturbed by other work on the machine). Both runs must give the same rows. The CPU
time of all processes is measured too: with 2 jobs it should be about that of 1 job, so the
wall-clock speedup is limited only by the free cores. Target: at
least 1.8x the games per second with two jobs on a 2-core machine. The load average before
and after is printed too: on a shared machine a busy core caps the figure.

    python benchmarks/tournament.py                       # 200 games, repeated twice
    python benchmarks/tournament.py --games 400 --repeat 3 --bots greedy,greedy,random,random

Progress goes to stderr; the last line of stdout is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from typing import Any

from mundus_net.compiled import describe
from mundus_net.tools.games import Settings, without_cpu
from mundus_net.tools.results import Row
from mundus_net.tools.tournament import run_tournament

TARGET = 1.8


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(settings: Settings, games: int, jobs: int) -> tuple[float, float, list[Row]]:
    """Wall seconds, CPU seconds (all processes) and the rows of one run."""
    cpu = _cpu()
    start = time.perf_counter()
    _, rows = run_tournament(settings, games, jobs=jobs)
    return time.perf_counter() - start, _cpu() - cpu, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--bots", default="greedy,random,random,random")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    print(f"build: {describe()}", flush=True)  # plain Python, or which modules compiled
    bots = tuple(args.bots.split(","))
    settings = Settings(bots, len(bots), seed=args.seed)
    load_before = os.getloadavg()
    best: dict[int, float] = {}
    cpu: dict[int, float] = {}
    reference: list[Row] | None = None
    for attempt in range(args.repeat):
        for jobs in (1, 2):
            seconds, used, rows = timed(settings, args.games, jobs)
            cpu[jobs] = min(cpu.get(jobs, used), used)
            if reference is None:
                reference = rows
            elif without_cpu(rows) != without_cpu(reference):  # CPU times are measured
                print(f"jobs {jobs} gave other results than jobs 1", file=sys.stderr)
                return 1
            best[jobs] = min(best.get(jobs, seconds), seconds)
            print(f"run {attempt + 1}, jobs {jobs}: {args.games / seconds:.1f} games/s "
                  f"({seconds:.2f} s)", file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    one, two = args.games / best[1], args.games / best[2]
    speedup = two / one
    figures: dict[str, Any] = {
        "games": args.games, "bots": ",".join(bots), "repeat": args.repeat,
        "cpus": os.cpu_count(),
        "jobs1_games_per_s": round(one, 2), "jobs2_games_per_s": round(two, 2),
        "speedup": round(speedup, 3), "target": TARGET, "target_met": speedup >= TARGET,
        # CPU seconds of the whole work with 2 jobs / with 1: the cost of the parallelism
        # itself (workers, pickling), which the machine's load does not change much.
        "jobs1_cpu_s": round(cpu[1], 3), "jobs2_cpu_s": round(cpu[2], 3),
        "cpu_ratio": round(cpu[2] / cpu[1], 3),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
    }
    print(f"jobs 1: {one:.1f} games/s, jobs 2: {two:.1f} games/s, speedup {speedup:.2f}x "
          f"(target {TARGET}x); load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
