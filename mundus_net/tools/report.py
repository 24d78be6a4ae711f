"""``mundus report RESULTS``: pictures of a game record, of tournament results, of a folder of
records, or of several tournaments side by side (docs/report.md).

- A game record (docs/record.md): the doubloons of every seat at the end of each round, read
  from the ``round_end`` events of the replayed game.
- Tournament results (``mundus tournament --json FILE``, docs/tournament.md): the win rate of
  each entry with its 95% interval, its final doubloons (box plots), the head-to-head matrix,
  the win rate pooled by strategy, the openskill rating after each game, the win rate by seat
  and how long games lasted and how they ended. A ``mundus sim --json`` summary has no
  per-game rows: it gives what its summary holds (win rates, by strategy, by seat).
- A folder of records (``mundus tournament --records DIR``): each entry's mean doubloons at the
  end of each round with a 95% band, and the game lengths and ends.
- A game's review (``mundus review RECORD --json FILE``, docs/review.md): every reviewed
  seat's estimated share of the win after each of its decisions, the labelled ones marked.
- Several tournament files with ``--overlay``: their win rates and rating progress in one
  picture each.

The figures are drawn with matplotlib's Agg canvas (no display needed) and saved as PNG or
SVG. matplotlib is an optional dependency (``pip install 'mundus-net[plots]'``), imported only
when a picture is drawn. This module draws; reading the inputs into numbers
(:mod:`mundus_net.tools.report_data`) needs nothing beyond the engine.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mundus_net.bots.review import LABELS, GameReview
from mundus_net.cli_args import add_deck_option
from mundus_net.engine.deck import Deck, DeckError, load_deck
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import REASON_WORDS, WIN_DOUBLOONS
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.tools.progress import ProgressReport
from mundus_net.tools.report_data import (
    BotStats,
    Rate,
    RatingProgress,
    RecordFolder,
    ReportError,
    Results,
    RoundSeries,
    Tournament,
    head_to_head_matrix,
    load_folder,
    load_results,
    rating_progress,
    record_series,
    round_means,
    seat_stats,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "BANDS_UP_TO", "FORMATS", "INSTALL_HINT", "MissingMatplotlib", "draw_doubloons",
    "draw_game_lengths", "draw_head_to_head", "draw_overlay_ratings", "draw_overlay_win_rates",
    "draw_ratings", "draw_record", "draw_review", "draw_round_means", "draw_seats",
    "draw_strategies", "draw_win_rates", "end_words", "main", "nice_axis", "overlay_report",
    "register", "report", "run"
]

FORMATS = ("png", "svg")
INSTALL_HINT = "pip install 'mundus-net[plots]' (or pip install matplotlib)"
BANDS_UP_TO = 5  # entries in a rating picture up to which their ± sigma bands stay legible


class MissingMatplotlib(MundusError, RuntimeError):
    """matplotlib is not installed."""


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


REVIEW_MARKS = {"blunder": "X", "mistake": "D", "inaccuracy": "o"}  # largest first


def draw_review(review: GameReview, path: Path, fmt: str = "png") -> Path:
    """Each reviewed seat's estimated share of the win after its decisions (the decision's
    number in the record on x), one line per seat; labelled decisions marked."""
    fig = _figure(9, 4.5)
    ax = fig.subplots()
    for seat in review.seats:
        mine = review.of_seat(seat)
        colour = _colour(seat)
        ax.plot([r.index + 1 for r in mine], [100 * r.played_share for r in mine],
                linewidth=1.4, color=colour, label=review.names[seat])
        for name, _ in LABELS:
            marked = [r for r in mine if r.label == name]
            if marked:
                ax.scatter([r.index + 1 for r in marked], [100 * r.played_share for r in marked],
                           marker=REVIEW_MARKS[name], s=28, color=colour, zorder=3)
    for name, _ in LABELS:  # one legend entry per label, in grey
        ax.scatter([], [], marker=REVIEW_MARKS[name], s=28, color="0.4", label=name)
    ax.axhline(100 / max(review.players, 1), color="0.5", linestyle="--", linewidth=1)
    ax.set_ylim(0, 100)
    ax.set_xlabel("decision (its number in the record)")
    ax.set_ylabel("estimated share of the win (%)")
    ax.set_title(f"Game {review.game}: each seat's share of the win after its decisions, "
                 f"from its own view\n(mundus review, seed {review.seed}, {review.iterations} "
                 "deals a decision; dashed: an equal share)", fontsize=11)
    ax.grid(True, alpha=0.3)
    fig.legend(loc="outside right upper", fontsize=8, frameon=False)
    return _save(fig, path, fmt)


def _rate_bars(ax: Axes, labels: list[str], rates: Sequence[Rate | BotStats],
               colours: list[str], even: float | None) -> None:
    """Bars of win rates (%) with their 95% intervals as whiskers and labelled, the even
    share dashed; the y axis fits the intervals."""
    x = list(range(len(rates)))
    values = [100 * r.win_rate for r in rates]
    below = [100 * max(r.win_rate - r.ci95[0], 0.0) for r in rates]
    above = [100 * max(r.ci95[1] - r.win_rate, 0.0) for r in rates]
    ax.bar(x, values, color=colours, alpha=0.75, width=0.6)
    ax.errorbar(x, values, yerr=[below, above], fmt="none", ecolor="black", capsize=6,
                linewidth=1.2)
    for i, r in enumerate(rates):
        ax.annotate(f"{values[i]:.1f}%\n({100 * r.ci95[0]:.0f}-{100 * r.ci95[1]:.0f})",
                    (i, 100 * r.ci95[1]), xytext=(0, 4), textcoords="offset points",
                    ha="center", fontsize=8)
    note = "bar: win rate · whiskers: 95% interval"
    if even is not None:
        ax.axhline(100 * even, color="0.5", linestyle="--", linewidth=1)
        note += f" · dashed: the even share, {100 * even:.0f}%"
    ax.set_xlabel(note, fontsize=8, color="0.35")
    ax.set_xticks(x, labels)
    top = max([100 * r.ci95[1] for r in rates] + [100 * (even or 0)])
    # Room above the highest interval for its two-line label; no tick above 100%.
    _fit_y(ax, top, integer=False, margin=0.18, ticks_to=100)
    ax.set_ylabel("win rate (%), 95% interval")
    ax.grid(True, axis="y", alpha=0.3)


def draw_win_rates(t: Tournament, path: Path, fmt: str = "png") -> Path:
    """Win rate per bot with its 95% interval as error bars; the even share dashed."""
    fig = _figure(max(5.0, 1.2 * len(t.bots) + 2), 4.2)
    ax = fig.subplots()
    _rate_bars(ax, [b.label for b in t.bots], t.bots,
               [_colour(i) for i in range(len(t.bots))], 1 / t.players)
    ax.set_title(f"Win rate per bot ({t.title})", fontsize=11)
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


def draw_head_to_head(t: Tournament, path: Path, fmt: str = "png") -> Path:
    """The head-to-head matrix as a heatmap: each cell how often the row finished ahead of
    the column (blue: ahead, red: behind), its mean doubloon margin and the games they met
    in; pairs that never met grey."""
    import matplotlib
    from matplotlib.patches import Rectangle
    from matplotlib.ticker import PercentFormatter

    matrix = head_to_head_matrix(t)
    n = len(matrix)
    side = max(4.5, 0.95 * n + 2.2)
    fig = _figure(side + 1.4, side)
    ax = fig.subplots()
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="0.85")
    values = [[c.rate if c is not None and c.games else math.nan for c in row]
              for row in matrix]
    image = ax.imshow(values, cmap=cmap, vmin=0, vmax=1)
    size = 10 if n <= 5 else 9 if n <= 7 else 8
    for a, row in enumerate(matrix):
        for b, c in enumerate(row):
            if c is None:
                ax.add_patch(Rectangle((b - 0.5, a - 0.5), 1, 1, facecolor="white"))
                ax.text(b, a, "—", ha="center", va="center", color="0.6", fontsize=size)
            elif not c.games:
                ax.text(b, a, "never\nmet", ha="center", va="center", color="0.3",
                        fontsize=size)
            else:
                ink = "white" if abs(c.rate - 0.5) > 0.3 else "black"  # legible on dark
                ax.text(b, a, f"{100 * c.rate:.0f}%", ha="center", va="bottom",
                        color=ink, fontsize=size + 1, fontweight="bold")
                margin = f"{c.margin:+.1f}" if round(c.margin, 1) else "0.0"  # not -0.0
                games = f"{c.games} game{'s' if c.games != 1 else ''}"
                ax.text(b, a, f"{margin}\n({games})", ha="center",
                        va="top", color=ink, fontsize=size - 1, linespacing=1.1)
    labels = [b.label for b in t.bots]
    ax.set_xticks(range(n), labels, rotation=30 if n > 4 else 0,
                  ha="right" if n > 4 else "center")
    ax.set_yticks(range(n), labels)
    ax.set_xticks([i - 0.5 for i in range(1, n)], minor=True)
    ax.set_yticks([i - 0.5 for i in range(1, n)], minor=True)
    ax.grid(which="minor", color="white", linewidth=2)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("against (column)")
    ax.set_ylabel("row")
    bar = fig.colorbar(image, ax=ax, shrink=0.8, format=PercentFormatter(1.0))
    bar.set_label("row finished ahead of column")
    ax.set_title(f"Head to head ({t.title})\ncell: row ahead of column (a tie counts a half) · "
                 "row's mean doubloon margin · games met", fontsize=10)
    return _save(fig, path, fmt)


def draw_strategies(t: Tournament, path: Path, fmt: str = "png") -> Path:
    """Win rate pooled by strategy (all entries of the same bot) with its 95% interval."""
    rates = t.strategies
    fig = _figure(max(5.0, 1.5 * len(rates) + 2), 4.2)
    ax = fig.subplots()
    labels = [f"{r.label}\n{r.entries} entr{'y' if r.entries == 1 else 'ies'}, "
              f"{r.games} games" + (f"\nmean {r.mean_doubloons:.1f} doubloons"
                                    if r.mean_doubloons is not None else "") for r in rates]
    _rate_bars(ax, labels, rates, [_colour(i) for i in range(len(rates))], 1 / t.players)
    ax.set_title(f"Win rate by strategy, its entries pooled\n({t.title})", fontsize=11)
    return _save(fig, path, fmt)


def draw_seats(t: Tournament, path: Path, fmt: str = "png") -> Path:
    """Win rate of each seat (0 plays first in round 1) with its Wilson 95% interval."""
    seats = seat_stats(t)
    fig = _figure(max(5.0, 1.1 * len(seats) + 2), 4.2)
    ax = fig.subplots()
    _rate_bars(ax, [f"{s.label}\n({s.games} games)" for s in seats], seats,
               ["0.55"] * len(seats), 1 / t.players)
    ax.set_title(f"Win rate by seat, whoever sat there\n({t.title})", fontsize=11)
    return _save(fig, path, fmt)


def _rating_lines(ax: Axes, progress: RatingProgress, entry: int, colour: str,
                  label: str, *, band: bool = True) -> None:
    """One entry's mu after each game as steps, mu ± sigma shaded."""
    x = list(range(len(progress.mu[entry])))
    mu, sigma = progress.mu[entry], progress.sigma[entry]
    ax.plot(x, mu, drawstyle="steps-post", color=colour, linewidth=1.6, label=label)
    if band:
        ax.fill_between(x, [m - s for m, s in zip(mu, sigma, strict=True)],
                        [m + s for m, s in zip(mu, sigma, strict=True)], step="post",
                        color=colour, alpha=0.13, linewidth=0)


