"""``mundus report RESULTS``: pictures of a game record or of tournament results.

- A game record (docs/record.md): the doubloons of every seat at the end of each round, read
  from the ``round_end`` events of the replayed game.
- Tournament results (``mundus tournament --json FILE``, docs/tournament.md): the win rate of
  each bot with its 95% confidence interval, and the distribution of its final doubloons
  (box plots, from the per-game rows). A ``mundus sim --json`` summary has no per-game rows:
  it gives the win rates only.

The figures are drawn with matplotlib's Agg canvas (no display needed) and saved as PNG or
SVG. matplotlib is an optional dependency (``pip install 'mundus-net[plots]'``), imported only
when a picture is drawn; reading the inputs (:func:`load_results`, :func:`record_series`,
:func:`tournament_stats`) needs nothing beyond the engine. docs/replay.md shows an example.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mundus_net.cli_args import add_deck_option
from mundus_net.engine.deck import Deck, DeckError, load_deck
from mundus_net.engine.game import REASON_WORDS, WIN_DOUBLOONS
from mundus_net.engine.record import FORMAT as RECORD_FORMAT
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.tools.results import file_error

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = ("png", "svg")
INSTALL_HINT = "pip install 'mundus-net[plots]' (or pip install matplotlib)"


class ReportError(ValueError):
    """An input that cannot be drawn; the message says why."""


class MissingMatplotlib(RuntimeError):
    """matplotlib is not installed."""


# -- reading the inputs -------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundSeries:
    """Every seat's doubloons at the start (round 0) and at the end of each round."""

    title: str
    names: list[str]
    rounds: list[int]
    doubloons: list[list[int]]  # per seat, one value per entry of ``rounds``
    winners: tuple[int, ...]
    reason: str | None
    # Where an unfinished game stops ("round 4, after decision 60"); None once it is over.
    unfinished: str | None = None


@dataclass(frozen=True)
class BotStats:
    """One tournament entry: its win rate, the 95% interval, its final doubloons per game."""

    label: str
    games: int
    win_rate: float
    ci95: tuple[float, float]
    doubloons: list[int]


@dataclass(frozen=True)
class Tournament:
    title: str
    players: int
    games: int
    bots: list[BotStats]


Results = GameRecord | Tournament


def _record_words(data: str | bytes) -> str:
    """The record loader's words for what ``data`` is (empty, cut short, a picture...)."""
    try:
        GameRecord.from_json(data)
    except RecordError as exc:
        return str(exc)
    return "it is not a game record"


