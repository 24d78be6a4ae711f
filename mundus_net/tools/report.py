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
- Several tournament files with ``--overlay``: their win rates and rating progress in one
  picture each.

The figures are drawn with matplotlib's Agg canvas (no display needed) and saved as PNG or
SVG. matplotlib is an optional dependency (``pip install 'mundus-net[plots]'``), imported only
when a picture is drawn; reading the inputs (:func:`load_results`, :func:`load_folder`,
:func:`record_series`, :func:`tournament_stats`, :func:`head_to_head_matrix`,
:func:`rating_progress`, :func:`seat_stats`, :func:`round_means`) needs nothing beyond the
engine.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mundus_net.bots.base import split_options
from mundus_net.cli_args import add_deck_option
from mundus_net.engine.deck import Deck, DeckError, load_deck
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import REASON_WORDS, WIN_DOUBLOONS
from mundus_net.engine.record import FORMAT as RECORD_FORMAT
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.tools.progress import Progress, ProgressReport
from mundus_net.tools.results import file_error, wilson

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = ("png", "svg")
INSTALL_HINT = "pip install 'mundus-net[plots]' (or pip install matplotlib)"
PROGRESS_FROM = 100  # records in a folder from which replaying shows progress on stderr
BANDS_UP_TO = 5  # entries in a rating picture up to which their ± sigma bands stay legible
Note = Callable[[str], None]


class ReportError(MundusError, ValueError):
    """An input that cannot be drawn; the message says why."""


class MissingMatplotlib(MundusError, RuntimeError):
    """matplotlib is not installed."""


class _Bad(ValueError):
    """A tournament field with a value that does not fit; the message says which."""


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
class GameRow:
    """One game of a tournament (a row of ``mundus tournament --json``)."""

    game: int
    seating: tuple[int, ...]  # the entry at each seat
    places: tuple[int, ...]  # per seat, 1 the best
    doubloons: tuple[int, ...]  # per seat, at the end
    winners: tuple[int, ...]  # seats
    rounds: int
    reason: str


@dataclass(frozen=True)
class Pair:
    """Entries ``a < b``: the games they met in, how often a finished ahead of b (a tie
    counts a half) and a's mean doubloon margin over b."""

    a: int
    b: int
    games: int
    rate: float
    margin: float


@dataclass(frozen=True)
class Rate:
    """A win rate with its 95% interval: of a strategy pooled over its entries, or of a seat."""

    label: str
    games: int
    wins: float
    win_rate: float
    ci95: tuple[float, float]
    entries: int = 1
    mean_doubloons: float | None = None


@dataclass(frozen=True)
class Tournament:
    title: str
    players: int
    games: int
    bots: list[BotStats]
    rows: list[GameRow] = field(default_factory=list)  # in game order; none in a summary
    pairs: list[Pair] | None = None  # None: neither in the summary nor in rows
    strategies: list[Rate] = field(default_factory=list)
    seat_wins: list[float] = field(default_factory=list)  # the summary's, for rowless files


@dataclass(frozen=True)
class EntryRounds:
    """One entry's (or seat's) doubloons in each game of a folder: (rounds, doubloons)."""

    label: str
    games: list[tuple[list[int], list[int]]]


@dataclass(frozen=True)
class RecordFolder:
    """What a folder of game records adds up to."""

    title: str
    records: int
    entries: list[EntryRounds]
    lengths: list[int]  # rounds of each finished game
    reasons: list[str]  # how each finished game ended
    reached: list[int]  # the last round of every game, finished or not


Results = GameRecord | Tournament | RecordFolder


def _record_words(data: str | bytes) -> str:
    """The record loader's words for what ``data`` is (empty, cut short, a picture...)."""
    try:
        GameRecord.from_json(data)
    except RecordError as exc:
        return str(exc)
    return "it is not a game record"


def load_results(path: str | Path) -> GameRecord | Tournament:
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
    if isinstance(exc, _Bad):
        return str(exc)
    return "a value of the wrong kind"