def draw_ratings(t: Tournament, path: Path, fmt: str = "png") -> Path:
    """Every entry's openskill rating after each game: mu as a line, ± sigma shaded; the
    legend gives the final mu, sigma and ordinal (mu - 3 sigma)."""
    from matplotlib.ticker import MaxNLocator

    progress = rating_progress(len(t.bots), t.rows)
    band = len(t.bots) <= BANDS_UP_TO
    fig = _figure(10, 4.8)
    ax = fig.subplots()
    for j, b in enumerate(t.bots):
        mu, sigma = progress.mu[j][-1], progress.sigma[j][-1]
        _rating_lines(ax, progress, j, _colour(j),
                      f"{b.label}: {mu:.1f} ± {sigma:.1f}, ordinal {mu - 3 * sigma:.1f}",
                      band=band)
    ax.axhline(progress.mu[0][0], color="0.5", linestyle=":", linewidth=1)
    ax.set_xlim(0, len(t.rows))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("games played (in game order; dotted: the starting mu)")
    ax.set_ylabel("openskill mu (band: ± sigma)" if band else
                  f"openskill mu (no ± sigma bands: more than {BANDS_UP_TO} entries)")
    ax.set_title(f"Rating after each game, openskill Plackett-Luce ({t.title})", fontsize=11)
    ax.grid(True, alpha=0.3)
    fig.legend(loc="outside right upper", fontsize=8, frameon=False,
               title="final mu ± sigma, ordinal", title_fontsize=8)
    return _save(fig, path, fmt)


