"""``mundus train``: train the learned bot again (docs/rl.md, "Training the learned bot").

1. Games of the search bot against three greedy bots are played by the tournament's own
   runner (:func:`mundus_net.tools.tournament.run_local`, or ``run_dask`` with
   ``--scheduler``): game ``i`` is the same game wherever it runs. The search seat is a
   :class:`mundus_net.rl.imitate.Teacher`, which searches the decision kinds of ``--phases``
   (default: the progression turn, where the search's choices proved learnable; ``all``: it
   plays as ``search``, and game ``i`` is the game ``mundus tournament --bots
   search,greedy,greedy,greedy --seed SEED`` plays as its game ``i``) and records every
   decision it searched.
2. The learned bot's network is fitted to choose as the search did, towards the softmax of
   the search's estimates at ``--temperature`` (:func:`mundus_net.rl.imitate.fit`, numpy:
   ``pip install 'mundus-net[rl]'``), from a generator seeded by ``--seed``; the weights
   name the phases it learned, and greedy plays the others.
3. The weights are written as JSON (``--out``), which ``--strategy learned:weights=FILE``
   plays, and which replaces ``mundus_net/bots/data/learned.json`` to ship it.

The same command gives the same weights (the games, the samples and the fit depend on the
seed alone, not on ``--jobs`` or the scheduler). Progress: a bar (or a line into a log) for
the games, then one line per epoch of the fit.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import functools
import importlib.util
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from mundus_net.bots.learned import WEIGHTS_FILE
from mundus_net.cli_args import positive_int
from mundus_net.rl.imitate import (
    TEACHERS,
    Sample,
    fit,
    phase_list,
    sample_from_row,
    sample_to_row,
)
from mundus_net.tools.games import Settings, TournamentError, play_one
from mundus_net.tools.progress import ProgressReport, duration
from mundus_net.tools.results import Row
from mundus_net.tools.tournament import run_dask, run_local

__all__ = ["DEFAULT_GAMES", "DEFAULT_SEED", "register", "teach_chunk", "teacher_settings",
           "train"]

DEFAULT_GAMES = 300
DEFAULT_SEED = 7001  # the shipped weights' (docs/rl.md); evaluated on other seeds
DEFAULT_JOBS = 2
DEFAULT_EPOCHS = 40
DEFAULT_HIDDEN = 32
DEFAULT_PHASES = "turn"  # where the search's choices proved learnable (docs/bots.md)
DEFAULT_TEMPERATURE = 0.02
TEACHER = "mundus_net.rl.imitate:Teacher"


def teacher_settings(seed: int, iterations: int | None = None,
                     phases: str = DEFAULT_PHASES) -> Settings:
    """The games of a training run: the teacher (the search bot, searching ``phases``,
    comma-separated, or ``all`` it searches) and three greedy bots."""
    spec = TEACHER if iterations is None else f"{TEACHER}:iterations={iterations}"
    spec += f":phases={','.join(phase_list(phases))}"
    return Settings((spec, "greedy", "greedy", "greedy"), 4, seed, time_limit=None,
                    strict=True, label="train")


def teach_chunk(settings: Settings, start: int, stop: int) -> list[Row]:
    """Games ``start`` to ``stop - 1`` (the unit of work of a worker), each row with the
    teacher's samples (``samples``, :func:`mundus_net.rl.imitate.sample_to_row`)."""
    rows = []
    for i in range(start, stop):
        TEACHERS.clear()
        row = play_one(settings, i)
        row["samples"] = [sample_to_row(s) for t in TEACHERS for s in t.samples]
        TEACHERS.clear()
        rows.append(row)
    return rows


def teach_from(first: int, settings: Settings, start: int, stop: int) -> list[Row]:
    """:func:`teach_chunk` of games ``first + start`` to ``first + stop - 1``."""
    return teach_chunk(settings, first + start, first + stop)


def play_teacher_games(settings: Settings, games: int, *, jobs: int = 1,
                       scheduler: str | None = None,
                       progress: ProgressReport | None = None, first: int = 0) -> list[Row]:
    """The rows of training games ``first`` to ``games - 1``, in game order (``progress``
    is told of those finished out of those)."""

    left = games - first

    def finished(done: int) -> None:
        if progress is not None:
            progress(done, left)

    work = functools.partial(teach_from, first)
    source = (run_dask(settings, left, scheduler, jobs, finished=finished, work=work)
              if scheduler else
              run_local(settings, left, jobs, finished=finished, work=work))
    rows: list[Row] = []
    for part in source:
        rows.extend(part)
    return rows


