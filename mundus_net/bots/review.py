"""The review of a game: what each decision cost its seat, as the search bot estimates it.

For every decision a seat made in a game record, :func:`review_record` asks the search bot
(:mod:`mundus_net.bots.search`) what that seat's share of the win was after the decision it
played and after the best decision the search finds, **from that seat's own view only**: the
position is a :class:`~mundus_net.engine.view.PlayerView` of the seat at that moment, the
hidden cards (other hands, warehouses, the piles' order) are drawn at random around it
(:func:`~mundus_net.engine.determinize.determinize`), and every chance comes from the review's
seed and the question the seat saw (:func:`~mundus_net.bots.base.question_seed`). So a game
that differs only in cards a seat could not see gives that seat the same review, and the same
record and seed always give the same review.

The candidates are the search bot's own (greedy's choice and the next best by greedy's
scores, or every choice where there are few, :meth:`SearchBot.candidates_for`), plus the
decision played when it is not among them. Each is played in the same ``iterations``
determinizations, with the same rollout seeds (common random numbers), and greedy players
play on to the end of the round, scored by the search's evaluation (:func:`win_shares`). The
share after a decision is the mean over the determinizations; the *loss* is the best share
minus the played one (never below 0: the decision played is one of the candidates).

Labels and the accuracy figure are defined here and documented in docs/review.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mundus_net.bots.base import question_seed
from mundus_net.bots.search import EARLIER_DEFAULTS, SearchBot, look_ahead
from mundus_net.engine.decisions import Decision
from mundus_net.engine.deck import Deck
from mundus_net.engine.determinize import determinize
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import PHASES, STORE, Game
from mundus_net.engine.notation import NotationError, format_decision, parse_decision
from mundus_net.engine.record import GameRecord
from mundus_net.engine.view import PlayerView

__all__ = [
    "BLUNDER", "DEFAULT_ITERATIONS", "FORMAT", "INACCURACY", "LABELS", "MISTAKE", "SHARE_DIGITS",
    "DecisionReview", "Estimator", "GameReview", "ReviewError", "accuracy",
    "decision_accuracy", "label_for", "largest_losses", "review_game", "review_record",
]

FORMAT = "mundus-review/1"  # the "format" field of a review's JSON (docs/review.md)

DEFAULT_ITERATIONS = 8  # determinizations per reviewed decision (the search bot plays with 4)
# Losses, in shares of the win (0.05: five percentage points), from which a decision is
# labelled; the largest label reached is given.
INACCURACY = 0.03
MISTAKE = 0.06
BLUNDER = 0.12
LABELS = (("blunder", BLUNDER), ("mistake", MISTAKE), ("inaccuracy", INACCURACY))
SHARE_DIGITS = 4  # shares of the win are kept to four decimals (0.01 of a percentage point)


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """One decision of the record, reviewed from its seat's view."""

    index: int  # its place in the record's decisions (0-based)
    seat: int
    round: int
    phase: str
    played: Decision
    best: Decision  # the played decision when nothing better was found
    played_share: float  # the seat's estimated share of the win after the decision played
    best_share: float  # ... and after the best decision found
    compared: int  # how many decisions were compared (1: only the one played)

    @property
    def loss(self) -> float:
        return max(0.0, self.best_share - self.played_share)

    @property
    def label(self) -> str | None:
        return label_for(self.loss)

    @property
    def accuracy(self) -> float:
        return decision_accuracy(self.loss)


def label_for(loss: float) -> str | None:
    """``blunder``, ``mistake``, ``inaccuracy`` or None for a loss in shares of the win."""
    for name, floor in LABELS:
        if loss >= floor - 1e-12:
            return name
    return None


def decision_accuracy(loss: float) -> float:
    """A decision's accuracy, 0-100, from its loss in shares of the win: lichess's curve over
    the loss in percentage points (``103.1668 e^(-0.04354 L) - 3.1669``, clipped), so a
    decision that loses nothing scores 100, one point about 96, five points about 80."""
    points = 100.0 * max(loss, 0.0)
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * points) - 3.1669))


def accuracy(reviews: Iterable[DecisionReview]) -> float | None:
    """The mean of the decisions' accuracies (None without any)."""
    values = [r.accuracy for r in reviews]
    return sum(values) / len(values) if values else None