def draw_game_lengths(title: str, lengths: Sequence[int], reasons: Sequence[str], path: Path,
                      fmt: str = "png") -> Path:
    """Two panels: how many rounds the games lasted (a histogram, the mean dashed) and how
    they ended (every way of ending, counted)."""
    from matplotlib.ticker import MaxNLocator

    fig = _figure(11, 4.2)
    left, right = fig.subplots(1, 2, width_ratios=[1.3, 1])
    lo, hi = min(lengths), max(lengths)
    left.hist(lengths, bins=[r - 0.5 for r in range(lo, hi + 2)], color="C0", alpha=0.75,
              rwidth=0.85)
    mean = statistics.fmean(lengths)
    left.axvline(mean, color="black", linestyle="--", linewidth=1, label=f"mean {mean:.1f}")
    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    left.yaxis.set_major_locator(MaxNLocator(integer=True))
    left.set_xlabel("rounds")
    left.set_ylabel("games")
    left.set_title(f"Game length ({len(lengths)} games: {lo} to {hi} rounds)", fontsize=10)
    left.legend(fontsize=8, frameon=False, loc="upper right")
    left.grid(True, axis="y", alpha=0.3)
    counts = Counter(reasons)
    kinds = list(REASON_WORDS) + sorted(k for k in counts if k not in REASON_WORDS)
    words = [REASON_WORDS.get(k, f"by {k.replace('_', ' ')}") for k in kinds]
    y = list(range(len(kinds)))
    right.barh(y, [counts[k] for k in kinds], color="C2", alpha=0.75, height=0.6)
    total = max(len(reasons), 1)
    for i, k in enumerate(kinds):
        right.annotate(f"{counts[k]} ({100 * counts[k] / total:.0f}%)", (counts[k], i),
                       xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)
    right.set_yticks(y, [f"ended {w}" for w in words], fontsize=8)
    right.invert_yaxis()
    right.set_xlim(0, max(counts.values()) * 1.3)  # room for the counts
    right.xaxis.set_major_locator(MaxNLocator(integer=True))
    right.set_xlabel("games")
    right.set_title("How the games ended", fontsize=10)
    right.grid(True, axis="x", alpha=0.3)
    fig.suptitle(title, fontsize=11)
    return _save(fig, path, fmt)


