"""``mundus tournament``: many games between bots in a balanced design, in parallel; a results
table with confidence intervals, a head-to-head matrix and openskill ratings.

Game ``i`` is fixed by ``--seed`` and ``i`` alone: its game seed and its bots' seeds derive from
them (as in ``mundus sim``), and so does its seating (a balanced design in which every pair of
bots meets and every seat order comes equally often,
:func:`mundus_net.tools.games.seating`): the results do not
depend on ``--jobs``, on the chunks the games are cut into, or on where they run (worker
processes, a Dask cluster, real ``mundus host`` and ``mundus bot`` processes with
``--network``). Results are aggregated in game order. One game is played by
:mod:`mundus_net.tools.games`; the summary is made by :mod:`mundus_net.tools.standings`.
Bots that fail are charged the default decision (mundus_net.tools.referee). docs/tournament.md
describes the command and its output.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import multiprocessing
import os
import sys
import textwrap
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from mundus_net.bots.base import Bot, ship_bot_files, split_options, strategy_names
from mundus_net.cli_args import positive_int, seconds
from mundus_net.engine.deck import Deck
from mundus_net.tools.games import (
    DEFAULT_TIME_LIMIT,
    Settings,
    TournamentError,
    exit_words,
    play_chunk,
    play_one,
    seat_names,
    seating,
)
from mundus_net.tools.progress import Progress, ProgressReport
from mundus_net.tools.results import (
    Row,
    bot_list,
    check_spec,
    player_count,
    short_label,
    speed_line,
    table_lines,
)
from mundus_net.tools.standings import summarise

__all__ = [
    "H2H_CELL", "NAME_WIDTH", "WIDTH", "FaultLog", "Finished", "TournamentStopped", "built_in",
    "check_bots_here", "chunks", "default_faults_path", "entry_label", "find_fatal_game",
    "format_table", "head_to_head_lines", "play_series", "register", "run_dask", "run_local",
    "run_network", "run_tournament", "write_csv", "write_json"
]


def play_series(bots: Sequence[Bot], games: int, *, players: int | None = None, seed: int = 0,
                rotate: bool = True, round_limit: int | None = None, promo: bool = False,
                time_limit: float | None = None, deck: Deck | None = None
                ) -> tuple[dict[str, Any], list[Row]]:
    """These bot objects play ``games`` games, in order, in this process: the same object
    every game (so it can learn; an ``on_game_end(view)`` method is told each result),
    seated as ``mundus tournament`` seats its entries (``players`` of them a game, default
    all). Returns (summary, rows) as :func:`run_tournament` does. A failing bot is charged
    the default decision; ``time_limit`` is in seconds of CPU time per decision."""
    players = len(bots) if players is None else players
    names = tuple(f"{type(bot).__name__}" for bot in bots)
    settings = Settings(names, players, seed, round_limit, promo, time_limit, rotate=rotate,
                        deck=deck, label="series", series=True)
    if not 2 <= players <= 6 or len(bots) < players:
        raise ValueError(f"{len(bots)} bots cannot fill games of {players} players (2-6)")
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, not {games}")
    entries: dict[int, Bot] = dict(enumerate(bots))
    rows = [play_one(settings, i, entries) for i in range(games)]
    return summarise(settings, rows), rows


def chunks(games: int, jobs: int) -> list[tuple[int, int]]:
    """Cut ``range(games)`` into ordered chunks: small enough for an even load and a live
    progress bar, large enough that sending them costs little."""
    size = max(1, min(50, games // max(1, jobs * 16)))
    return [(start, min(games, start + size)) for start in range(0, games, size)]


# -- running many games -------------------------------------------------------------------------

Finished = Callable[[int], None]  # told how many games have finished, in any order


class TournamentStopped(TournamentError):
    """The tournament stopped before its last game; ``rows`` are the games finished before
    the one that stopped it, in order (the summary of those can still be printed)."""

    def __init__(self, message: str, rows: Sequence[Row] = ()) -> None:
        super().__init__(message)
        self.rows = list(rows)


class _ChunkFailed(Exception):
    """A chunk's future failed: which chunk, and why."""

    def __init__(self, chunk: int, error: BaseException) -> None:
        super().__init__(chunk, error)
        self.chunk = chunk
        self.error = error


