"""Standings: what the rows of a run of games add up to between the entries: openskill
ratings (and their history), the head-to-head of every pair, and the tournament's summary.
Read by ``mundus tournament`` (the printed table and ``--json``) and by ``mundus report`` (the
pictures); the rows come from :mod:`mundus_net.tools.games`.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from mundus_net.tools.games import Settings, design_games
from mundus_net.tools.referee import FAULT_KINDS
from mundus_net.tools.results import Row, cpu_figures, r6, tally, wilson

__all__ = ["always_faulted", "head_to_head", "rating_history", "ratings", "summarise"]


def rating_history(bots: int, rows: Iterable[Row]) -> Iterator[list[Any]]:
    """openskill Plackett-Luce ratings of each bot (``.mu``, ``.sigma``, ``.ordinal()``):
    at the start (the model's default, mu 25 and sigma 25/3) and after each game, rating its
    places in game order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = [model.rating(name=str(j)) for j in range(bots)]
    yield list(current)
    for row in rows:
        seats = row["seating"]
        rated = model.rate([[current[j]] for j in seats], ranks=list(row["places"]))
        for j, team in zip(seats, rated, strict=True):
            current[j] = team[0]
        yield list(current)


def ratings(bots: int, rows: Iterable[Row]) -> list[dict[str, float]]:
    """Each bot's rating after the last game (:func:`rating_history`)."""
    *_, last = rating_history(bots, rows)
    return [{"mu": r6(r.mu), "sigma": r6(r.sigma), "ordinal": r6(r.ordinal())} for r in last]


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
    """The tournament's summary from its rows (in game order): a JSON-ready dict in which
    only ``per_bot[j]["cpu_ms"]`` (the CPU time a decision) is measured: all else is the
    same bytes for the same games."""
    n_bots, players = len(settings.bots), settings.players
    counted = tally(n_bots, players, rows)
    played, wins, money, places = counted.played, counted.wins, counted.money, counted.places
    faults, seat_wins, seat_money = counted.faults, counted.seat_wins, counted.seat_money
    decisions = counted.decisions
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
            "rating": rating[j], "faults": faults[j], "decisions": decisions[j],
            "cpu_ms": cpu_figures(counted.cpu_ms[j]),
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
        "always_faulted": always_faulted(per_bot),
    }


def always_faulted(per_bot: Sequence[dict[str, Any]]) -> list[int]:
    """The entries that faulted in every decision they were asked (so their games were
    played by the default decision): a bot that does not work at all."""
    return [b["index"] for b in per_bot
            if b["decisions"] and sum(b["faults"].values()) >= b["decisions"]]