def draw_round_means(folder: RecordFolder, path: Path, fmt: str = "png") -> Path:
    """Each entry's mean doubloons at the end of each round with its 95% band (over the games
    still going: rounds reached by at least 2 of its games); below, how many games were still
    going."""
    from matplotlib.ticker import MaxNLocator

    fig = _figure(10, 6)
    top_ax, count_ax = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    top = 0.0
    for i, entry in enumerate(folder.entries):
        means = [m for m in round_means(entry) if m.games >= 2 or len(entry.games) == 1]
        x = [m.round for m in means]
        y = [m.mean for m in means]
        top_ax.plot(x, y, marker="o", markersize=3, color=_colour(i), linewidth=1.6,
                    label=f"{entry.label} ({len(entry.games)} games)")
        top_ax.fill_between(x, [max(m.mean - m.half, 0.0) for m in means],
                            [m.mean + m.half for m in means], color=_colour(i), alpha=0.15,
                            linewidth=0)
        top = max([top] + [m.mean + m.half for m in means])
    if _near_the_end(top):
        top_ax.axhline(WIN_DOUBLOONS, color="0.5", linestyle="--", linewidth=1)
        top = max(top, WIN_DOUBLOONS)
    _fit_y(top_ax, top)
    top_ax.set_ylabel("mean doubloons (band: 95%)")
    top_ax.grid(True, alpha=0.3)
    top_ax.set_title(f"Mean doubloons at the end of each round ({folder.records} games in "
                     f"{folder.title})\nover the games still going in that round; a game "
                     "that has ended no longer counts", fontsize=10)
    last = max(folder.reached)
    going = [sum(1 for r in folder.reached if r >= k) for k in range(last + 1)]
    count_ax.bar(range(last + 1), going, color="0.6", width=0.7)
    count_ax.set_ylabel("games going", fontsize=9)
    count_ax.set_xlabel("round (0: the start)")
    count_ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    count_ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4))
    count_ax.grid(True, axis="y", alpha=0.3)
    fig.legend(loc="outside right upper", fontsize=8, frameon=False, title="entry",
               title_fontsize=8)
    return _save(fig, path, fmt)