def _ordered(futures: Sequence[Any], as_completed: Callable[[Any], Iterable[Any]],
             finished: Finished | None) -> Iterator[list[Row]]:
    """The futures' rows in the futures' order, while ``finished`` is told of every chunk as
    it finishes (in any order: a slow early game holds the output back, not the count).
    The first failed chunk (in completion order) raises :class:`_ChunkFailed`."""
    where = {id(future): i for i, future in enumerate(futures)}
    ready: dict[int, list[Row]] = {}
    done = nxt = 0
    for future in as_completed(futures):
        i = where[id(future)]
        try:
            rows = future.result()
        except Exception as exc:
            raise _ChunkFailed(i, exc) from exc
        ready[i] = rows
        done += len(rows)
        if finished is not None:
            finished(done)
        while nxt in ready:
            yield ready.pop(nxt)
            nxt += 1


def _start_method() -> str:
    # fork: workers start at once and inherit the imported bots; spawn where there is none.
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def run_local(settings: Settings, games: int, jobs: int = 1, *, isolate: bool = False,
              finished: Finished | None = None,
              work: Callable[[Settings, int, int], list[Row]] = play_chunk
              ) -> Iterator[list[Row]]:
    """The rows of games 0..games-1 in order, in chunks: in this process (``jobs`` 1, not
    ``isolate``, or a series), else in ``jobs`` worker processes. A worker that dies (a bot
    ended its process) stops the run with :class:`TournamentError` naming the game.
    ``work(settings, start, stop)`` plays a chunk (another than :func:`play_chunk`: one that
    also collects what its bots learnt, ``mundus train``)."""
    if settings.series or (jobs <= 1 and not isolate):
        entries: dict[int, Bot] | None = {} if settings.series else None
        for i in range(games):
            yield ([play_one(settings, i, entries)] if work is play_chunk
                   else work(settings, i, i + 1))
            if finished is not None:
                finished(i + 1)
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures import as_completed as completed

    parts = chunks(games, jobs)
    ctx = multiprocessing.get_context(_start_method())
    pool = ProcessPoolExecutor(jobs, mp_context=ctx)
    futures = [pool.submit(work, settings, a, b) for a, b in parts]
    try:
        yield from _ordered(futures, completed, finished)
    except _ChunkFailed as failed:
        from concurrent.futures.process import BrokenProcessPool

        if not isinstance(failed.error, BrokenProcessPool):
            raise failed.error from None
        pool.shutdown(wait=True, cancel_futures=True)
        unfinished = [parts[i] for i, f in enumerate(futures)
                      if not f.done() or f.cancelled() or f.exception() is not None]
        raise TournamentError(_fatal_message(settings, unfinished[:jobs + 1],
                                             "a worker process")) from None
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _replay_reporting(settings: Settings, start: int, stop: int, pipe: Any) -> None:
    """Play games ``start``..``stop - 1``, saying each game's index before it starts."""
    quiet = dataclasses.replace(settings, records=None)
    for i in range(start, stop):
        pipe.send(i)
        play_one(quiet, i)
    pipe.send("done")


def find_fatal_game(settings: Settings, start: int, stop: int, *,
                    deadline_s: float = 600.0) -> tuple[int, int | None] | None:
    """Replay games ``start``..``stop - 1`` one by one in a fresh process: (the game during
    which that process ended, its exit code), or None if they all finished (or the replay
    took longer than ``deadline_s``)."""
    ctx: Any = multiprocessing.get_context(_start_method())  # typeshed: BaseContext, no Process
    reader, writer = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_replay_reporting, args=(settings, start, stop, writer),
                       daemon=True)
    proc.start()
    writer.close()
    current: int | None = None
    deadline = time.monotonic() + deadline_s
    try:
        while time.monotonic() < deadline:
            if not reader.poll(1.0):
                continue
            try:
                said = reader.recv()
            except EOFError:  # the process ended
                proc.join(10)
                return None if current is None else (current, proc.exitcode)
            if said == "done":
                return None
            current = int(said)
        return None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(10)
        reader.close()