def load_results(path: str | Path) -> Results:
    """A game record or tournament results, read from a JSON file (ReportError if neither;
    its message says in plain words what the file is instead)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReportError(file_error(exc)) from None
    try:
        text = raw.decode("utf-8")
        data = json.loads(text)
    except (ValueError, RecursionError):  # not UTF-8, or not JSON
        raise ReportError(_record_words(raw)) from None
    if isinstance(data, dict) and data.get("format") == RECORD_FORMAT:
        try:
            return GameRecord.from_json(text)
        except RecordError as exc:
            raise ReportError(str(exc)) from None
    if isinstance(data, dict) and ("summary" in data or "per_bot" in data):
        return tournament_stats(data)
    if isinstance(data, dict) and ("format" in data or "token" in data):
        raise ReportError(_record_words(text))  # another file of this program
    raise ReportError("it is neither a game record (docs/record.md) nor tournament results "
                      "(mundus tournament --json FILE, docs/tournament.md)")


def record_series(record: GameRecord, deck: Deck | None = None) -> RoundSeries:
    """Replay ``record`` and sample the doubloons at each ``round_end`` event."""
    game = record.replay(deck)  # RecordError if it does not replay
    names = [record.names[s] if s < len(record.names) and record.names[s] else
             f"Player {s + 1}" for s in range(game.players)]
    rounds = [0]
    money: list[list[int]] = [[0] for _ in range(game.players)]
    for event in game.log:
        if event.kind == "round_end":
            rounds.append(int(event.public["round"]))
            for seat, value in enumerate(event.public["doubloons"]):
                money[seat].append(int(value))
    result = game.result
    if result is not None and result.rounds != rounds[-1]:  # (an end outside round_end)
        rounds.append(result.rounds)
        for seat, value in enumerate(result.doubloons):
            money[seat].append(int(value))
    title = f"Game {record.game_id}: doubloons by round"
    unfinished = None if result is not None else (
        f"it stops in round {game.round}, after decision {len(record.decisions)}")
    return RoundSeries(title, names, rounds, money,
                       result.winners if result is not None else (),
                       result.reason if result is not None else None, unfinished)


def _field_words(exc: Exception) -> str:
    """``no "per_bot"`` for a missing key, else what was wrong with a value."""
    if isinstance(exc, KeyError) and exc.args:
        return f"no \"{exc.args[0]}\""
    return "a value of the wrong kind"


def _label(spec: str, index: int) -> str:
    """``3 greedy``; a ``module:Class`` or ``path.py:Class`` bot by its class name."""
    name = spec.rsplit(":", 1)[-1] if ":" in spec else spec
    return f"{index} {name}"


def tournament_stats(data: dict[str, Any]) -> Tournament:
    """Per entry: win rate, 95% interval and final doubloons, from ``{"summary", "games"}``
    (mundus tournament --json) or a bare summary (mundus sim --json: no doubloons)."""
    summary = data.get("summary", data)
    rows = (data.get("games") or []) if "summary" in data else []
    try:
        per_bot = summary["per_bot"]
        players = int(summary["players"])
        games = int(summary["games"])
        stats: list[BotStats] = []
        dists: dict[int, list[int]] = {int(b["index"]): [] for b in per_bot}
        for row in rows:
            for seat, entry in enumerate(row["seating"]):
                dists.setdefault(int(entry), []).append(int(row["doubloons"][seat]))
        for b in per_bot:
            index = int(b["index"])
            lo, hi = (float(x) for x in b["win_rate_ci95"])
            stats.append(BotStats(_label(str(b["bot"]), index), int(b.get("games", games)),
                                  float(b["win_rate"]), (lo, hi), dists.get(index, [])))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ReportError(f"it is damaged tournament results: a field is missing or "
                          f"malformed ({_field_words(exc)})") from None
    if not stats:
        raise ReportError("it is tournament results without any bot")
    seed = summary.get("seed")
    title = f"{games} games, {players} players" + (f", seed {seed}" if seed is not None else "")
    return Tournament(title, players, games, stats)


# -- drawing ------------------------------------------------------------------------------------


def _figure(width: float, height: float) -> Figure:
    """A Figure on matplotlib's Agg canvas (no display, no pyplot state)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingMatplotlib(f"drawing pictures needs matplotlib: {INSTALL_HINT}") from None
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: Path, fmt: str) -> Path:
    import matplotlib

    path.parent.mkdir(parents=True, exist_ok=True)
    # No date or random ids in the files: the same input gives the same picture.
    metadata: dict[str, Any] = {"Date": None} if fmt == "svg" else {"Software": None}
    with matplotlib.rc_context({"svg.hashsalt": "mundus-net"}):
        fig.savefig(path, format=fmt, metadata=metadata)
    return path


def _colour(index: int) -> str:
    return f"C{index % 10}"


def nice_axis(top: float, *, integer: bool = True, margin: float = 0.06) -> tuple[float, float]:
    """(upper limit, tick step) of an axis from 0 that shows values up to ``top`` with a
    margin above them: the step is 1, 2 or 5 times a power of ten (2.5 too when ``integer``
    is false or the step is at least 10), the limit the smallest multiple of a step that
    leaves 4 to 9 intervals."""
    target = max(top, 0.0) * (1 + margin) + (1 if integer else 0)
    target = max(target, 4.0 if integer else 1e-9)
    best: tuple[float, float] | None = None
    power = 10.0 ** math.floor(math.log10(target / 9))
    for scale in (power, power * 10):
        for m in (1, 2, 2.5, 5):
            step = m * scale
            if integer and (step < 1 or step != int(step)):
                continue
            intervals = math.ceil(target / step - 1e-9)
            if 4 <= intervals <= 9:
                upper = intervals * step
                if best is None or upper < best[0] or (upper == best[0] and step > best[1]):
                    best = (upper, step)
    if best is None:  # (not reached for positive targets)
        return (target, target / 4)
    return best


def _fit_y(ax: Any, top: float, *, integer: bool = True, margin: float = 0.06,
           ticks_to: float | None = None) -> float:
    """Set the y axis from 0 to a round value above ``top``, ticks on round values (none
    above ``ticks_to``); returns the upper limit."""
    from matplotlib.ticker import FixedLocator

    upper, step = nice_axis(top, integer=integer, margin=margin)
    ax.set_ylim(-0.015 * upper, upper)  # (a sliver below 0: markers at 0 are not cut)
    count = round(upper / step)
    ticks = [i * step for i in range(count + 1)]
    if ticks_to is not None:
        ticks = [t for t in ticks if t <= ticks_to + 1e-9]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    return upper