class Estimator:
    """The search bot's estimate of a seat's share of the win after each of a few decisions,
    from the seat's view (see the module docstring). ``seed`` fixes every chance; the same
    view, legal list and seed always give the same estimates."""

    def __init__(self, seed: int = 0, iterations: int = DEFAULT_ITERATIONS) -> None:
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.seed = seed
        self.iterations = iterations
        # The candidates and evaluation the reviews were measured with (docs/review.md):
        # greedy's best offers, not every legal one, which a review would value on every
        # determinization.
        self.search = SearchBot(seed, iterations, **EARLIER_DEFAULTS)

    def candidates(self, view: PlayerView, legal: Sequence[Decision],
                   played: Decision) -> list[Decision]:
        """The search's candidates for this question (greedy's choice first), then the
        decision played when it is not among them."""
        search = self.search
        search.rng.seed(question_seed(self.seed, view, legal))
        choice = search.greedy.decide(view, legal)
        cands = (search.candidates_for(view.phase, legal, choice)
                 if view.phase in search.phases else [choice])
        if played not in cands:
            cands.append(played)
        return cands

    def estimate(self, view: PlayerView, cands: Sequence[Decision]) -> list[float]:
        """The seat's mean share of the win after each of ``cands``, over ``iterations``
        determinizations of ``view`` (the generator seeded by :meth:`candidates`)."""
        seat = view.seat
        assert seat is not None
        search = self.search
        horizon = search.horizon
        if view.phase == STORE:  # the round's last step (R6.9): the search looks further
            horizon = max(horizon, search.store_horizon)
        stop = view.round + horizon - 1
        totals = [0.0] * len(cands)
        for _ in range(self.iterations):
            base = look_ahead(determinize(view, search.rng), stop)
            seed = search.rng.getrandbits(32)
            for i, d in enumerate(cands):
                g = base.copy()
                g.apply(seat, d)
                totals[i] += search.rollout(g, seat, seed)
        return [t / self.iterations for t in totals]

    def review(self, index: int, view: PlayerView, legal: Sequence[Decision],
               played: Decision) -> DecisionReview:
        """One decision reviewed: the estimates of the played decision and of the best."""
        seat = view.seat
        assert seat is not None
        cands = self.candidates(view, legal, played)
        shares = self.estimate(view, cands)
        best = 0  # greedy's choice unless another does strictly better (as the search)
        for i in range(1, len(cands)):
            if shares[i] > shares[best] + 1e-9:
                best = i
        mine = cands.index(played)
        if shares[mine] >= shares[best] - 1e-9:
            best = mine
        # Rounded as the JSON keeps them, so a review read back labels as it was written.
        return DecisionReview(index, seat, view.round, view.phase, played, cands[best],
                              round(shares[mine], SHARE_DIGITS),
                              round(shares[best], SHARE_DIGITS), len(cands))


def review_game(game: Game, decisions: Sequence[tuple[int, Decision]],
                seats: Iterable[int] | None = None, *, seed: int = 0,
                iterations: int = DEFAULT_ITERATIONS,
                progress: Callable[[int, int], None] | None = None) -> list[DecisionReview]:
    """Play ``decisions`` (seat, decision) on ``game`` (changed in place) and review those
    of ``seats`` (all by default), each from its seat's view at that moment.
    ``progress(done, total)`` is called after each decision played."""
    wanted = set(range(game.players) if seats is None else seats)
    estimator = Estimator(seed, iterations)
    views = PlayerView.for_seats(game)
    out = []
    total = len(decisions)
    for index, (seat, decision) in enumerate(decisions):
        if seat in wanted:
            legal = game.legal(seat)
            if len(legal) > 1:
                out.append(estimator.review(index, views[seat], legal, decision))
        game.apply(seat, decision)
        if progress is not None:
            progress(index + 1, total)
    return out


def review_record(record: GameRecord, deck: Deck | None = None,
                  seats: Iterable[int] | None = None, *, seed: int = 0,
                  iterations: int = DEFAULT_ITERATIONS,
                  progress: Callable[[int, int], None] | None = None) -> list[DecisionReview]:
    """The review of a record's decisions by ``seats`` (all by default): see
    :func:`review_game`. Raises RecordError for a record that does not replay."""
    record.replay(deck)  # every decision checked before the long part starts
    game = record.replay(deck, upto=0)
    return review_game(game, [(d.seat, d.decision) for d in record.decisions], seats,
                       seed=seed, iterations=iterations, progress=progress)


def largest_losses(reviews: Iterable[DecisionReview], count: int = 3) -> list[DecisionReview]:
    """The ``count`` decisions that lost the most (ties: the earlier first), losses only."""
    lost = [r for r in reviews if r.loss > 1e-9]
    return sorted(lost, key=lambda r: (-r.loss, r.index))[:count]