def _fatal_message(settings: Settings, parts: Sequence[tuple[int, int]], what: str) -> str:
    """Which game ended the process that played it, found by replaying the chunks that were
    playing alone, and what to do about it."""
    for start, stop in parts:
        found = find_fatal_game(settings, start, stop)
        if found is None:
            continue
        game, code = found
        seats = seating(game, len(settings.bots), settings.players, settings.rotate,
                        settings.seed)
        who = ", ".join(f"seat {s}: {name}" for s, name
                        in enumerate(seat_names(settings, seats)))
        return (f"game {game} ended the process playing it ({exit_words(code)}); replayed "
                f"alone it did so again, so one of its bots ends its process ({who}). A bot "
                "must return a decision, or raise an exception to be charged the default: "
                "never call os._exit, kill its process or run out of memory")
    spans = ", ".join(f"{a}-{b - 1}" for a, b in parts)
    return (f"{what} died while playing games {spans}, but replayed alone they finished: "
            "something outside the games ended it (out of memory? killed by hand?)")


def run_dask(settings: Settings, games: int, address: str, jobs: int = 1, *,
             finished: Finished | None = None,
             work: Callable[[Settings, int, int], list[Row]] = play_chunk
             ) -> Iterator[list[Row]]:
    """The same chunks on a Dask distributed cluster (``pip install mundus-net[cluster]``),
    gathered in order (each played by ``work``, as in :func:`run_local`). Every worker
    first loads every bot (an error there stops the run before any game); a chunk whose
    workers died stops it with the game that did it."""
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise TournamentError("--scheduler needs dask.distributed: "
                              "pip install 'mundus-net[cluster]'") from exc
    connect: Any = distributed.Client  # untyped
    with connect(address, set_as_default=False) as client:
        problems = client.run(check_bots_here, settings)
        for worker, problem in sorted(problems.items()):
            if problem:
                raise TournamentError(f"the Dask worker {worker} cannot load the bots: "
                                      f"{problem} (a bot given as path/to/file.py:Class is "
                                      "sent to the workers; a module must be installed "
                                      "there)")
        workers = max(jobs, sum(client.nthreads().values()) or 1)
        parts = chunks(games, workers)
        futures = [client.submit(work, settings, a, b, pure=False) for a, b in parts]
        try:
            completed: Any = distributed.as_completed  # untyped
            yield from _ordered(futures, lambda fs: completed(fs, loop=client.loop), finished)
        except _ChunkFailed as failed:
            client.cancel(futures)
            if type(failed.error).__name__ != "KilledWorker":
                raise failed.error from None
            raise TournamentError(_fatal_message(settings, [parts[failed.chunk]],
                                                 "the Dask workers")) from None
        finally:
            client.cancel(futures)


def check_bots_here(settings: Settings) -> str | None:
    """Load every bot of ``settings`` in this process (a Dask worker): None, or why not."""
    ship_bot_files(settings.files)
    for spec in settings.bots:
        try:
            check_spec(spec)
        except ValueError as exc:
            return str(exc)
    return None


def run_network(settings: Settings, games: int, jobs: int = 1, *,
                finished: Finished | None = None) -> Iterator[list[Row]]:
    """Each game through a real ``mundus host`` and ``mundus bot`` processes on loopback;
    ``jobs`` games at a time."""
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures import as_completed as completed

    from mundus_net.tools.tournament_network import play_network_game

    with ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(lambda i: [play_network_game(settings, i)], i)
                   for i in range(games)]
        try:
            yield from _ordered(futures, completed, finished)
        except _ChunkFailed as failed:
            for future in futures:
                future.cancel()
            raise failed.error from None