def _near_the_end(top: float) -> bool:
    """Whether values up to ``top`` come near the 75 doubloons that end a game (R8.2): only
    then is that line drawn (on a chart that stays far below it, it would squash the data)."""
    return top >= 0.8 * WIN_DOUBLOONS


def end_words(series: RoundSeries) -> str:
    """How the game ended, in words, for the picture's title (``ended at the round limit
    after 8 rounds``), or where an unfinished game stops; empty if neither is known."""
    if series.unfinished is not None:
        return f"not finished: {series.unfinished}"
    if series.reason is None:
        return ""
    rounds = series.rounds[-1]
    how = REASON_WORDS.get(series.reason, f"by {series.reason.replace('_', ' ')}")
    return f"ended {how} after {rounds} round{'s' if rounds != 1 else ''}"


def draw_record(series: RoundSeries, path: Path, fmt: str = "png") -> Path:
    """Doubloons per round, one line per seat, the winners' lines thicker."""
    fig = _figure(9, 4.5)
    ax = fig.subplots()
    for seat, name in enumerate(series.names):
        won = seat in series.winners
        ax.plot(series.rounds, series.doubloons[seat], marker="o", markersize=4,
                linewidth=2.6 if won else 1.4, color=_colour(seat),
                label=f"{name} ({series.doubloons[seat][-1]})" + (" — winner" if won else ""))
    top = max((max(values) for values in series.doubloons if values), default=0)
    if _near_the_end(top):
        ax.axhline(WIN_DOUBLOONS, color="0.5", linestyle="--", linewidth=1)
        ax.annotate(f"{WIN_DOUBLOONS}: the game ends (R8.2)",
                    (series.rounds[0], WIN_DOUBLOONS), xytext=(2, 3),
                    textcoords="offset points", fontsize=8, color="0.35")
        top = max(top, WIN_DOUBLOONS + 4)  # room for the line's label
    _fit_y(ax, top)
    ax.set_xticks(series.rounds)
    ax.set_xlabel("round (0: the start; values at the end of each round)")
    ax.set_ylabel("doubloons")
    end = end_words(series)
    ax.set_title(series.title + (f"\n{end}" if end else ""), fontsize=11)
    ax.grid(True, alpha=0.3)
    fig.legend(loc="outside right upper", fontsize=8, frameon=False,
               title="final doubloons" if series.unfinished is None else "doubloons so far",
               title_fontsize=8)
    return _save(fig, path, fmt)


def draw_win_rates(t: Tournament, path: Path, fmt: str = "png") -> Path:
    """Win rate per bot with its 95% interval as error bars; the even share dashed."""
    fig = _figure(max(5.0, 1.2 * len(t.bots) + 2), 4.2)
    ax = fig.subplots()
    x = list(range(len(t.bots)))
    rates = [100 * b.win_rate for b in t.bots]
    below = [100 * max(b.win_rate - b.ci95[0], 0.0) for b in t.bots]
    above = [100 * max(b.ci95[1] - b.win_rate, 0.0) for b in t.bots]
    ax.bar(x, rates, color=[_colour(i) for i in x], alpha=0.75, width=0.6)
    ax.errorbar(x, rates, yerr=[below, above], fmt="none", ecolor="black", capsize=6,
                linewidth=1.2)
    for i, b in enumerate(t.bots):
        ax.annotate(f"{rates[i]:.1f}%\n({100 * b.ci95[0]:.0f}-{100 * b.ci95[1]:.0f})",
                    (i, 100 * b.ci95[1]), xytext=(0, 4), textcoords="offset points",
                    ha="center", fontsize=8)
    even = 100 / t.players
    ax.axhline(even, color="0.5", linestyle="--", linewidth=1)
    ax.set_xlabel(f"bar: win rate · whiskers: 95% interval · dashed: the even share, "
                  f"{even:.0f}%", fontsize=8, color="0.35")
    ax.set_xticks(x, [b.label for b in t.bots])
    top = max([100 * b.ci95[1] for b in t.bots] + [even])
    # Room above the highest interval for its two-line label; no tick above 100%.
    _fit_y(ax, top, integer=False, margin=0.18, ticks_to=100)
    ax.set_ylabel("win rate (%), 95% interval")
    ax.set_title(f"Win rate per bot ({t.title})", fontsize=11)
    ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, path, fmt)