def _name(spec: str) -> str:
    """``greedy``; a ``module:Class`` or ``path.py:Class`` bot by its class name; options
    after it in brackets: ``search(iterations=8)``."""
    try:
        base, options = split_options(spec)
    except ValueError:
        base, options = spec, {}
    name = base.rsplit(":", 1)[-1] if ":" in base else base
    if options:  # the options as written, not as parsed (0.50 stays 0.50)
        name += "(" + ", ".join(spec[len(base) + 1:].split(":")) + ")"
    return name


def _label(spec: str, index: int) -> str:
    """``3 greedy``: the entry's index and its :func:`_name`."""
    return f"{index} {_name(spec)}"


def _game_row(position: int, raw: dict[str, Any], entries: int) -> GameRow:
    game = int(raw.get("game", position))
    seating = tuple(int(j) for j in raw["seating"])
    places = tuple(int(p) for p in raw["places"])
    doubloons = tuple(int(d) for d in raw["doubloons"])
    winners = tuple(int(s) for s in raw["winners"])
    if not seating or any(not 0 <= j < entries for j in seating):
        raise _Bad(f"game {game} seats an entry that is not in \"per_bot\"")
    if len(places) != len(seating) or len(doubloons) != len(seating):
        raise _Bad(f"game {game} has not one place and one doubloon count per seat")
    if not winners or any(not 0 <= s < len(seating) for s in winners):
        raise _Bad(f"game {game} has winners that are not its seats")
    return GameRow(game, seating, places, doubloons, winners, int(raw["rounds"]),
                   str(raw["reason"]))


def _pairs(summary: dict[str, Any], rows: list[GameRow], entries: int) -> list[Pair] | None:
    """The summary's head-to-head pairs; for files written before it had them, the same
    numbers computed from the rows (by the tournament's own function)."""
    raw = summary.get("head_to_head")
    if raw is None:
        if not rows:
            return None
        from mundus_net.tools.tournament import head_to_head

        raw = head_to_head(entries, [{"seating": r.seating, "places": r.places,
                                      "doubloons": r.doubloons} for r in rows])
    pairs = []
    for p in raw:
        a, b = int(p["a"]), int(p["b"])
        if not 0 <= a < b < entries:
            raise _Bad(f"head-to-head pair {a}-{b} is not two entries of \"per_bot\"")
        pairs.append(Pair(a, b, int(p["games"]), float(p["a_ahead_rate"]),
                          float(p["margin"])))
    return pairs


def _strategies(summary: dict[str, Any], per_bot: list[dict[str, Any]],
                games: int) -> list[Rate]:
    """Results pooled by strategy: the summary's ``by_name`` (a sim's counts seats, not
    entries), else pooled here from the entries."""
    by_name = summary.get("by_name")
    out: list[Rate] = []
    if isinstance(by_name, dict) and by_name:
        for spec, e in by_name.items():
            entries = int(e["entries"] if "entries" in e else e["seats"])
            lo, hi = (float(x) for x in e["win_rate_ci95"])
            out.append(Rate(_name(str(spec)), int(e.get("games", entries * games)),
                            float(e["wins"]), float(e["win_rate"]), (lo, hi), entries,
                            float(e["mean_doubloons"])))
        return out
    pooled: dict[str, list[float]] = {}  # entries, games, wins, doubloons
    for b in per_bot:
        n = int(b.get("games", games))
        total = pooled.setdefault(str(b["bot"]), [0, 0, 0.0, 0.0])
        total[0] += 1
        total[1] += n
        total[2] += float(b["wins"])
        total[3] += float(b["mean_doubloons"]) * n
    for spec, (kept, played, wins, money) in pooled.items():
        count = int(played)
        out.append(Rate(_name(spec), count, wins, wins / count if count else 0.0,
                        wilson(wins, count), int(kept), money / count if count else 0.0))
    return out


