"""``mundus tournament``: many games between bots in a balanced design, in parallel; a results
table with confidence intervals, a head-to-head matrix and openskill ratings.

Game ``i`` is fixed by ``--seed`` and ``i`` alone: its game seed and its bots' seeds derive from
them (as in ``mundus sim``), and so does its seating (a balanced design in which every pair of
bots meets and every seat order comes equally often, :func:`seating`): the results do not
depend on ``--jobs``, on the chunks the games are cut into, or on where they run (worker
processes, a Dask cluster, real ``mundus host`` and ``mundus bot`` processes with
``--network``). Results are aggregated in game order.
Bots that fail are charged the default decision (mundus_net.tools.referee). docs/tournament.md
describes the command and its output.
"""

from __future__ import annotations

import argparse
import csv
import functools
import itertools
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mundus_net.bots.base import load_bot, split_options
from mundus_net.cli_args import positive_int, seconds
from mundus_net.engine.deck import Deck
from mundus_net.engine.game import Game
from mundus_net.engine.seeds import bot_seed, game_seed
from mundus_net.protocol.statedir import atomic_write
from mundus_net.tools.progress import Progress, ProgressReport
from mundus_net.tools.referee import FAULT_KINDS, fault_counts, make_bot, play_refereed, record_of
from mundus_net.tools.results import (
    Row,
    bot_list,
    check_spec,
    player_count,
    r6,
    speed_line,
    table_lines,
    tally,
    wilson,
)

DEFAULT_TIME_LIMIT = 10.0  # seconds per decision, as the host's default for network bots


class TournamentError(RuntimeError):
    """A game could not be played (not a bot's fault: those are charged and recorded)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything that fixes the games of a tournament (picklable: sent to the workers)."""

    bots: tuple[str, ...]
    players: int
    seed: int = 0
    round_limit: int | None = None
    promo: bool = False
    time_limit: float | None = DEFAULT_TIME_LIMIT
    records: str | None = None  # directory for each game's GameRecord JSON
    rotate: bool = True  # seats rotate from game to game (see seating()); else bot j at seat j
    strict: bool = False  # a failing bot raises instead of being charged (mundus sim)
    deck: Deck | None = None  # None: the default deck
    label: str = "tournament"  # names the games' ids and the records' meta key

    def check(self) -> None:
        """Raise ValueError with a clear message for settings that cannot be played."""
        if not 2 <= self.players <= 6:
            raise ValueError(f"a game has 2 to 6 players, not {self.players}")
        if len(self.bots) < self.players:
            raise ValueError(f"{self.players} players need at least {self.players} bots, but "
                             f"{len(self.bots)} were given ({','.join(self.bots) or 'none'})")
        for spec in self.bots:
            check_spec(spec)
        if self.round_limit is not None and self.round_limit < 1:
            raise ValueError(f"the round limit must be at least 1, not {self.round_limit}")
        if self.time_limit is not None and not self.time_limit > 0:
            raise ValueError(f"the time limit must be positive, not {self.time_limit}")


