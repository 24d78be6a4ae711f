"""``mundus sim``: play many games between bots in-process and summarise the results.

Game ``i`` of a run uses a game seed and bot seeds derived from ``--seed`` and ``i`` only, so
the same arguments give the same games and the same summary. With ``--rotate`` the seats
follow the tournament's balanced design (mundus_net.tools.games.seating): every bot
takes every seat, and every order around the table comes, equally often, which evens out the
first Trade Master's advantage. Shared victories (R8.4) count ``1/k`` of
a win for each of the ``k`` winners. docs/sim.md describes the output.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mundus_net.cli_args import add_deck_option, positive_int
from mundus_net.engine.deck import Deck, DeckError, load_deck
from mundus_net.tools.games import Settings, play_one
from mundus_net.tools.progress import Progress, ProgressReport
from mundus_net.tools.results import (
    bot_list,
    check_spec,
    player_count,
    r6,
    short_label,
    speed_line,
    table_lines,
    tally,
    wilson,
)

__all__ = ["check_bots", "format_summary", "register", "run_sim"]


def check_bots(players: int, bots: Sequence[str]) -> None:
    """Raise ValueError with a clear message if ``bots`` cannot fill ``players`` seats."""
    if not 2 <= players <= 6:
        raise ValueError(f"a game has 2 to 6 players, not {players}")
    if len(bots) != players:
        raise ValueError(f"{players} players need {players} bots, one per seat, "
                         f"but {len(bots)} were given ({','.join(bots) or 'none'})")
    for spec in bots:
        check_spec(spec)


def run_sim(players: int, bots: Sequence[str], games: int, seed: int = 0, *,
            promo: bool = False, round_limit: int | None = None,
            deck: Deck | str | Path | None = None, rotate: bool = False,
            progress: Progress | None = None,
            records: str | Path | None = None) -> dict[str, Any]:
    """Play ``games`` games and return the summary (a JSON-ready dict, deterministic: no
    timing in it). ``bots[j]`` is a strategy name or ``module:Class``; ``deck`` a Deck or a
    deck file path; with ``records`` a directory, game ``i``'s GameRecord JSON is written to
    ``records/game-00000i.json`` (docs/record.md). Raises ValueError for bad arguments
    (DeckError for a bad deck file)."""
    bots = list(bots)
    check_bots(players, bots)
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, not {games}")
    if round_limit is not None and round_limit < 1:
        raise ValueError(f"the round limit must be at least 1, not {round_limit}")
    if isinstance(deck, (str, Path)):
        deck = load_deck(deck)
    if records is not None:
        Path(records).mkdir(parents=True, exist_ok=True)

    # The tournament's game loop, in this process, strict: a failing bot stops the run.
    settings = Settings(tuple(bots), players, seed, round_limit, promo, time_limit=None,
                        records=None if records is None else str(records), rotate=rotate,
                        strict=True, deck=deck, label="sim")
    rows = []
    for i in range(games):
        rows.append(play_one(settings, i))
        if progress is not None:
            progress(i + 1, games)
    n = players
    counted = tally(n, n, rows)
    bot_wins, bot_places, seat_wins = counted.wins, counted.places, counted.seat_wins
    bot_money = [sum(money) for money in counted.money]
    seat_money, reasons, rounds = counted.seat_money, counted.reasons, counted.rounds
    shared = counted.shared

    per_bot = []
    for j, spec in enumerate(bots):
        lo, hi = wilson(bot_wins[j], games)
        per_bot.append({
            "index": j, "bot": spec, "wins": r6(bot_wins[j]),
            "win_rate": r6(bot_wins[j] / games), "win_rate_ci95": [r6(lo), r6(hi)],
            "mean_doubloons": r6(bot_money[j] / games), "mean_place": r6(bot_places[j] / games),
        })
    by_name: dict[str, dict[str, Any]] = {}
    for j, spec in enumerate(bots):
        entry = by_name.setdefault(spec, {"seats": 0, "wins": 0.0, "doubloons": 0})
        entry["seats"] += 1
        entry["wins"] += bot_wins[j]
        entry["doubloons"] += bot_money[j]
    names = {}
    for spec, entry in by_name.items():
        seat_games = entry["seats"] * games
        lo, hi = wilson(entry["wins"], seat_games)
        names[spec] = {
            "seats": entry["seats"], "wins": r6(entry["wins"]),
            "win_rate": r6(entry["wins"] / seat_games), "win_rate_ci95": [r6(lo), r6(hi)],
            "mean_doubloons": r6(entry["doubloons"] / seat_games),
        }
    per_seat = [{"seat": s, "wins": r6(seat_wins[s]), "win_rate": r6(seat_wins[s] / games),
                 "mean_doubloons": r6(seat_money[s] / games)} for s in range(n)]
    return {
        "players": n,
        "bots": bots,
        "games": games,
        "seed": seed,
        "rotate": rotate,
        "promo": promo,
        "round_limit": round_limit,
        "deck": deck.name if isinstance(deck, Deck) else "default",
        "shared_victories": shared,
        "per_bot": per_bot,
        "by_name": names,
        "per_seat": per_seat,
        "mean_rounds": r6(sum(rounds) / games),
        "min_rounds": min(rounds),
        "max_rounds": max(rounds),
        "end_reasons": reasons,
    }


# -- the command --------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sim",
        description="Play many games between bots in-process and summarise wins, doubloons, "
                    "rounds and how the games ended. Same arguments, same output.")
    parser.add_argument("--players", type=player_count, default=4, metavar="N",
                        help="players per game, 2-6 (default 4)")
    parser.add_argument("--bots", type=bot_list, default=None, metavar="LIST",
                        help="comma-separated bots, one per seat: strategy names "
                             "(random, greedy) or module:Class (default: greedy then random)")
    parser.add_argument("--games", type=positive_int, default=100, metavar="N",
                        help="number of games (default 100)")
    parser.add_argument("--seed", type=int, default=0,
                        help="master seed; game i's seeds derive from it and i (default 0)")
    parser.add_argument("--rotate", action="store_true",
                        help="move the bots one seat on after each game")
    parser.add_argument("--promo", action="store_true", help="play with the promo cards")
    parser.add_argument("--round-limit", type=positive_int, default=None, metavar="N",
                        help="end a game after N rounds (R8.5; default: no limit)")
    add_deck_option(parser)
    parser.add_argument("--json", action="store_true",
                        help="print the summary as one JSON object (no timing)")
    parser.add_argument("--records", metavar="DIR", default=None,
                        help="write each game's record to DIR/game-000042.json "
                             "(docs/record.md; `mundus replay` shows it)")
    parser.set_defaults(func=_main, sim_parser=parser)


def _main(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.sim_parser
    bots = args.bots if args.bots is not None else ["greedy"] + ["random"] * (args.players - 1)
    deck: Deck | None = None
    try:
        check_bots(args.players, bots)
        if args.deck is not None:
            deck = load_deck(args.deck)
    except (ValueError, DeckError) as exc:
        parser.error(str(exc))
    progress = ProgressReport(sys.stderr, "sim") if sys.stderr.isatty() else None
    start = time.perf_counter()
    summary = run_sim(args.players, bots, args.games, args.seed, promo=args.promo,
                      round_limit=args.round_limit, deck=deck, rotate=args.rotate,
                      progress=progress, records=args.records)
    elapsed = time.perf_counter() - start
    text = json.dumps(summary) if args.json else format_summary(summary, elapsed)
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head: not an error of the run
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps the exit quiet
    return 0


WIDTH = 80  # the human output's columns
NAME_ROOM = WIDTH - 3 - 9 - 2 - 24 - 10 - 8  # what the table's other columns leave a name


def _cut(name: str, width: int) -> str:
    """``name`` padded to ``width`` with a space at least after it: as the tournament's
    tables name an entry too long for them (its class, cut with …: results.short_label)."""
    return short_label(name, width - 1).ljust(width)


def format_summary(s: dict[str, Any], elapsed: float | None = None) -> str:
    """The human-readable form of a run_sim summary (with the speed if ``elapsed`` given)."""
    options = []
    if s["rotate"]:
        options.append("seats rotated")
    if s["promo"]:
        options.append("promo cards")
    if s["round_limit"] is not None:
        options.append(f"round limit {s['round_limit']}")
    if s["deck"] != "default":
        options.append(f"deck {s['deck']}")
    extra = f" ({', '.join(options)})" if options else ""
    # 80 columns: the first line broken between words, the bots' names column as wide as
    # the longest (a file-named bot's too) but the rows no wider than 80 (then cut, with …).
    lines = [*textwrap.wrap(f"{s['games']} games, {s['players']} players, seed {s['seed']}, "
                            f"bots {','.join(s['bots'])}{extra}", WIDTH,
                            subsequent_indent="  ", break_on_hyphens=False), ""]
    width = min(max(len(b["bot"]) for b in s["per_bot"]) + 2, NAME_ROOM)
    lines.append(f"{'bot':<{width + 3}}{'wins':>9}  {'win rate (95% CI)':<24}"
                 f"{'doubloons':>10}{'place':>8}")
    for b in s["per_bot"]:
        lo, hi = b["win_rate_ci95"]
        rate = f"{b['win_rate']:.1%} ({lo:.1%}-{hi:.1%})"
        lines.append(f"{b['index']:<3}{_cut(b['bot'], width)}{b['wins']:>9.2f}  {rate:<24}"
                     f"{b['mean_doubloons']:>10.1f}{b['mean_place']:>8.2f}")
    if len(s["by_name"]) < len(s["per_bot"]):
        lines.append("")
        lines.append("by strategy (win rate per seat played):")
        lines.append(f"   {'strategy':<{width}}{'wins':>9}  {'win rate (95% CI)':<24}"
                     f"{'doubloons':>10}{'seats':>8}")
        for name, e in s["by_name"].items():
            lo, hi = e["win_rate_ci95"]
            rate = f"{e['win_rate']:.1%} ({lo:.1%}-{hi:.1%})"
            lines.append(f"   {_cut(name, width)}{e['wins']:>9.2f}  {rate:<24}"
                         f"{e['mean_doubloons']:>10.1f}{e['seats']:>8}")
    lines.append("")
    lines += table_lines(s)
    if elapsed is not None:
        lines.append(speed_line(s["games"], elapsed))
    return "\n".join(lines)