def run_tournament(settings: Settings, games: int, *, jobs: int = 1, network: bool = False,
                   scheduler: str | None = None, progress: Progress | None = None,
                   isolate: bool = False,
                   rows_seen: Callable[[list[Row]], None] | None = None
                   ) -> tuple[dict[str, Any], list[Row]]:
    """Play the games and return (summary, rows). Raises ValueError for bad settings, and
    :class:`TournamentStopped` (with the rows finished before) if a game could not be
    played. ``isolate``: play in worker processes even with one job (``mundus tournament``
    does, so that a bot that ends its process cannot end the tournament unexplained);
    ``rows_seen`` is given the rows as they come, in order."""
    settings.check()
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, not {games}")
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, not {jobs}")
    if network and scheduler:
        raise ValueError("--network and --scheduler cannot be combined")
    if settings.series and (network or scheduler or jobs > 1):
        raise ValueError("a series (one bot object playing every game in order) runs in one "
                         "process: not with --jobs above 1, --network or --scheduler")
    settings = settings.with_files()
    if settings.records is not None:
        Path(settings.records).mkdir(parents=True, exist_ok=True)

    def finished(done: int) -> None:
        if progress is not None:
            progress(done, games)

    if network:
        source = run_network(settings, games, jobs, finished=finished)
    elif scheduler:
        source = run_dask(settings, games, scheduler, jobs, finished=finished)
    else:
        source = run_local(settings, games, jobs, isolate=isolate, finished=finished)
    rows: list[Row] = []
    try:
        for part in source:
            rows.extend(part)
            if rows_seen is not None:
                rows_seen(part)
    except TournamentError as exc:
        raise TournamentStopped(str(exc), rows) from None
    return summarise(settings, rows), rows


# -- the summary --------------------------------------------------------------------------------



WIDTH = 80  # every line of the printed summary fits a terminal of 80 columns
NAME_WIDTH = 16  # an entry's name in the tables: longer names are cut, given whole below
H2H_CELL = 19  # a head-to-head cell: "100% +51.3 (10000)"


def entry_label(spec: str, width: int = NAME_WIDTH) -> str:
    """An entry's name for the tables (results.short_label, at the tables' width)."""
    return short_label(spec, width)


def _wrapped(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False)


def _ms(value: float) -> str:
    """A CPU time in ms with three significant figures or more (0.172, 23.9, 1310)."""
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 10 else \
        f"{value:.1f}" if value < 100 else f"{value:.0f}"