def _run_names(names: Sequence[str]) -> list[str]:
    """Each run's name in a legend: the file's stem, or its path when stems repeat."""
    stems = [Path(n).stem for n in names]
    return [str(Path(n).with_suffix("")) if stems.count(s) > 1 else s
            for n, s in zip(names, stems, strict=True)]


def draw_overlay_win_rates(runs: Sequence[tuple[str, Tournament]], path: Path,
                           fmt: str = "png") -> Path:
    """The win rates of several runs side by side: per entry label a point with its 95%
    interval for each run (one colour per run); the even share of each table size dashed."""
    labels: list[str] = []
    for _, t in runs:
        labels += [b.label for b in t.bots if b.label not in labels]
    fig = _figure(min(14.0, max(6.0, (0.9 + 0.3 * len(runs)) * len(labels) + 2)), 4.6)
    ax = fig.subplots()
    width = 0.8 / len(runs)
    top = 0.0
    for r, (name, t) in enumerate(runs):
        offset = (r - (len(runs) - 1) / 2) * width
        at = {b.label: b for b in t.bots}
        x = [i + offset for i, label in enumerate(labels) if label in at]
        bots = [at[label] for label in labels if label in at]
        values = [100 * b.win_rate for b in bots]
        ax.errorbar(x, values, yerr=[[100 * max(b.win_rate - b.ci95[0], 0) for b in bots],
                                     [100 * max(b.ci95[1] - b.win_rate, 0) for b in bots]],
                    fmt="o", color=_colour(r), capsize=4, markersize=5, linewidth=1.4,
                    label=f"{name} ({t.title})")
        for xi, b, v in zip(x, bots, values, strict=True):
            ax.annotate(f"{v:.0f}%", (xi, 100 * b.ci95[1]), xytext=(0, 3),
                        textcoords="offset points", ha="center", fontsize=7,
                        color=_colour(r), bbox={"facecolor": "white", "edgecolor": "none",
                                                "pad": 0.5, "alpha": 0.8})
        top = max([top] + [100 * b.ci95[1] for b in bots])
    shares = sorted({t.players for _, t in runs})
    for players in shares:
        ax.axhline(100 / players, color="0.5", linestyle="--", linewidth=1)
    top = max(top, 100 / min(shares))
    _fit_y(ax, top, integer=False, margin=0.12, ticks_to=100)
    ax.set_xticks(range(len(labels)), labels)
    for i in range(1, len(labels)):
        ax.axvline(i - 0.5, color="0.9", linewidth=1)
    ax.set_ylabel("win rate (%), 95% interval")
    ax.set_xlabel("point: win rate · whiskers: 95% interval · dashed: the even share ("
                  + ", ".join(f"{100 / p:.0f}% for {p} players" for p in shares) + ")",
                  fontsize=8, color="0.35")
    ax.set_title(f"Win rate per entry, {len(runs)} runs compared", fontsize=11)
    ax.grid(True, axis="y", alpha=0.3)
    fig.legend(loc="outside lower center", fontsize=8, frameon=False,
               ncols=min(len(runs), 3))
    return _save(fig, path, fmt)


