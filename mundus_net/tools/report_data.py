"""Reading what ``mundus report`` draws: game records, tournament results (``mundus
tournament --json``, ``mundus sim --json``) and folders of records, checked and turned into
plain numbers (:func:`load_results`, :func:`load_folder`, :func:`record_series`,
:func:`tournament_stats`, :func:`head_to_head_matrix`, :func:`rating_progress`,
:func:`seat_stats`, :func:`round_means`). Nothing here draws or needs matplotlib: the pictures
are drawn from these numbers by :mod:`mundus_net.tools.report`.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mundus_net.bots.base import split_options
from mundus_net.bots.review import FORMAT as REVIEW_FORMAT
from mundus_net.bots.review import GameReview, ReviewError
from mundus_net.engine.deck import Deck
from mundus_net.engine.errors import MundusError
from mundus_net.engine.record import FORMAT as RECORD_FORMAT
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.tools.progress import Progress
from mundus_net.tools.results import file_error, wilson

__all__ = [
    "PROGRESS_FROM", "BotStats", "Cell", "EntryRounds", "GameRow", "Note", "Pair", "Rate",
    "RatingProgress", "RecordFolder", "ReportError", "Results", "RoundMean", "RoundSeries",
    "Tournament", "head_to_head_matrix", "load_folder", "load_results", "picture_label",
    "rating_progress", "record_series", "round_means", "seat_stats", "tournament_stats"
]

PROGRESS_FROM = 100  # records in a folder from which replaying shows progress on stderr
Note = Callable[[str], None]


class ReportError(MundusError, ValueError):
    """An input that cannot be drawn; the message says why."""


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


Results = GameRecord | Tournament | RecordFolder | GameReview


def _record_words(data: str | bytes) -> str:
    """The record loader's words for what ``data`` is (empty, cut short, a picture...)."""
    try:
        GameRecord.from_json(data)
    except RecordError as exc:
        return str(exc)
    return "it is not a game record"


def load_results(path: str | Path) -> GameRecord | Tournament | GameReview:
    """A game record, tournament results or a game's review (``mundus review --json``), read
    from a JSON file (ReportError if none; its message says in plain words what the file is
    instead)."""
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
    if isinstance(data, dict) and data.get("format") == REVIEW_FORMAT:
        try:
            return GameReview.from_json(text)
        except ReviewError as exc:
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


def picture_label(spec: str, index: int) -> str:
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
        from mundus_net.tools.standings import head_to_head

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
            stats.append(BotStats(picture_label(str(b["bot"]), j), int(b.get("games", games)),
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
                key, label = (0, j, spec), picture_label(spec, j)
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
    """The ratings ``mundus_net.tools.standings.ratings`` computes (Plackett-Luce, each
    game's places as ranks, in game order), kept after every game instead of at the end."""
    from mundus_net.tools.standings import rating_history

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