def format_table(s: dict[str, Any], elapsed: float | None = None) -> str:
    """The human-readable results, every line at most 80 columns (with the speed if
    ``elapsed`` is given): the results table, then ratings, faults and CPU time per entry."""
    options = ["seats rotated every game"]
    if s["promo"]:
        options.append("promo cards")
    if s["round_limit"] is not None:
        options.append(f"round limit {s['round_limit']}")
    limit = s["time_limit"]
    options.append("no time limit" if limit is None else f"{limit:g} s a decision")
    # Wrapped between the options, not inside one (no-break spaces until wrapped).
    lines = [line.replace("\xa0", " ") for line in _wrapped(
        f"{s['games']} games, {s['players']} players, seed {s['seed']} "
        f"({', '.join(o.replace(' ', chr(0xa0)) for o in options)})")]
    per_bot = s["per_bot"]
    labels = [entry_label(b["bot"]) for b in per_bot]
    w = max(8, *map(len, labels)) + 2
    lines += ["", f"{'':3}{'bot':<{w}}{'games':>6}{'wins':>8}  {'win rate (95% CI)':<21}"
              f"{'doubloons (sd)':>15}{'place':>7}"]
    for b, label in zip(per_bot, labels, strict=True):
        lo, hi = b["win_rate_ci95"]
        rate = f"{b['win_rate']:.1%} ({lo:.1%}-{hi:.1%})"
        money = f"{b['mean_doubloons']:.1f} ({b['sd_doubloons']:.1f})"
        lines.append(f"{b['index']:<3}{label:<{w}}{b['games']:>6}{b['wins']:>8.2f}  "
                     f"{rate:<21}{money:>15}{b['mean_place']:>7.2f}")
    lines += ["", f"{'':3}{'bot':<{w}}{'mu':>8}{'sigma':>7}{'ordinal':>9}{'cpu ms':>9}"
              f"{'p95':>9}  faults"]
    for b, label in zip(per_bot, labels, strict=True):
        r, cpu = b["rating"], b.get("cpu_ms")
        mean, p95 = (_ms(cpu["mean"]), _ms(cpu["p95"])) if cpu else ("-", "-")
        charged = sum(b["faults"].values())
        lines.append(f"{b['index']:<3}{label:<{w}}{r['mu']:>8.2f}{r['sigma']:>7.2f}"
                     f"{r['ordinal']:>9.2f}{mean:>9}{p95:>9}  {charged or 'none'}")
    whole = [f"{b['index']:<3}{b['bot']}" for b, label in zip(per_bot, labels, strict=True)
             if label != b["bot"]]
    if whole:
        lines += ["", "bots in full:"] + [line for text in whole
                                          for line in _wrapped(text, " " * 3)]
    if len(s["by_name"]) < len(per_bot):
        lines += ["", "by strategy (its entries pooled):",
                  f"{'':3}{'strategy':<{w}}{'games':>6}{'wins':>8}  "
                  f"{'win rate (95% CI)':<21}{'doubloons':>11}{'entries':>9}"]
        for name, e in s["by_name"].items():
            lo, hi = e["win_rate_ci95"]
            rate = f"{e['win_rate']:.1%} ({lo:.1%}-{hi:.1%})"
            lines.append(f"{'':3}{entry_label(name):<{w}}{e['games']:>6}{e['wins']:>8.2f}  "
                         f"{rate:<21}{e['mean_doubloons']:>11.1f}{e['entries']:>9}")
    lines.append("")
    lines += head_to_head_lines(s)
    lines.append("")
    lines += table_lines(s)
    lines += _wrapped(f"faults (default decision charged): {_faults_text(s['faults'])}"
                      + _faults_by_entry(per_bot))
    lines.append("ratings: openskill Plackett-Luce, games rated in order; "
                 "ordinal = mu - 3 sigma")
    measured = any(b.get("cpu_ms") for b in per_bot)
    lines += _wrapped("cpu ms, p95: CPU time of a decision, mean and 95th percentile "
                      + ("(thread time)" if measured else "(not measured over --network)"))
    if elapsed is not None:
        lines.append(speed_line(s["games"], elapsed))
    return "\n".join(lines)