def tournament_stats(data: dict[str, Any]) -> Tournament:
    """Everything the pictures need from ``{"summary", "games"}`` (mundus tournament --json)
    or a bare summary (mundus sim --json: no rows, so no doubloons, pairs or ratings)."""
    summary = data.get("summary", data)
    raw_rows = (data.get("games") or []) if "summary" in data else []
    try:
        per_bot = summary["per_bot"]
        players = int(summary["players"])
        games = int(summary["games"])
        entries = len(per_bot)
        rows = sorted((_game_row(i, r, entries) for i, r in enumerate(raw_rows)),
                      key=lambda r: r.game)
        dists: dict[int, list[int]] = {j: [] for j in range(entries)}
        for row in rows:
            for seat, entry in enumerate(row.seating):
                dists[entry].append(row.doubloons[seat])
        stats: list[BotStats] = []
        for j, b in enumerate(per_bot):
            if int(b["index"]) != j:
                raise _Bad(f"entry {j} of \"per_bot\" has index {b['index']}")
            lo, hi = (float(x) for x in b["win_rate_ci95"])
            stats.append(BotStats(_label(str(b["bot"]), j), int(b.get("games", games)),
                                  float(b["win_rate"]), (lo, hi), dists[j]))
        pairs = _pairs(summary, rows, entries)
        strategies = _strategies(summary, per_bot, games)
        seat_wins = [float(p["wins"]) for p in summary.get("per_seat") or []]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise ReportError(f"it is damaged tournament results: a field is missing or "
                          f"malformed ({_field_words(exc)})") from None
    if not stats:
        raise ReportError("it is tournament results without any bot")
    seed = summary.get("seed")
    title = f"{games} games, {players} players" + (f", seed {seed}" if seed is not None else "")
    return Tournament(title, players, games, stats, rows, pairs, strategies, seat_wins)


def _seating_meta(record: GameRecord, players: int) -> tuple[list[int], list[str]] | None:
    """(entry at each seat, the bot list) from the meta ``mundus tournament`` and ``mundus
    sim`` write (``{"tournament": {"seating", "bots"}}``, ``"sim"`` for a sim); None if
    absent or not usable."""
    keys = ["tournament", *(k for k in record.meta if k != "tournament")]
    for key in keys:
        value = record.meta.get(key)
        if not isinstance(value, dict):
            continue
        seating, bots = value.get("seating"), value.get("bots")
        if (isinstance(seating, list) and isinstance(bots, list) and len(seating) == players
                and all(isinstance(j, int) and 0 <= j < len(bots) for j in seating)):
            return seating, [str(b) for b in bots]
    return None


def load_folder(path: str | Path, deck: Deck | None = None, note: Note | None = None,
                progress: Progress | None = None) -> RecordFolder:
    """Replay every ``*.json`` game record in a folder; files that are not records or do
    not replay are skipped and named through ``note``. ReportError if none can be used."""
    folder = Path(path)
    try:
        files = sorted(p for p in folder.glob("*.json") if p.is_file())
    except OSError as exc:
        raise ReportError(file_error(exc)) from None
    if not files:
        # (The words start as for any folder given where a file is expected.)
        raise ReportError("it is a folder, not a file, and there is no game record (*.json) "
                          "in it; mundus tournament --records DIR writes them")
    groups: dict[tuple[int, int, str], EntryRounds] = {}
    lengths: list[int] = []
    reasons: list[str] = []
    reached: list[int] = []
    unfinished = 0
    for done, file in enumerate(files, 1):
        try:
            loaded = load_results(file)
            if not isinstance(loaded, GameRecord):
                raise ReportError("it is tournament results, not a game record")
            series = record_series(loaded, deck)
        except (ReportError, RecordError) as exc:
            if note is not None:
                note(f"{file}: skipped: {exc}")
            continue
        finally:
            if progress is not None and len(files) >= PROGRESS_FROM:
                progress(done, len(files))
        meta = _seating_meta(loaded, len(series.names))
        for seat, values in enumerate(series.doubloons):
            if meta is not None:
                j, spec = meta[0][seat], meta[1][meta[0][seat]]
                key, label = (0, j, spec), _label(spec, j)
            else:  # a record from elsewhere: its seats are all we know
                key, label = (1, seat, ""), f"seat {seat}"
            groups.setdefault(key, EntryRounds(label, [])).games.append(
                (series.rounds, values))
        reached.append(series.rounds[-1])
        if series.reason is None:
            unfinished += 1
        else:
            lengths.append(series.rounds[-1])
            reasons.append(series.reason)
    if not reached:
        raise ReportError(f"none of its {len(files)} .json file(s) is a game record that "
                          "replays (the notes above say why)")
    if unfinished and note is not None:
        note(f"{folder}: {unfinished} game(s) did not finish: their doubloons count up to "
             "where they stop, but not their length or end")
    title = folder.resolve().name or str(folder)
    return RecordFolder(title, len(reached), [groups[k] for k in sorted(groups)], lengths,
                        reasons, reached)