def seating(index: int, bots: int, players: int, rotate: bool = True,
            seed: int = 0) -> tuple[int, ...]:
    """The bot (index into the bot list) at each seat of game ``index``: a balanced design.

    Every line-up (every set of ``players`` bots out of ``bots``) comes once in each block of
    C games (C = bots choose players), so every pair of bots meets equally often; across
    ``players`` blocks each line-up sits in every rotation, so every bot of it takes every
    seat once; and across the (players - 1)! cyclic orders of a line-up, every relative order
    comes equally often. The orders of line-ups and of cyclic orders are shuffled by ``seed``
    (fixed by it: the same for every ``--jobs`` or worker). Without ``rotate``, seat ``s``
    holds bot ``s`` in every game."""
    if not rotate:
        return tuple(range(players))
    lineups, cycles = _design(bots, players, seed)
    block, which = divmod(index, len(lineups))
    lineup = lineups[which]
    cycle = cycles[(block // players) % len(cycles)]
    turn = block % players
    order = [lineup[c] for c in cycle]  # the line-up in this cyclic order, then rotated
    return tuple(order[turn:] + order[:turn])


@functools.lru_cache(maxsize=64)
def _design(bots: int, players: int, seed: int
            ) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """(line-ups, cyclic orders) of the design, in the order ``seed`` gives them."""
    rng = random.Random(f"mundus-net/seating/{seed}/{bots}/{players}")
    lineups = list(itertools.combinations(range(bots), players))
    rng.shuffle(lineups)
    # The cyclic orders of positions 0..players-1: position 0 first, the rest permuted.
    cycles = [(0, *rest) for rest in itertools.permutations(range(1, players))]
    rng.shuffle(cycles)
    return tuple(lineups), tuple(cycles)


def design_games(bots: int, players: int) -> int:
    """Games of one whole cycle of the design: every line-up in every rotation and every
    cyclic order (a multiple of it gives every pair and every seat order equal weight)."""
    return math.comb(bots, players) * players * math.factorial(players - 1)


def record_path(directory: str | Path, index: int) -> Path:
    return Path(directory) / f"game-{index:06d}.json"


def game_id(seed: int, index: int, label: str = "tournament") -> str:
    return f"{label}-{seed}-{index}"


def seat_names(settings: Settings, seats: Sequence[int]) -> list[str]:
    """Each seat's player name: the strategy (its class name for ``module:Class``) and the
    entry's index, at most 32 characters (the protocol's limit)."""
    return [f"{split_options(settings.bots[j])[0].rpartition(':')[2][:24]} #{j}"
            for j in seats]


# -- one game, in-process -----------------------------------------------------------------------


def play_one(settings: Settings, index: int) -> Row:
    """Play game ``index`` in this process and return its row (and write its record if
    ``settings.records`` is set). The one game loop of ``mundus tournament`` and
    ``mundus sim``: game ``i`` is the same game in both."""
    seats = seating(index, len(settings.bots), settings.players, settings.rotate,
                    settings.seed)
    seed = game_seed(settings.seed, index)
    game = Game.new(settings.players, seed, promo=settings.promo,
                    round_limit=settings.round_limit, deck=settings.deck)
    bots = [load_bot(settings.bots[j], bot_seed(settings.seed, index, j)) if settings.strict
            else make_bot(settings.bots[j], bot_seed(settings.seed, index, j)) for j in seats]
    faults = play_refereed(game, bots, time_limit=settings.time_limit, strict=settings.strict)
    result = game.result
    if result is None:  # pragma: no cover - play_refereed returns at the end only
        raise TournamentError(f"game {index} did not end")
    if settings.records is not None:
        meta: dict[str, object] = {settings.label: {
            "game": index, "seating": list(seats), "bots": list(settings.bots)}}
        record = record_of(game, game_id(settings.seed, index, settings.label),
                           seat_names(settings, seats), faults, meta=meta)
        atomic_write(record_path(settings.records, index), record.to_json() + "\n", 0o644)
    return make_row(index, seed, seats, result.winners, result.places, result.doubloons,
                    result.rounds, result.reason, fault_counts(faults, settings.players))


def make_row(index: int, seed: int, seats: Sequence[int], winners: Iterable[int],
             places: Iterable[int], doubloons: Iterable[int], rounds: int, reason: str,
             faults: Sequence[dict[str, int]]) -> Row:
    """A game's row: per seat (``seating[s]`` is the bot at seat ``s``) its place, doubloons
    and faults (kind -> count, only kinds that happened)."""
    return {"game": index, "seed": seed, "seating": list(seats), "winners": list(winners),
            "places": list(places), "doubloons": list(doubloons), "rounds": rounds,
            "reason": reason, "faults": [dict(sorted(f.items())) for f in faults]}


def play_chunk(settings: Settings, start: int, stop: int) -> list[Row]:
    """Games ``start`` to ``stop - 1``, in order (the unit of work of a worker)."""
    return [play_one(settings, i) for i in range(start, stop)]


def _play_chunk_args(args: tuple[Settings, int, int]) -> list[Row]:
    return play_chunk(*args)


def chunks(games: int, jobs: int) -> list[tuple[int, int]]:
    """Cut ``range(games)`` into ordered chunks: small enough for an even load and a live
    progress bar, large enough that sending them costs little."""
    size = max(1, min(50, games // max(1, jobs * 16)))
    return [(start, min(games, start + size)) for start in range(0, games, size)]


# -- running many games -------------------------------------------------------------------------


def run_local(settings: Settings, games: int, jobs: int = 1) -> Iterator[list[Row]]:
    """The rows of games 0..games-1 in order, in chunks; ``jobs`` worker processes."""
    parts = chunks(games, jobs)
    if jobs <= 1:
        for start, stop in parts:
            yield play_chunk(settings, start, stop)
        return
    # fork: workers start at once and inherit the imported bots; spawn where there is none.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(jobs) as pool:
        yield from pool.imap(_play_chunk_args, [(settings, a, b) for a, b in parts])


def run_dask(settings: Settings, games: int, address: str, jobs: int = 1
             ) -> Iterator[list[Row]]:
    """The same chunks on a Dask distributed cluster (``pip install mundus-net[cluster]``),
    gathered in order."""
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise TournamentError("--scheduler needs dask.distributed: "
                              "pip install 'mundus-net[cluster]'") from exc
    connect: Any = distributed.Client  # untyped
    with connect(address, set_as_default=False) as client:
        workers = max(jobs, sum(client.nthreads().values()) or 1)
        futures = [client.submit(play_chunk, settings, a, b, pure=False)
                   for a, b in chunks(games, workers)]
        try:
            for future in futures:
                yield future.result()
        finally:
            client.cancel(futures)


def run_network(settings: Settings, games: int, jobs: int = 1) -> Iterator[list[Row]]:
    """Each game through a real ``mundus host`` and ``mundus bot`` processes on loopback;
    ``jobs`` games at a time."""
    from concurrent.futures import ThreadPoolExecutor

    from mundus_net.tools.tournament_network import play_network_game

    if jobs <= 1:
        for i in range(games):
            yield [play_network_game(settings, i)]
        return
    with ThreadPoolExecutor(jobs) as pool:
        for row in pool.map(lambda i: play_network_game(settings, i), range(games)):
            yield [row]


def run_tournament(settings: Settings, games: int, *, jobs: int = 1, network: bool = False,
                   scheduler: str | None = None, progress: Progress | None = None
                   ) -> tuple[dict[str, Any], list[Row]]:
    """Play the games and return (summary, rows). Raises ValueError for bad settings."""
    settings.check()
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, not {games}")
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, not {jobs}")
    if network and scheduler:
        raise ValueError("--network and --scheduler cannot be combined")
    if settings.records is not None:
        Path(settings.records).mkdir(parents=True, exist_ok=True)
    if network:
        source = run_network(settings, games, jobs)
    elif scheduler:
        source = run_dask(settings, games, scheduler, jobs)
    else:
        source = run_local(settings, games, jobs)
    rows: list[Row] = []
    for part in source:
        rows.extend(part)
        if progress is not None:
            progress(len(rows), games)
    return summarise(settings, rows), rows


# -- the summary --------------------------------------------------------------------------------



def ratings(bots: int, rows: Iterable[Row]) -> list[dict[str, float]]:
    """openskill Plackett-Luce ratings of each bot, rating each game's places in game order
    (every bot starts at the model's default, mu 25 and sigma 25/3)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = [model.rating(name=str(j)) for j in range(bots)]
    for row in rows:
        seats = row["seating"]
        rated = model.rate([[current[j]] for j in seats], ranks=list(row["places"]))
        for j, team in zip(seats, rated, strict=True):
            current[j] = team[0]
    return [{"mu": r6(r.mu), "sigma": r6(r.sigma), "ordinal": r6(r.ordinal())}
            for r in current]


def head_to_head(bots: int, rows: Iterable[Row]) -> list[dict[str, Any]]:
    """Every pair of entries (a < b): the games both played, how often a finished ahead of b
    (a tie counts a half), with its 95% Wilson interval, and a's mean doubloon margin over b
    with a normal 95% interval."""
    ahead: dict[tuple[int, int], float] = {}
    margins: dict[tuple[int, int], list[int]] = {}
    for row in rows:
        seats, places, money = row["seating"], row["places"], row["doubloons"]
        for s, t in itertools.combinations(range(len(seats)), 2):
            a, b = seats[s], seats[t]
            pa, pb, ma, mb = places[s], places[t], money[s], money[t]
            if a > b:
                a, b, pa, pb, ma, mb = b, a, pb, pa, mb, ma
            ahead[a, b] = ahead.get((a, b), 0.0) + (1.0 if pa < pb else 0.5 if pa == pb else 0.0)
            margins.setdefault((a, b), []).append(ma - mb)
    out = []
    for a, b in itertools.combinations(range(bots), 2):
        diffs = margins.get((a, b), [])
        n = len(diffs)
        lo, hi = wilson(ahead.get((a, b), 0.0), n)
        mean = statistics.fmean(diffs) if n else 0.0
        half = 1.96 * statistics.stdev(diffs) / math.sqrt(n) if n > 1 else 0.0
        out.append({"a": a, "b": b, "games": n, "a_ahead": r6(ahead.get((a, b), 0.0)),
                    "a_ahead_rate": r6(ahead.get((a, b), 0.0) / n) if n else 0.0,
                    "a_ahead_ci95": [r6(lo), r6(hi)], "margin": r6(mean),
                    "margin_ci95": [r6(mean - half), r6(mean + half)]})
    return out


def summarise(settings: Settings, rows: Sequence[Row]) -> dict[str, Any]:
    """The tournament's summary from its rows (in game order): a JSON-ready dict with no
    timing in it, so the same games give the same bytes."""
    n_bots, players = len(settings.bots), settings.players
    counted = tally(n_bots, players, rows)
    played, wins, money, places = counted.played, counted.wins, counted.money, counted.places
    faults, seat_wins, seat_money = counted.faults, counted.seat_wins, counted.seat_money
    reasons, shared, rounds = counted.reasons, counted.shared, counted.rounds
    games = len(rows)
    rating = ratings(n_bots, rows)
    pairs = head_to_head(n_bots, rows)
    per_bot = []
    for j, spec in enumerate(settings.bots):
        n = played[j]
        lo, hi = wilson(wins[j], n)
        per_bot.append({
            "index": j, "bot": spec, "games": n, "wins": r6(wins[j]),
            "win_rate": r6(wins[j] / n) if n else 0.0, "win_rate_ci95": [r6(lo), r6(hi)],
            "mean_doubloons": r6(statistics.fmean(money[j])) if n else 0.0,
            "sd_doubloons": r6(statistics.stdev(money[j])) if n > 1 else 0.0,
            "mean_place": r6(places[j] / n) if n else 0.0,
            "rating": rating[j], "faults": faults[j],
        })
    by_name: dict[str, dict[str, Any]] = {}
    for j, spec in enumerate(settings.bots):
        entry = by_name.setdefault(spec, {"entries": 0, "games": 0, "wins": 0.0, "money": []})
        entry["entries"] += 1
        entry["games"] += played[j]
        entry["wins"] += wins[j]
        entry["money"].extend(money[j])
    names = {}
    for spec, entry in by_name.items():
        n = entry["games"]
        lo, hi = wilson(entry["wins"], n)
        names[spec] = {"entries": entry["entries"], "games": n, "wins": r6(entry["wins"]),
                       "win_rate": r6(entry["wins"] / n) if n else 0.0,
                       "win_rate_ci95": [r6(lo), r6(hi)],
                       "mean_doubloons": r6(statistics.fmean(entry["money"])) if n else 0.0}
    per_seat = [{"seat": s, "wins": r6(seat_wins[s]),
                 "win_rate": r6(seat_wins[s] / games) if games else 0.0,
                 "mean_doubloons": r6(seat_money[s] / games) if games else 0.0}
                for s in range(players)]
    return {
        "bots": list(settings.bots), "players": players, "games": games,
        "seed": settings.seed, "round_limit": settings.round_limit, "promo": settings.promo,
        "time_limit": settings.time_limit,
        "per_bot": per_bot, "by_name": names, "per_seat": per_seat,
        "shared_victories": shared,
        "mean_rounds": r6(statistics.fmean(rounds)) if rounds else 0.0,
        "min_rounds": min(rounds, default=0), "max_rounds": max(rounds, default=0),
        "end_reasons": reasons,
        "faults": {kind: sum(f.get(kind, 0) for f in faults) for kind in FAULT_KINDS},
        "design_games": design_games(n_bots, players) if settings.rotate else None,
        "head_to_head": pairs,
        "unmet_pairs": [[p["a"], p["b"]] for p in pairs if p["games"] == 0],
    }


def format_table(s: dict[str, Any], elapsed: float | None = None) -> str:
    """The human-readable results (with the speed if ``elapsed`` is given)."""
    options = ["seats rotated every game"]
    if s["promo"]:
        options.append("promo cards")
    if s["round_limit"] is not None:
        options.append(f"round limit {s['round_limit']}")
    limit = s["time_limit"]
    options.append("no time limit" if limit is None else f"{limit:g} s a decision")
    lines = [f"{s['games']} games, {s['players']} players, seed {s['seed']}, "
             f"bots {','.join(s['bots'])} ({', '.join(options)})", ""]
    width = max(4, *(len(b["bot"]) for b in s["per_bot"])) + 2
    lines.append(f"{'':3}{'bot':<{width}}{'games':>6}{'wins':>10}  {'win rate (95% CI)':<22}"
                 f"{'doubloons (sd)':>15}{'place':>7}{'mu':>8}{'sigma':>7}{'ordinal':>9}"
                 f"  faults")
    for b in s["per_bot"]:
        lo, hi = b["win_rate_ci95"]
        rate = f"{b['win_rate']:.1%} ({lo:.1%}-{hi:.1%})"
        money = f"{b['mean_doubloons']:.1f} ({b['sd_doubloons']:.1f})"
        r = b["rating"]
        lines.append(f"{b['index']:<3}{b['bot']:<{width}}{b['games']:>6}{b['wins']:>10.2f}  "
                     f"{rate:<22}{money:>15}{b['mean_place']:>7.2f}{r['mu']:>8.2f}"
                     f"{r['sigma']:>7.2f}{r['ordinal']:>9.2f}  {_faults_text(b['faults'])}")
    if len(s["by_name"]) < len(s["per_bot"]):
        lines += ["", "by strategy:"]
        for name, e in s["by_name"].items():
            lo, hi = e["win_rate_ci95"]
            lines.append(f"   {name:<{width}}{e['games']:>6}{e['wins']:>10.2f}  "
                         f"{e['win_rate']:.1%} ({lo:.1%}-{hi:.1%}) over {e['entries']} "
                         f"entr{'y' if e['entries'] == 1 else 'ies'}, "
                         f"mean doubloons {e['mean_doubloons']:.1f}")
    lines.append("")
    lines += head_to_head_lines(s)
    lines.append("")
    lines += table_lines(s)
    lines.append(f"faults (default decision charged): {_faults_text(s['faults'])}")
    lines.append("ratings: openskill Plackett-Luce, games rated in order; "
                 "ordinal = mu - 3 sigma")
    if elapsed is not None:
        lines.append(speed_line(s["games"], elapsed))
    return "\n".join(lines)


def head_to_head_lines(s: dict[str, Any]) -> list[str]:
    """The pairwise matrix: row a, column b: how often a finished ahead of b, and a's mean
    doubloon margin; a warning when some pairs never met."""
    bots = len(s["per_bot"])
    cell = {(p["a"], p["b"]): p for p in s["head_to_head"]}
    lines = ["head to head (row ahead of column: rate, mean doubloon margin; games met):"]
    lines.append("    " + "".join(f"{b:>18}" for b in range(bots)))
    for a in range(bots):
        parts = []
        for b in range(bots):
            if a == b:
                parts.append(f"{'-':>18}")
                continue
            p = cell[min(a, b), max(a, b)]
            if not p["games"]:
                parts.append(f"{'never met':>18}")
                continue
            rate = p["a_ahead_rate"] if a < b else 1 - p["a_ahead_rate"]
            margin = p["margin"] if a < b else -p["margin"]
            text = f"{rate:.0%} {margin:+.1f} ({p['games']})"
            parts.append(f"{text:>18}")
        lines.append(f"{a:<4}" + "".join(parts))
    if s["unmet_pairs"]:
        names = ", ".join(f"#{a}-#{b}" for a, b in s["unmet_pairs"])
        whole = s.get("design_games")
        lines.append(f"warning: these pairs never met: {names}"
                     + (f" (every pair meets once the games are a multiple of "
                        f"{whole}, the whole design)" if whole else ""))
    return lines


def _faults_text(faults: dict[str, int]) -> str:
    found = [f"{kind} {n}" for kind, n in faults.items() if n]
    return ", ".join(found) if found else "none"


# -- output files -------------------------------------------------------------------------------


def write_json(path: str | Path, summary: dict[str, Any], rows: Sequence[Row]) -> None:
    Path(path).write_text(json.dumps({"summary": summary, "games": list(rows)}, indent=1)
                          + "\n", encoding="utf-8")


def write_csv(path: str | Path, settings: Settings, rows: Sequence[Row]) -> None:
    """One line per game: game, seed, rounds, reason, winners, then per seat its bot (index
    and spec), place, doubloons and faults (``kind:count`` joined by ``;``)."""
    header = ["game", "seed", "rounds", "reason", "winners"]
    for s in range(settings.players):
        header += [f"seat{s}_bot_index", f"seat{s}_bot", f"seat{s}_place",
                   f"seat{s}_doubloons", f"seat{s}_faults"]
    with Path(path).open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        for row in rows:
            line: list[Any] = [row["game"], row["seed"], row["rounds"], row["reason"],
                               " ".join(map(str, row["winners"]))]
            for s, j in enumerate(row["seating"]):
                line += [j, settings.bots[j], row["places"][s], row["doubloons"][s],
                         ";".join(f"{k}:{v}" for k, v in row["faults"][s].items())]
            writer.writerow(line)


# -- the command --------------------------------------------------------------------------------


def _time_limit(text: str) -> float | None:
    """``--time-limit``: seconds per decision, or ``none`` (or 0) for no limit."""
    if text in ("none", "0"):
        return None
    return seconds(86400, "seconds per decision")(text)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tournament",
        description="Play many games between bots with the seats rotated, in parallel, and "
                    "print wins with confidence intervals, doubloons, rounds, how games "
                    "ended and openskill ratings. Same seed, same results, whatever --jobs.")
    parser.add_argument("--bots", type=bot_list, required=True, metavar="LIST",
                        help="comma-separated bots: strategy names, module:Class or "
                             "file.py:Class; the same name twice makes two entries")
    parser.add_argument("--games", type=positive_int, default=100, metavar="N",
                        help="number of games (default 100)")
    parser.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                        help="games played at once, in worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=0,
                        help="master seed; game i's seeds derive from it and i (default 0)")
    parser.add_argument("--players", type=player_count, default=None, metavar="N",
                        help="players per game, 2-6 (default: the number of bots; fewer "
                             "means the bots take turns sitting out)")
    parser.add_argument("--round-limit", type=positive_int, default=None, metavar="N",
                        help="end a game after N rounds (R8.5; default: no limit)")
    parser.add_argument("--promo", action="store_true", help="play with the promo cards")
    parser.add_argument("--time-limit", type=_time_limit, default=DEFAULT_TIME_LIMIT,
                        metavar="S", help="seconds a bot may take per decision, else the "
                                          "default decision is charged (default "
                                          f"{DEFAULT_TIME_LIMIT:g}; none: no limit)")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="write the summary and one row per game as JSON")
    parser.add_argument("--csv", metavar="FILE", default=None,
                        help="write one row per game as CSV")
    parser.add_argument("--records", metavar="DIR", default=None,
                        help="write each game's record (JSON, docs/record.md) to DIR")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--network", action="store_true",
                       help="play every game through `mundus host` and `mundus bot` "
                            "processes on 127.0.0.1")
    where.add_argument("--scheduler", metavar="ADDRESS", default=None,
                       help="run the games on a Dask cluster (tcp://HOST:PORT; needs the "
                            "cluster extra)")
    parser.set_defaults(func=_main, tournament_parser=parser)


def _main(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.tournament_parser
    players = args.players if args.players is not None else len(args.bots)
    settings = Settings(tuple(args.bots), players, args.seed, args.round_limit, args.promo,
                        args.time_limit, args.records)
    try:
        if players > 6 and args.players is None:
            raise ValueError(f"{players} bots do not fit at one table: give --players (2-6)")
        settings.check()
    except ValueError as exc:
        parser.error(str(exc))
    progress = ProgressReport(sys.stderr, "tournament")
    start = time.perf_counter()
    try:
        summary, rows = run_tournament(settings, args.games, jobs=args.jobs,
                                       network=args.network, scheduler=args.scheduler,
                                       progress=progress)
    except (TournamentError, OSError) as exc:
        print(f"mundus tournament: {exc}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - start
    if args.json is not None:
        write_json(args.json, summary, rows)
    if args.csv is not None:
        write_csv(args.csv, settings, rows)
    try:
        print(format_table(summary, elapsed))
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps the exit quiet
    return 0