def head_to_head_lines(s: dict[str, Any]) -> list[str]:
    """The pairwise matrix: row a, column b: how often a finished ahead of b, and a's mean
    doubloon margin; a warning when some pairs never met. Columns beyond what 80 columns
    hold continue in a block below."""
    bots = len(s["per_bot"])
    cell = {(p["a"], p["b"]): p for p in s["head_to_head"]}
    lines = _wrapped("head to head (row ahead of column: rate, mean doubloon margin; "
                     "games met):")
    per_block = max(1, (WIDTH - 4) // H2H_CELL)
    for first in range(0, bots, per_block):
        columns = range(first, min(bots, first + per_block))
        if first:
            lines.append("")
        lines.append("    " + "".join(f"{b:>{H2H_CELL}}" for b in columns))
        for a in range(bots):
            parts = []
            for b in columns:
                if a == b:
                    parts.append(f"{'-':>{H2H_CELL}}")
                    continue
                p = cell[min(a, b), max(a, b)]
                if not p["games"]:
                    parts.append(f"{'never met':>{H2H_CELL}}")
                    continue
                rate = p["a_ahead_rate"] if a < b else 1 - p["a_ahead_rate"]
                margin = p["margin"] if a < b else -p["margin"]
                text = f"{rate:.0%} {margin:+.1f} ({p['games']})"
                parts.append(f"{text:>{H2H_CELL}}")
            lines.append(f"{a:<4}" + "".join(parts))
    if s["unmet_pairs"]:
        names = ", ".join(f"#{a}-#{b}" for a, b in s["unmet_pairs"])
        whole = s.get("design_games")
        lines += _wrapped(f"warning: these pairs never met: {names}"
                          + (f" (every pair meets once the games are a multiple of "
                             f"{whole}, the whole design)" if whole else ""))
    return lines


def _faults_text(faults: dict[str, int]) -> str:
    found = [f"{kind} {n}" for kind, n in faults.items() if n]
    return ", ".join(found) if found else "none"


def _faults_by_entry(per_bot: Sequence[dict[str, Any]]) -> str:
    """`` (#1 error 12; #2 illegal 3)``: the faults of each entry that had some."""
    found = [f"#{b['index']} {_faults_text(b['faults'])}" for b in per_bot
             if any(b["faults"].values())]
    return f" ({'; '.join(found)})" if found else ""


# -- output files -------------------------------------------------------------------------------


def write_json(path: str | Path, summary: dict[str, Any], rows: Sequence[Row]) -> None:
    """``{"summary": ..., "games": [...]}``: the summary indented, each game on one line (a
    row holds every decision's CPU time: hundreds of numbers)."""
    head = json.dumps({"summary": summary}, indent=1)[:-2]  # without the closing "\n}"
    games = ",\n".join(json.dumps(row) for row in rows)
    Path(path).write_text(f'{head},\n "games": [\n{games}\n ]\n}}\n', encoding="utf-8")


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
    parser.add_argument("--faults", metavar="FILE", default=None,
                        help="write every fault of a bot, with its traceback, as JSON lines "
                             "(default: beside --json as NAME.faults.jsonl, else in --records, "
                             "else mundus-faults.jsonl; only if a fault happens)")
    parser.add_argument("--series", action="store_true",
                        help="one bot object per entry plays every game in order, told each "
                             "result (on_game_end): for bots that learn; one process")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--network", action="store_true",
                       help="play every game through `mundus host` and `mundus bot` "
                            "processes on 127.0.0.1")
    where.add_argument("--scheduler", metavar="ADDRESS", default=None,
                       help="run the games on a Dask cluster (tcp://HOST:PORT; needs the "
                            "cluster extra)")
    parser.set_defaults(func=_main, tournament_parser=parser)


def built_in(spec: str) -> bool:
    """A strategy of this package (``greedy``, ``search:iterations=8``): not code that might
    end its process, so one job may run in this process."""
    return split_options(spec)[0] in strategy_names()


def default_faults_path(json_path: str | None, records: str | None) -> Path:
    """Where the faults go when ``--faults`` is not given: beside the JSON results, else in
    the records folder, else in the current folder."""
    if json_path is not None:
        path = Path(json_path)
        return path.with_name(path.stem + ".faults.jsonl")
    if records is not None:
        return Path(records) / "faults.jsonl"
    return Path("mundus-faults.jsonl")