def train(games: int, seed: int, *, jobs: int = 1, scheduler: str | None = None,
          iterations: int | None = None, epochs: int = DEFAULT_EPOCHS,
          hidden: int = DEFAULT_HIDDEN, log: Any = None,
          samples_file: str | None = None, phases: str = DEFAULT_PHASES,
          temperature: float = DEFAULT_TEMPERATURE) -> dict[str, Any]:
    """Play the games, fit the network and return the weights file's JSON (its ``meta``:
    the settings and the figures). ``log``: a text stream for progress (None: quiet).
    ``samples_file``: the rows of the games already played by an earlier run with the same
    seed and iterations are read from it (game ``i`` is the same game in every run of a
    seed), only the others are played, and it is written with them all. ``phases``: the
    decision kinds the search searches and the network learns (comma-separated, or ``all``).
    ``temperature``: of the fit's targets (:func:`mundus_net.rl.imitate.fit`)."""
    if not temperature >= 0.0:
        raise ValueError(f"the temperature is 0 or more, not {temperature}")
    settings = teacher_settings(seed, iterations, phases)
    settings.check()
    learned = phase_list(phases)
    start = time.perf_counter()
    key: list[Any] = [seed, iterations, ",".join(learned)]
    kept = _read_rows(samples_file, key) if samples_file is not None else []
    rows = kept[:games]
    read = len(rows)
    report = ProgressReport(log, "train: games") if log is not None else None
    if rows and log is not None:
        log.write(f"train: {len(rows)} games read from {samples_file}\n")
    if len(rows) >= games:
        pass
    elif report is not None:
        with report.heartbeat():
            rows += play_teacher_games(settings, games, jobs=jobs, scheduler=scheduler,
                                       progress=report, first=len(rows))
    else:
        rows += play_teacher_games(settings, games, jobs=jobs, scheduler=scheduler,
                                   first=len(rows))
    if samples_file is not None and len(rows) > len(kept):
        Path(samples_file).write_text(json.dumps({"key": key, "rows": _encoded(rows)}),
                                      encoding="utf-8")
    played = time.perf_counter() - start
    samples: list[Sample] = [sample_from_row(s) for row in rows for s in row["samples"]]
    wins = sum(1.0 / len(row["winners"]) for row in rows
               if any(row["seating"][w] == 0 for w in row["winners"]))
    if log is not None:
        log.write(f"train: {games} games in {duration(played)}, {len(samples)} searched "
                  f"decisions; the search won {wins / games:.1%} of them\n")
        log.flush()

    def epoch_done(epoch: int, total: int, loss: float) -> None:
        if log is not None:
            log.write(f"train: fit epoch {epoch}/{total}, loss {loss:.4f}\n")
            log.flush()

    fitted = fit(samples, seed=seed, hidden=hidden, epochs=epochs, temperature=temperature,
                 progress=epoch_done)
    elapsed = time.perf_counter() - start
    data = dataclasses.replace(fitted.model, phases=learned).to_json()
    data["meta"] = {
        "command": _command(games, seed, iterations, epochs, hidden, phases, temperature),
        "games": games, "seed": seed, "teacher": settings.bots[0], "epochs": epochs,
        "hidden": hidden, "temperature": temperature, "decisions": len(samples),
        "held_out_decisions": fitted.held_out,
        "held_out_accuracy": _rounded(fitted.accuracy),
        "held_out_greedy_accuracy": _rounded(fitted.greedy_accuracy),
        "held_out_gain": _rounded(fitted.gain),
        "teacher_win_share": round(wins / games, 4),
        "games_read_from_samples": read,
    }
    if log is not None:
        log.write(f"train: done in {duration(elapsed)}; on {fitted.held_out} held-out "
                  f"decisions it chooses as the search did {fitted.accuracy:.1%} of the time "
                  f"(greedy's choice: {fitted.greedy_accuracy:.1%})\n")
        log.flush()
    return data


def _read_rows(path: str, key: list[Any]) -> list[Row]:
    """The rows saved in ``path`` by a run with the same ``key`` (none: no such file;
    ValueError if it is of other games)."""
    if not Path(path).exists():
        return []
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("key") != key:
        raise ValueError(f"{path} holds the samples of other games (seed, iterations "
                         f"{data.get('key') if isinstance(data, dict) else '?'}, not {key})")
    rows: list[Row] = data["rows"]
    for row in rows:
        for sample in row["samples"]:
            sample[1] = base64.b64decode(sample[1])
    return rows


