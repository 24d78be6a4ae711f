"""Counting and printing what a run of games adds up to: one place for ``mundus sim`` and
``mundus tournament`` (the games themselves are played by
:func:`mundus_net.tools.games.play_one` for both), and the checks of their bot lists."""

from __future__ import annotations

import argparse
import math
import re
import statistics
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mundus_net.bots.base import load_bot, split_options
from mundus_net.cli_args import positive_int
from mundus_net.tools.referee import FAULT_KINDS

__all__ = [
    "REASONS", "Row", "Tally", "bot_list", "check_spec", "cpu_figures", "file_error",
    "player_count", "r6", "short_label", "speed_line", "table_lines", "tally", "wilson", "wrapped"
]

Row = dict[str, Any]
REASONS = ("perfect", "doubloons", "queue", "round_limit")
# How a game ended, in words that follow "ended" (R8.1, R8.2, R8.3, R8.5).

WIDTH = 80  # every line a person reads fits a terminal of 80 columns
_FINGERPRINT = re.compile(r"\b[0-9a-f]{4}(?: [0-9a-f]{4}){3}\b")  # "1a2b 3c4d 5e6f 7a8b"
_GLUE = "\xa0"  # no-break space: textwrap breaks at ASCII spaces only (as tournament.py)


def wrapped(text: str, indent: str = "  ", width: int = WIDTH) -> list[str]:
    """``text`` broken between words into lines of ``width`` columns, the lines after the
    first indented by ``indent``. A word longer than a line (a key, a path, a command) is not
    cut: it stands whole on a line of its own, to be copied; a fingerprint's four groups stay
    on one line."""
    glued = _FINGERPRINT.sub(lambda m: m[0].replace(" ", _GLUE), text)
    lines = textwrap.wrap(glued, width, subsequent_indent=indent, break_long_words=False,
                          break_on_hyphens=False)
    return [line.replace(_GLUE, " ") for line in lines] or [""]


def file_error(exc: OSError) -> str:
    """Why a file cannot be read, in plain words (for "mundus CMD: FILE: ...")."""
    if isinstance(exc, FileNotFoundError):
        return "there is no such file"
    if isinstance(exc, IsADirectoryError):
        return "it is a folder, not a file"
    if isinstance(exc, PermissionError):
        return "you are not allowed to read it (permission denied)"
    reason = exc.strerror or str(exc)
    return f"it cannot be read ({reason[:1].lower()}{reason[1:]})"


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a win rate ``wins / n``."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def cpu_figures(times_ms: Sequence[float]) -> dict[str, float] | None:
    """The mean and the 95th percentile of decisions' CPU times (ms), or None for none."""
    if not times_ms:
        return None
    p95 = statistics.quantiles(times_ms, n=20)[-1] if len(times_ms) > 1 else times_ms[0]
    return {"mean": round(statistics.fmean(times_ms), 3), "p95": round(p95, 3)}


def check_spec(spec: str) -> None:
    """Raise ValueError with a clear message if ``spec`` does not make a bot."""
    if not spec:
        raise ValueError("empty bot name in the bot list")
    try:
        load_bot(spec, 0)  # raises ValueError naming the bad spec
    except ValueError:
        raise
    except Exception as exc:  # a factory that fails: report it like a bad spec
        raise ValueError(f"cannot make bot {spec!r}: {type(exc).__name__}: {exc}") from None


def r6(x: float) -> float:
    return round(x, 6)


@dataclass
class Tally:
    """What a run of games adds up to, per bot (index into the bot list) and per seat: the
    one count behind both summaries (the tournament's and the sim's). A shared victory
    (R8.4) counts ``1/k`` of a win for each of the ``k`` winners."""

    played: list[int]
    wins: list[float]
    money: list[list[int]]  # each game's final doubloons
    places: list[int]  # summed
    faults: list[dict[str, int]]
    decisions: list[int]  # asked, summed (rows without the count add nothing)
    cpu_ms: list[list[float]]  # every decision's CPU time (rows without it add nothing)
    seat_wins: list[float]
    seat_money: list[int]
    reasons: dict[str, int]
    shared: int
    rounds: list[int]


def tally(bots: int, players: int, rows: Iterable[Row]) -> Tally:
    """Add up the rows (in game order, so float sums are the same bytes every time)."""
    t = Tally([0] * bots, [0.0] * bots, [[] for _ in range(bots)], [0] * bots,
              [dict.fromkeys(FAULT_KINDS, 0) for _ in range(bots)], [0] * bots,
              [[] for _ in range(bots)], [0.0] * players,
              [0] * players, dict.fromkeys(REASONS, 0), 0, [])
    for row in rows:
        winners = row["winners"]
        share = 1.0 / len(winners)
        t.shared += len(winners) > 1
        t.reasons[row["reason"]] = t.reasons.get(row["reason"], 0) + 1
        t.rounds.append(row["rounds"])
        for s, j in enumerate(row["seating"]):
            t.played[j] += 1
            t.money[j].append(row["doubloons"][s])
            t.places[j] += row["places"][s]
            t.seat_money[s] += row["doubloons"][s]
            if s in winners:
                t.wins[j] += share
                t.seat_wins[s] += share
            for kind, count in row["faults"][s].items():
                t.faults[j][kind] = t.faults[j].get(kind, 0) + count
            if row.get("decisions") is not None:
                t.decisions[j] += row["decisions"][s]
            if row.get("cpu_ms") is not None:
                t.cpu_ms[j].extend(row["cpu_ms"][s])
    return t


def player_count(text: str) -> int:
    value = positive_int(text)
    if not 2 <= value <= 6:
        raise argparse.ArgumentTypeError(f"a game has 2 to 6 players, not {value}")
    return value


def bot_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",")]


def table_lines(s: dict[str, Any]) -> list[str]:
    """The lines on seats, shared victories, rounds and ends of a summary (the sim's or a
    tournament's: both have these fields)."""
    seats = "  ".join(f"{p['seat']}: {p['win_rate']:.1%}" for p in s["per_seat"])
    ends = ", ".join(f"{k} {v}" for k, v in s["end_reasons"].items())
    return [f"win rate by seat: {seats}",
            f"shared victories: {s['shared_victories']} game(s); each of k tied winners "
            "counts 1/k of a win",
            f"rounds: mean {s['mean_rounds']:.2f} (min {s['min_rounds']}, "
            f"max {s['max_rounds']})",
            f"games ended by: {ends}"]


def speed_line(games: int, elapsed: float) -> str:
    return f"speed: {games / max(elapsed, 1e-9):.1f} games/s ({elapsed:.1f} s)"


def short_label(spec: str, width: int) -> str:
    """A bot's name for a table of ``width`` columns: the spec if it fits, else its strategy
    (a class name for ``module:Class`` and ``file.py:Class``) with its options, cut with …
    (the tables of mundus tournament and mundus sim)."""
    if len(spec) <= width:
        return spec
    base, _ = split_options(spec)
    short = base.rpartition(":")[2] + spec[len(base):]
    return short if len(short) <= width else short[:width - 1] + "…"