class FaultLog:
    """Every fault of a run, one JSON line each with its whole traceback, written as the
    games arrive; the first fault is also printed. The file is made at the first fault
    only: a run without faults leaves none. A file of an earlier run at ``path`` is removed
    at once, so that it cannot pass for this run's."""

    def __init__(self, settings: Settings, path: Path, stream: Any) -> None:
        self.settings = settings
        self.path = path
        self.stream = stream
        self.count = 0
        self._out: Any = None
        path.unlink(missing_ok=True)  # OSError (a folder, no permission): said by the caller
        folder = path.absolute().parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not os.access(folder, os.W_OK):  # said now, not at the first fault
            raise PermissionError(f"{folder} is not writable: {path} could not be made")

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._out = self.path.open("w", encoding="utf-8")

    def __call__(self, rows: Sequence[Row]) -> None:
        for row in rows:
            for fault in row.get("fault_list") or ():
                self._write(row, fault)

    def _write(self, row: Row, fault: dict[str, Any]) -> None:
        seat = int(fault["seat"])
        entry = row["seating"][seat]
        index = fault.get("traceback")
        trace = row["tracebacks"][index] if isinstance(index, int) else None
        line = {"game": row["game"], "seat": seat, "entry": entry,
                "bot": self.settings.bots[entry], **{k: v for k, v in fault.items()
                                                     if k not in ("seat", "traceback")},
                "traceback": trace}
        if self.count == 0:
            if self._out is None:
                self._open()
            name = seat_names(self.settings, row["seating"])[seat]
            self.stream.write(f"mundus tournament: first fault: game {row['game']}, seat {seat} "
                              f"({name}), round {fault['round']}, {fault['phase']}: "
                              f"{fault['reason']}\n{trace or ''}"
                              f"(the default decision was played; every fault, with its "
                              f"traceback, goes to {self.path})\n")
            self.stream.flush()
        self._out.write(json.dumps(line) + "\n")
        self.count += 1

    def close(self) -> None:
        if self._out is not None:
            self._out.close()


def _main(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.tournament_parser
    players = args.players if args.players is not None else len(args.bots)
    settings = Settings(tuple(args.bots), players, args.seed, args.round_limit, args.promo,
                        args.time_limit, args.records, series=args.series)
    try:
        if players > 6 and args.players is None:
            raise ValueError(f"{players} bots do not fit at one table: give --players (2-6)")
        settings.check()
        if args.series and (args.jobs > 1 or args.network or args.scheduler):
            raise ValueError("--series plays every game in this process: not with --jobs "
                             "above 1, --network or --scheduler")
    except ValueError as exc:
        parser.error(str(exc))
    progress = ProgressReport(sys.stderr, "tournament")
    try:
        faults = FaultLog(settings, Path(args.faults) if args.faults is not None else
                          default_faults_path(args.json, args.records), sys.stderr)
    except OSError as exc:
        print(f"mundus tournament: cannot write the faults file: {exc}", file=sys.stderr)
        return 1
    start = time.perf_counter()
    stopped: TournamentStopped | None = None
    try:
        with progress.heartbeat():
            summary, rows = run_tournament(settings, args.games, jobs=args.jobs,
                                           network=args.network, scheduler=args.scheduler,
                                           progress=progress,
                                           isolate=not all(map(built_in, settings.bots)),
                                           rows_seen=faults)
    except TournamentStopped as exc:
        stopped, rows = exc, exc.rows
        summary = summarise(settings, rows)
    except (TournamentError, OSError, ValueError) as exc:
        print(f"mundus tournament: {exc}", file=sys.stderr)
        return 1
    finally:
        faults.close()
    elapsed = time.perf_counter() - start
    if stopped is not None:
        summary["stopped"] = str(stopped)
    if args.json is not None:
        write_json(args.json, summary, rows)
    if args.csv is not None:
        write_csv(args.csv, settings, rows)
    status = 0
    try:
        if rows:
            print(format_table(summary, elapsed))
            sys.stdout.flush()
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps the exit quiet
    if faults.count:
        print(f"mundus tournament: {faults.count} fault(s), each with its traceback, in "
              f"{faults.path}", file=sys.stderr)
    for j in summary["always_faulted"]:
        b = summary["per_bot"][j]
        print(f"mundus tournament: bot #{j} ({b['bot']}) faulted in every one of its "
              f"{b['decisions']} decisions: its games were played by the default decision "
              f"(see the first fault above)", file=sys.stderr)
        status = 1
    if stopped is not None:
        print(f"mundus tournament: stopped after {len(rows)} of {args.games} games: {stopped}"
              + (" (the results above are those games')" if rows else ""), file=sys.stderr)
        status = 1
    return status