def draw_doubloons(t: Tournament, path: Path, fmt: str = "png") -> Path:
    """Final doubloons per bot: box plots (quartiles, whiskers at 1.5 IQR, the mean a
    triangle), the winning line dashed."""
    bots = [b for b in t.bots if b.doubloons]
    fig = _figure(max(5.0, 1.2 * len(bots) + 2), 4.2)
    ax = fig.subplots()
    x = list(range(1, len(bots) + 1))
    boxes = ax.boxplot([b.doubloons for b in bots], positions=x, widths=0.55,
                       showmeans=True, patch_artist=True,
                       medianprops={"color": "black", "linewidth": 1.5},
                       meanprops={"marker": "^", "markerfacecolor": "white",
                                  "markeredgecolor": "black"})
    for i, patch in enumerate(boxes["boxes"]):
        patch.set_facecolor(_colour(t.bots.index(bots[i])))
        patch.set_alpha(0.6)
    top = max(max(b.doubloons) for b in bots)
    near = _near_the_end(top)
    if near:
        ax.axhline(WIN_DOUBLOONS, color="0.5", linestyle="--", linewidth=1)
        top = max(top, WIN_DOUBLOONS)
    _fit_y(ax, top)
    ax.set_xticks(x, [f"{b.label}\n(n={len(b.doubloons)})" for b in bots])
    ax.set_ylabel("final doubloons")
    ax.set_xlabel("box: middle half of the games · line: median · triangle: mean"
                  + (f" · dashed: {WIN_DOUBLOONS}" if near else ""),
                  fontsize=8, color="0.35")
    ax.set_title(f"Final doubloons per bot ({t.title})", fontsize=11)
    ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, path, fmt)


def report(results: Results, out: Path, stem: str, fmt: str = "png",
           deck: Deck | None = None) -> tuple[list[Path], list[str]]:
    """Draw the pictures of one input; (the files written, notes about what was left out).
    Raises ReportError, RecordError, MissingMatplotlib."""
    if fmt not in FORMATS:
        raise ReportError(f"unknown format {fmt!r} (png or svg)")
    if isinstance(results, GameRecord):
        series = record_series(results, deck)
        notes = [] if series.unfinished is None else [
            f"the game did not finish ({series.unfinished}): the picture shows it up to "
            "there"]
        return [draw_record(series, out / f"{stem}-doubloons-by-round.{fmt}", fmt)], notes
    paths = [draw_win_rates(results, out / f"{stem}-win-rates.{fmt}", fmt)]
    notes = []
    if any(b.doubloons for b in results.bots):
        paths.append(draw_doubloons(results, out / f"{stem}-doubloons.{fmt}", fmt))
    else:
        notes.append("no per-game rows (a summary only): no doubloon distribution; "
                     "mundus tournament --json FILE writes them")
    return paths, notes


# -- the command --------------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "report",
        description="Draw pictures as PNG or SVG files: for a game record, every seat's "
                    "doubloons by round; for tournament results (mundus tournament --json), "
                    "win rates with 95% intervals and final doubloons per bot. Prints the "
                    f"paths written. Needs matplotlib: {INSTALL_HINT} (docs/replay.md).")
    p.add_argument("results", nargs="+", metavar="RESULTS",
                   help="a game record or a tournament --json file (several may be given)")
    p.add_argument("--out", metavar="DIR", default=".",
                   help="directory for the pictures (default: the current directory)")
    p.add_argument("--format", choices=FORMATS, default="png", help="png (default) or svg")
    add_deck_option(p, recorded=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return main(args.results, Path(args.out), args.format, args.deck)


def main(files: Sequence[str], out: Path, fmt: str = "png", deck_path: str | None = None) -> int:
    try:
        deck = load_deck(deck_path) if deck_path is not None else None
    except DeckError as exc:
        print(f"mundus report: --deck: {exc}", file=sys.stderr)
        return 2
    loaded: list[tuple[str, Results]] = []
    for name in files:
        try:
            loaded.append((name, load_results(name)))
        except ReportError as exc:
            print(f"mundus report: {name}: {exc}", file=sys.stderr)
            return 2
    for name, results in loaded:
        try:
            paths, notes = report(results, out, Path(name).stem, fmt, deck)
        except (ReportError, RecordError) as exc:
            print(f"mundus report: {name}: {exc}", file=sys.stderr)
            return 2
        except MissingMatplotlib as exc:
            print(f"mundus report: {exc}", file=sys.stderr)
            return 1
        for note in notes:
            print(f"mundus report: {name}: {note}", file=sys.stderr)
        for path in paths:
            print(path)
    return 0