# -- the review as JSON -------------------------------------------------------------------------


class ReviewError(MundusError, ValueError):
    """A file that is not a readable review; the message says what is wrong."""


@dataclass
class GameReview:
    """A game's review as it is written to JSON: which game, how it was made, the decisions
    reviewed, and per decision any words the writer adds (``extra``, by index: the reason in
    the language of the review)."""

    game: str
    players: int
    names: list[str]
    seed: int
    iterations: int
    seats: list[int]
    decisions: list[DecisionReview]
    extra: dict[int, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of_record(cls, record: GameRecord, deck: Deck | None = None,
                  seats: Iterable[int] | None = None, *, seed: int = 0,
                  iterations: int = DEFAULT_ITERATIONS,
                  progress: Callable[[int, int], None] | None = None) -> GameReview:
        """Review ``record`` (:func:`review_record`): its decisions by ``seats`` (all by
        default), the seats named as in the record (``Player N`` where it names none)."""
        players = record.options.players
        wanted = sorted(set(range(players) if seats is None else seats))
        names = [record.names[s] if s < len(record.names) and record.names[s]
                 else f"Player {s + 1}" for s in range(players)]
        reviews = review_record(record, deck, wanted, seed=seed, iterations=iterations,
                                progress=progress)
        return cls(record.game_id, players, names, seed, iterations, wanted, reviews)

    def of_seat(self, seat: int) -> list[DecisionReview]:
        return [r for r in self.decisions if r.seat == seat]

    def at(self, index: int) -> DecisionReview | None:
        """The review of the record's decision ``index`` (0-based), if it was reviewed."""
        return next((r for r in self.decisions if r.index == index), None)

    def to_dict(self) -> dict[str, Any]:
        players = []
        for seat in self.seats:
            mine = self.of_seat(seat)
            counts = {name: sum(1 for r in mine if r.label == name) for name, _ in LABELS}
            score = accuracy(mine)
            players.append({
                "seat": seat, "name": self.names[seat] if seat < len(self.names) else "",
                "decisions": len(mine),
                "accuracy": None if score is None else round(score, 1),
                "inaccuracies": counts["inaccuracy"], "mistakes": counts["mistake"],
                "blunders": counts["blunder"],
                "largest_losses": [r.index for r in largest_losses(mine)],
            })
        return {
            "format": FORMAT, "game": self.game, "players": self.players, "names": self.names,
            "seed": self.seed, "iterations": self.iterations, "seats": self.seats,
            "thresholds": {name: floor for name, floor in LABELS},
            "summary": players,
            "decisions": [{
                "index": r.index, "seat": r.seat, "round": r.round, "phase": r.phase,
                "played": format_decision(r.played), "best": format_decision(r.best),
                "played_share": r.played_share, "best_share": r.best_share,
                "loss": round(r.loss, 4), "label": r.label, "accuracy": round(r.accuracy, 1),
                "compared": r.compared, **self.extra.get(r.index, {}),
            } for r in self.decisions],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameReview:
        """A review read back (ReviewError says in plain words what is wrong)."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise ReviewError("it is not JSON, so not a review (mundus review RECORD --json "
                              "FILE writes one)") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ReviewError(f"it is not a review (its format is not {FORMAT}; mundus review "
                              "RECORD --json FILE writes one)")
        try:
            players = int(data["players"])
            decisions = [DecisionReview(
                int(d["index"]), int(d["seat"]), int(d["round"]), _phase(d["phase"]),
                parse_decision(d["played"])[1], parse_decision(d["best"])[1],
                float(d["played_share"]), float(d["best_share"]), int(d["compared"]))
                for d in data["decisions"]]
            if any(not 0 <= r.seat < players or r.index < 0 for r in decisions):
                raise ValueError("a seat or index out of range")
            return cls(str(data["game"]), players, [str(n) for n in data["names"]],
                       int(data["seed"]), int(data["iterations"]),
                       [int(s) for s in data["seats"]], decisions)
        except KeyError as exc:
            raise ReviewError(f"it is a damaged review: a field is missing ({exc})") from None
        except (TypeError, ValueError, NotationError) as exc:
            raise ReviewError(f"it is a damaged review: {exc}") from None


def _phase(value: Any) -> str:
    if value not in PHASES:
        raise ValueError(f"unknown phase {value!r}")
    return str(value)