# -- what the pictures show, as numbers -----------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """Row against column: how often the row finished ahead (a tie a half), the row's mean
    doubloons minus the column's, and the games they met in (0: never met)."""

    rate: float
    margin: float
    games: int


def head_to_head_matrix(t: Tournament) -> list[list[Cell | None]]:
    """Cell ``[a][b]`` for row a against column b (None on the diagonal), from the summary's
    pairs (a < b) turned round for a > b."""
    n = len(t.bots)
    matrix: list[list[Cell | None]] = [[None if a == b else Cell(0.0, 0.0, 0)
                                        for b in range(n)] for a in range(n)]
    for p in t.pairs or []:
        matrix[p.a][p.b] = Cell(p.rate, p.margin, p.games)
        matrix[p.b][p.a] = Cell(1 - p.rate, -p.margin, p.games)
    return matrix


@dataclass(frozen=True)
class RatingProgress:
    """Each entry's openskill rating at the start and after each game (in game order)."""

    mu: list[list[float]]
    sigma: list[list[float]]

    def ordinal(self, entry: int) -> list[float]:
        """mu - 3 sigma: the tournament table's ordinal."""
        return [m - 3 * s for m, s in zip(self.mu[entry], self.sigma[entry], strict=True)]


def rating_progress(entries: int, rows: Sequence[GameRow]) -> RatingProgress:
    """The ratings ``mundus_net.tools.tournament.ratings`` computes (Plackett-Luce, each
    game's places as ranks, in game order), kept after every game instead of at the end."""
    from mundus_net.tools.tournament import rating_history

    mu: list[list[float]] = [[] for _ in range(entries)]
    sigma: list[list[float]] = [[] for _ in range(entries)]
    for current in rating_history(entries, [{"seating": r.seating, "places": r.places}
                                            for r in rows]):
        for j, r in enumerate(current):
            mu[j].append(r.mu)
            sigma[j].append(r.sigma)
    return RatingProgress(mu, sigma)


def seat_stats(t: Tournament) -> list[Rate]:
    """The win rate of each seat with its Wilson 95% interval, from the rows (a shared
    victory of k winners counts 1/k), else from the summary's ``per_seat``."""
    wins: list[float] = []
    games: list[int] = []
    if t.rows:
        for row in t.rows:
            for seat in range(len(row.seating)):
                if seat == len(games):
                    wins.append(0.0)
                    games.append(0)
                games[seat] += 1
            for seat in row.winners:
                wins[seat] += 1 / len(row.winners)
    else:
        wins, games = list(t.seat_wins), [t.games] * len(t.seat_wins)
    return [Rate(f"seat {s}", n, w, w / n if n else 0.0, wilson(w, n))
            for s, (w, n) in enumerate(zip(wins, games, strict=True))]


@dataclass(frozen=True)
class RoundMean:
    round: int
    games: int
    mean: float
    half: float  # of the 95% band: 1.96 sd / sqrt(n); 0 for a single game


def round_means(entry: EntryRounds) -> list[RoundMean]:
    """The entry's mean doubloons at the end of each round over the games that lasted that
    long (a game that has ended no longer counts)."""
    by_round: dict[int, list[int]] = {}
    for rounds, values in entry.games:
        for r, v in zip(rounds, values, strict=True):
            by_round.setdefault(r, []).append(v)
    out = []
    for r in sorted(by_round):
        values = by_round[r]
        n = len(values)
        half = 1.96 * statistics.stdev(values) / math.sqrt(n) if n > 1 else 0.0
        out.append(RoundMean(r, n, statistics.fmean(values), half))
    return out


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