def _encoded(rows: list[Row]) -> list[Row]:
    """The rows with each sample's features as base64 text (for JSON)."""
    return [{**row, "samples": [[p, base64.b64encode(f).decode(), c, v]
                                for p, f, c, v in row["samples"]]} for row in rows]


def _rounded(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


def _command(games: int, seed: int, iterations: int | None, epochs: int, hidden: int,
             phases: str = DEFAULT_PHASES, temperature: float = DEFAULT_TEMPERATURE) -> str:
    parts = ["mundus train", f"--games {games}", f"--seed {seed}"]
    if iterations is not None:
        parts.append(f"--iterations {iterations}")
    if phase_list(phases) != phase_list(DEFAULT_PHASES):
        parts.append(f"--phases {','.join(phase_list(phases))}")
    if temperature != DEFAULT_TEMPERATURE:
        parts.append(f"--temperature {temperature:g}")
    if epochs != DEFAULT_EPOCHS:
        parts.append(f"--epochs {epochs}")
    if hidden != DEFAULT_HIDDEN:
        parts.append(f"--hidden {hidden}")
    return " ".join(parts)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "train", help="train the learned bot again (imitation of the search bot)",
        description="Play games of the search bot against three greedy bots (through the "
                    "tournament's runner: --jobs, or --scheduler for a Dask cluster), fit "
                    "the learned bot's network to choose as the search did, and write its "
                    "weights. Needs numpy: pip install 'mundus-net[rl]'. docs/rl.md.")
    p.add_argument("--games", type=positive_int, default=DEFAULT_GAMES,
                   help=f"games to learn from (default {DEFAULT_GAMES})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"fixes the games and the fit (default {DEFAULT_SEED})")
    p.add_argument("--jobs", type=positive_int, default=DEFAULT_JOBS,
                   help=f"worker processes for the games (default {DEFAULT_JOBS}; the "
                        "weights are the same for any number)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="play the games on this Dask scheduler (pip install "
                        "'mundus-net[cluster]')")
    p.add_argument("--iterations", type=positive_int, default=None,
                   help="the search's determinizations per decision (default: search's)")
    p.add_argument("--epochs", type=positive_int, default=DEFAULT_EPOCHS,
                   help=f"passes over the samples (default {DEFAULT_EPOCHS})")
    p.add_argument("--hidden", type=positive_int, default=DEFAULT_HIDDEN,
                   help=f"units of the hidden layer (default {DEFAULT_HIDDEN})")
    p.add_argument("--phases", default=DEFAULT_PHASES, metavar="KINDS",
                   help="the decision kinds searched and learned, comma-separated, or all "
                        f"(default {DEFAULT_PHASES}; greedy plays the others)")
    p.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE,
                   help="0: learn the search's choice; above 0: the softmax of its "
                        "candidates' estimated shares of the win at this temperature "
                        f"(default {DEFAULT_TEMPERATURE:g})")
    p.add_argument("--samples", metavar="FILE", default=None,
                   help="keep the games' samples in FILE (JSON); a run with the same "
                        "seed reads the games it holds from it and plays only the others")
    p.add_argument("--out", default=WEIGHTS_FILE,
                   help=f"the weights file to write (default {WEIGHTS_FILE}; play it with "
                        "--strategy learned:weights=FILE)")
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("numpy") is None:
        print("mundus train: fitting needs numpy: pip install 'mundus-net[rl]'",
              file=sys.stderr)
        return 1
    try:
        data = train(args.games, args.seed, jobs=args.jobs, scheduler=args.scheduler,
                     iterations=args.iterations, epochs=args.epochs, hidden=args.hidden,
                     log=sys.stderr, samples_file=args.samples, phases=args.phases,
                     temperature=args.temperature)
        Path(args.out).write_text(json.dumps(data, separators=(",", ":")) + "\n",
                                  encoding="utf-8")
    except (TournamentError, OSError, ValueError) as exc:
        print(f"mundus train: {exc}", file=sys.stderr)
        return 1
    print(f"mundus train: wrote {args.out}; play it with "
          f"mundus play --strategy learned:weights={args.out}")
    return 0