def draw_overlay_ratings(runs: Sequence[tuple[str, Tournament]], path: Path,
                         fmt: str = "png") -> Path:
    """One panel per entry label: its openskill mu (± sigma shaded) after each game in every
    run that has it, one colour per run; all panels on the same axes."""
    from matplotlib.lines import Line2D

    labels: list[str] = []
    for _, t in runs:
        labels += [b.label for b in t.bots if b.label not in labels]
    cols = min(3, len(labels))
    rows = math.ceil(len(labels) / cols)
    fig = _figure(3.6 * cols + 1, 2.6 * rows + 1.2)
    grid = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False)
    progress = [rating_progress(len(t.bots), t.rows) for _, t in runs]
    for k, label in enumerate(labels):
        ax = grid[k // cols][k % cols]
        for r, (name, t) in enumerate(runs):
            index = [b.label for b in t.bots]
            if label in index:
                _rating_lines(ax, progress[r], index.index(label), _colour(r), name)
        ax.axhline(progress[0].mu[0][0], color="0.5", linestyle=":", linewidth=1)
        ax.set_title(label, fontsize=9)
        ax.grid(True, alpha=0.3)
    for k in range(len(labels), rows * cols):
        grid[k // cols][k % cols].set_visible(False)
    for ax in grid[-1]:
        ax.set_xlabel("games played", fontsize=8)
    for row in grid:
        row[0].set_ylabel("mu (± sigma)", fontsize=8)
    fig.suptitle(f"Rating after each game, openskill Plackett-Luce, {len(runs)} runs compared"
                 " (dotted: the starting mu)", fontsize=11)
    # One legend entry per run, whichever panels it is in.
    handles = [Line2D([], [], color=_colour(r), linewidth=1.6, label=name)
               for r, (name, _) in enumerate(runs)]
    fig.legend(handles=handles, loc="outside lower center", fontsize=8, frameon=False,
               ncols=min(len(runs), 4))
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
    if isinstance(results, GameReview):
        return [draw_review(results, out / f"{stem}-win-shares.{fmt}", fmt)], []
    if isinstance(results, RecordFolder):
        paths = [draw_round_means(results, out / f"{stem}-doubloons-by-round.{fmt}", fmt)]
        if results.lengths:
            paths.append(draw_game_lengths(
                f"Game lengths and ends ({len(results.lengths)} finished games in "
                f"{results.title})", results.lengths,
                results.reasons, out / f"{stem}-game-lengths.{fmt}", fmt))
        return paths, []
    t = results
    paths = [draw_win_rates(t, out / f"{stem}-win-rates.{fmt}", fmt)]
    notes = []
    if t.rows:
        paths.append(draw_doubloons(t, out / f"{stem}-doubloons.{fmt}", fmt))
    if t.pairs is not None and len(t.bots) > 1:
        paths.append(draw_head_to_head(t, out / f"{stem}-head-to-head.{fmt}", fmt))
    # Only when some strategy has several entries: else it would repeat the win rates.
    if t.strategies and len(t.strategies) < len(t.bots):
        paths.append(draw_strategies(t, out / f"{stem}-by-strategy.{fmt}", fmt))
    if t.rows:
        paths.append(draw_ratings(t, out / f"{stem}-ratings.{fmt}", fmt))
    if t.rows or t.seat_wins:
        paths.append(draw_seats(t, out / f"{stem}-by-seat.{fmt}", fmt))
    if t.rows:
        paths.append(draw_game_lengths(f"Game lengths and ends ({t.title})",
                                       [r.rounds for r in t.rows], [r.reason for r in t.rows],
                                       out / f"{stem}-game-lengths.{fmt}", fmt))
    else:
        notes.append("no per-game rows (a summary only): no doubloon distribution, "
                     + ("" if t.pairs is not None else "head-to-head matrix, ")
                     + "rating progress or game lengths; mundus tournament --json FILE "
                       "writes them")
    return paths, notes


def overlay_report(runs: Sequence[tuple[str, Tournament]], out: Path, fmt: str = "png"
                   ) -> tuple[list[Path], list[str]]:
    """The pictures comparing several tournament runs (named by their files); (the files
    written, notes about what was left out)."""
    if fmt not in FORMATS:
        raise ReportError(f"unknown format {fmt!r} (png or svg)")
    named = list(zip(_run_names([name for name, _ in runs]), [t for _, t in runs],
                     strict=True))
    paths = [draw_overlay_win_rates(named, out / f"overlay-win-rates.{fmt}", fmt)]
    notes = [f"{name}: no per-game rows: not in the rating picture"
             for (name, t) in runs if not t.rows]
    rated = [(name, t) for name, t in named if t.rows]
    if rated:
        paths.append(draw_overlay_ratings(rated, out / f"overlay-ratings.{fmt}", fmt))
    return paths, notes


# -- the command --------------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "report",
        description="Draw pictures as PNG or SVG files: for a game record, every seat's "
                    "doubloons by round; for tournament results (mundus tournament --json), "
                    "win rates with 95% intervals, final doubloons, the head-to-head matrix, "
                    "win rates by strategy and by seat, rating progress and game lengths; "
                    "for a folder of game records (--records DIR), each entry's mean "
                    "doubloons by round and the game lengths; with --overlay, several "
                    "tournaments compared. Prints the paths written. Needs matplotlib: "
                    f"{INSTALL_HINT} (docs/report.md).")
    p.add_argument("results", nargs="+", metavar="RESULTS",
                   help="a game record, a tournament --json file or a folder of game "
                        "records (several may be given)")
    p.add_argument("--out", metavar="DIR", default=".",
                   help="directory for the pictures (default: the current directory)")
    p.add_argument("--format", choices=FORMATS, default="png", help="png (default) or svg")
    p.add_argument("--overlay", action="store_true",
                   help="compare the tournament files in one picture each "
                        "(overlay-win-rates, overlay-ratings) instead of pictures per file")
    add_deck_option(p, recorded=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return main(args.results, Path(args.out), args.format, args.deck, overlay=args.overlay)


def _say(message: str) -> None:
    print(f"mundus report: {message}", file=sys.stderr)


def _load(name: str, deck: Deck | None, overlay: bool) -> Results:
    if Path(name).is_dir():
        if overlay:
            raise ReportError("--overlay compares tournament results (mundus tournament "
                              "--json FILE), and this is a folder")
        # A bar on a terminal only: replaying takes seconds, not worth lines in a log.
        bar = ProgressReport(sys.stderr, f"replaying {name}") if sys.stderr.isatty() else None
        return load_folder(name, deck, note=_say, progress=bar)
    results = load_results(name)
    if overlay and not isinstance(results, Tournament):
        raise ReportError("--overlay compares tournament results (mundus tournament --json "
                          "FILE), and this is a game record")
    return results


def main(files: Sequence[str], out: Path, fmt: str = "png", deck_path: str | None = None,
         *, overlay: bool = False) -> int:
    try:
        deck = load_deck(deck_path) if deck_path is not None else None
    except DeckError as exc:
        _say(f"--deck: {exc}")
        return 2
    loaded: list[tuple[str, Results]] = []
    for name in files:
        try:
            loaded.append((name, _load(name, deck, overlay)))
        except ReportError as exc:
            _say(f"{name}: {exc}")
            return 2
    if overlay:
        runs = [(name, r) for name, r in loaded if isinstance(r, Tournament)]
        try:
            paths, notes = overlay_report(runs, out, fmt)
        except MissingMatplotlib as exc:
            _say(str(exc))
            return 1
        for note in notes:
            _say(note)
        for path in paths:
            print(path)
        return 0
    for name, results in loaded:
        stem = Path(name).stem if not isinstance(results, RecordFolder) else (
            Path(name).resolve().name or "records")
        try:
            paths, notes = report(results, out, stem, fmt, deck)
        except (ReportError, RecordError) as exc:
            _say(f"{name}: {exc}")
            return 2
        except MissingMatplotlib as exc:
            _say(str(exc))
            return 1
        for note in notes:
            _say(f"{name}: {note}")
        for path in paths:
            print(path)
    return 0
