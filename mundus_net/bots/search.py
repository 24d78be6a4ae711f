"""``search``: determinized Monte Carlo search with greedy rollouts.

At every decision with more than one sensible choice (the announcement, offers, takes, the
choice of the first player and of a tied Trade Master, the combinations of a progression
turn, caravel picks, pirate discards, the gift, storage, Coronado, Ponce de León, Sergio),
the bot

1. lists a few *candidates*: the greedy player's choice and the next best by greedy's own
   scores (takes, picks, discards, gifts, storage, Sergio), every legal offer (the offers
   play 2 determinizations each, then only the best 4 play the rest), every choice when
   there are few (announce, first player, tied TM, Coronado, Ponce de León), or each queue
   card an identical set can reach (progression turn);
2. samples *determinizations*: complete games consistent with its view
   (:func:`mundus_net.engine.determinize.determinize`: the hidden hands, warehouses and piles drawn
   at random around everything public);
3. in each determinization plays every candidate and then the rest of the round with the
   greedy player deciding for every seat (its own included), in a copy of the game that keeps
   no log, and scores the end of the round as the seat's share of the win
   (:func:`win_shares`): a conditional logit over the parts of each seat's worth (its
   doubloons, what its developments and stored cards are worth for the rest of the game by
   the greedy player's estimates, each also scaled by the rounds left), fitted to who won
   thousands of greedy games from such positions, plus a few hidden units of each seat's
   parts, leads and counts (``evaluation="net"``, the default, weights in
   ``data/evaluation.json``; ``"seat"``: the same fitted to games of a search bot and three
   greedy ones, with the bot's own seat flagged, ``data/evaluation_seat.json``;
   ``"fitted"``: the logit alone; ``"hand"``: the older hand-made
   softmax of the worths); a finished game scores its real result. Storage is the round's last
   step, after every progression turn, and simultaneous (R6.9): the other seats' secret
   choices are made again in each determinization, and the rollout ends there (with
   ``store_horizon=2`` it plays the next round too);
4. takes the candidate with the best total; the same determinizations and rollout seeds serve
   every candidate (common random numbers), so the comparison is fair, and greedy's choice
   wins ties.

With ``infer=True``, the determinizations of a take decision deal each other seat that has
not yet taken nor lost a card only hands from which the greedy player would have made the
offer it shows (:func:`offer_test`): the opponents are modelled as greedy players in what they
hold, as the rollouts already model them in how they play.

Budget: ``SearchBot(seed, iterations=4)`` samples 4 determinizations per searched decision
(twice as many for the announcement, the first player, a tied TM and offers, half as many for
takes: ``weights``), about 0.9 s of CPU per 4-player game on the plain build, as much as the
search of issue 35's start (docs/bots.md); the compiled build spends about the same CPU on
more search (``budget``, :data:`BUDGETS`), so the two builds play different search games.
``seconds=0.05`` searches until its thread has used that much CPU time instead (at least one
determinization; with both, whichever ends first). CPU time, not wall time, so a loaded
machine does not shorten the search, but a time budget still depends on the machine's speed;
an iteration budget alone is deterministic for a seed and a build. See docs/bots.md ("The
search bot") for its measured strength.
"""

from __future__ import annotations

import json
import math
import operator
import random
import time
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any, Final

from mypy_extensions import mypyc_attr

from mundus_net.bots.base import question_seed
from mundus_net.bots.greedy import (
    CARD_WORTH,
    DENIAL,
    EPS,
    MERCHANT_MORE,
    POWER_RATE,
    SHIPYARD_RATE,
    TM_WORTH,
    WAREHOUSE_SLOT,
    GreedyBot,
    MemoPool,
    _Context,
    context_key,
    store_worths,
    turn_flags,
)
from mundus_net.engine.cards import RELIC, submultisets, to_counts
from mundus_net.engine.decisions import Decision, MakeSet, Offer
from mundus_net.engine.determinize import HandTest, determinize
from mundus_net.engine.game import OVER, SIMULTANEOUS, STORE, TURN, WIN_DOUBLOONS, Game
from mundus_net.engine.view import PlayerView, View

__all__ = [
    "ALL_CHOICES", "BUDGETS", "BUILD", "BY_BUDGET", "CONTEXT_CACHE", "DEFAULT_DEV_SCALE",
    "DEFAULT_EVALUATION",
    "DEFAULT_ITERATIONS", "DEFAULT_MARGIN", "DEFAULT_OFFERS", "DEFAULT_OFFER_FIRST",
    "DEFAULT_STORE_HORIZON", "DEFAULT_WEIGHTS", "EARLIER_DEFAULTS", "EVALUATIONS", "FITTED",
    "MAX_ALL", "PARTS",
    "SEARCH_PHASES", "Ranker", "SearchBot", "fitted_features", "look_ahead", "offer_test",
    "win_shares", "worth_parts", "worths",
]

SEARCH_PHASES = ("announce", "offer", "take", "first", "turn", "tm_tie", "pick", "pirates",
                 "gift", "store", "coronado", "split", "sergio")
ALL_CHOICES = ("announce", "first", "tm_tie", "coronado", "split")  # phases with few choices
MAX_ALL = 8  # at most this many of them compared (Ponce de León's splits can be many)
DEFAULT_ITERATIONS = 4
# Per phase, a factor on the budget: twice as many determinizations for the rare, cheap and
# decisive choices and for offers (every legal offer is compared), half as many for takes
# (issue 35: the oracle's regret is the same with 2 there, and on turns with 4 as with 8).
DEFAULT_WEIGHTS = {"announce": 2.0, "first": 2.0, "tm_tie": 2.0, "offer": 2.0, "take": 0.5}
DEFAULT_OFFERS = "all"  # every legal offer compared (issue 35)
DEFAULT_OFFER_FIRST = 2  # determinizations every offer plays before only the best few go on
# Which build runs this module: mypyc's compiled modules are extension files (as black tells).
BUILD: Final[str] = "compiled" if __file__.endswith((".so", ".pyd")) else "plain"
# The search's budget by build (issue 35): ``plain`` spends about the CPU a game the search
# spent in plain Python when issue 35 began; the compiled build plays the same rollouts about
# twice as fast and spends that CPU on more search where the oracle's regret showed it pays:
# every offer on 4 determinizations and the best 8 on to 8, every legal take on 4, twice the
# determinizations for the announcement, the first player and a tied TM (docs/bots.md).
# ``SearchBot(budget=...)`` picks one ("auto": this build's); options given override it.
BUDGETS: Final[dict[str, dict[str, Any]]] = {
    "plain": {"weights": DEFAULT_WEIGHTS, "offer_first": DEFAULT_OFFER_FIRST, "offer_keep": 4,
              "takes": "greedy", "take_iterations": None},
    "compiled": {"weights": {**DEFAULT_WEIGHTS, "announce": 4.0, "first": 4.0, "tm_tie": 4.0},
                 "offer_first": 4, "offer_keep": 8, "takes": "all", "take_iterations": 4},
}
BY_BUDGET: Final = -1  # an option's default: the budget's value
DEFAULT_EVALUATION = "net"  # the fitted logit plus a few hidden units (issue 35)
# The settings that were the defaults before issue 35 (greedy's best offers, the fitted
# evaluation, progression turns on twice the budget): what `mundus train`'s teacher and
# `mundus review`'s estimator still use, so that the shipped weights and reviews stay.
EARLIER_DEFAULTS: Final[dict[str, Any]] = {
    "weights": {"announce": 2.0, "first": 2.0, "tm_tie": 2.0, "turn": 2.0},
    "evaluation": "fitted", "offers": "greedy", "offer_first": None, "budget": "plain"}
DEFAULT_MARGIN = 3.0  # doubloons of greedy's score: scored choices further behind are not tried
DEFAULT_DEV_SCALE = 0.7  # developments at 70% of greedy's estimate (1.0: no better, docs/bots.md)
CONTEXT_CACHE = 256  # evaluation contexts kept per rollout player
DEFAULT_STORE_HORIZON = 1  # rounds played by a rollout from a storage decision
DEFAULT_TRIES = 16  # deals of another seat's hand at most, when ``infer`` tests them
# The parts of a seat's worth at the end of a rollout (:func:`worth_parts`), in order.
PARTS = ("doubloons", "income", "developments", "caravels", "merchants", "warehouses",
         "shipyards", "powers", "stored", "income_rate")
# The evaluation fitted to the results of greedy games (python benchmarks/fit_evaluation.py
# --games 12000 --seed 32; docs/bots.md): a seat's share of the win at the end of a rollout is
# the softmax over seats of these weights times its fitted_features.
FITTED = (0.2512, 0.0917, 0.2841, 0.1946, 0.0046, 0.1663, 0.1766, 0.1007, 0.2721, 0.0271,
          -0.1337, -0.0264, 0.3785, -0.1306, 0.0440, -0.0533, -0.0932, -0.0911, -0.0511, 0.0092,
          0.0735, 0.0271, 0.3785, 0.6607, -0.1904, -0.2970, -0.1487, 0.0080, -0.0358, -0.1189)
EVALUATIONS = ("fitted", "hand", "net", "seat")
OFFER_SETS = ("greedy", "bids", "all")  # how the offers compared are chosen
# The inputs of the ``net`` evaluation's hidden units, per seat (:func:`net_inputs`).
NET_INPUTS = (*PARTS, "rounds_left", "per_round_left", "doubloons_lead", "worth_lead",
              "projected_lead", "tm", "after_tm_1", "after_tm_2", "after_tm_3",
              "developments_count", "caravels_count", "capacity")
NET_FILE = "evaluation.json"  # in mundus_net/bots/data: python benchmarks/fit_evaluation.py
# The ``seat`` evaluation's: the net fitted to games of one search bot and three greedy ones,
# with one more input, whether the seat is the searcher's (docs/bots.md).
SEAT_FILE = "evaluation_seat.json"
_FITTED_BY_PART = tuple(zip(FITTED[:len(PARTS)], FITTED[len(PARTS):2 * len(PARTS)],
                            FITTED[2 * len(PARTS):], strict=True))  # per part: x1, x r/10, / r


class Ranker(GreedyBot):
    """The greedy player, keeping the score of every choice it compared at its last
    decision (empty for the phases it does not score); each choice is scored once."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.scored: list[tuple[float, Decision]] = []

    def decide(self, view: View, legal: Sequence[Decision]) -> Decision:
        self.scored = []
        return super().decide(view, legal)

    def _best(self, legal: Sequence[Decision], score: Callable[[Decision], float]) -> Decision:
        scored = [(score(d), d) for d in legal]
        self.scored = scored
        lookup = dict(zip(legal, scored, strict=True))
        return super()._best(legal, lambda d: lookup[d][0])


class _PolicyBot(GreedyBot):
    """The greedy player for rollouts: the same decisions, but it keeps many evaluation
    contexts instead of the last one. The rollouts of one search start from the same public
    state again and again, and a context (with its memos) depends only on public state."""

    reseed_per_question = False  # seeded once per rollout (common random numbers)

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._contexts: dict[tuple[Any, ...], _Context] = {}
        self._memos: MemoPool = {}  # shared by contexts that plan hands the same way
        self._seed_due: int | None = None
        self._game: Game | None = None  # the rollout's game, seen through self._view
        self._view: View | None = None
        self._devs: tuple[tuple[str, ...], ...] = ()
        self._dev_count = -1

    def watch(self, g: Game, view: View) -> None:
        """Play the rollout game ``g`` as ``view`` (a PlayerView of ``g``): asked through
        that view, the context key is read from the game itself (:meth:`_game_key`)."""
        self._game = g
        self._view = view
        self._dev_count = -1

    def reseed(self, seed: int) -> None:
        """Draw this rollout's chances from ``seed``: the generator is seeded with it at the
        first draw (most rollouts draw none: a tie among greedy's best choices), so the draws
        are those of ``rng.seed(seed)`` now, and a rollout without a tie costs no seeding."""
        self._seed_due = seed

    def chance(self, n: int) -> int:
        due = self._seed_due
        if due is not None:
            self._seed_due = None
            self.rng.seed(due)
        return super().chance(n)

    def context(self, view: View) -> _Context:
        g = self._game
        if g is not None and view is self._view:
            key = self._game_key(g, view.seat)
        else:
            key = context_key(view, turn_flags(view) if view.phase == TURN else None)
        ctx = self._contexts.get(key)
        if ctx is None:
            if len(self._contexts) >= CONTEXT_CACHE:
                self._contexts.clear()
                self._memos.clear()
            ctx = self._contexts[key] = self._new_context(view, key)
            ctx.share_memos(self._memos)
        return ctx

    def _game_key(self, g: Game, seat: int | None) -> tuple[Any, ...]:
        """``context_key(PlayerView(g, seat))``, read from the game: the turn's flags without
        building its pending decision, and the developments made into tuples again only when
        one was added (a game only ever adds them, R6.3), not at every decision."""
        phase = g.phase
        turn = phase == TURN
        count = 0
        for owned in g.devs:
            count += len(owned)
        if count != self._dev_count:
            self._devs = tuple([tuple(owned) for owned in g.devs])
            self._dev_count = count
        flags = (g.turn_sets, g.turn_series, g.turn_relics, g.turn_perfect) if turn else None
        return (seat, g.round, turn, phase == STORE, flags, g.event, tuple(g.queue), self._devs,
                tuple(g.doubloons), tuple(sorted(g.merchants_used)) if turn else (),
                len(g.devpile))


# Bots of your own may build on it, also when it is compiled (docs/architecture.md).
@mypyc_attr(allow_interpreted_subclasses=True)
class SearchBot:
    """Determinized flat Monte Carlo search over a few candidate decisions, with greedy
    rollouts to the end of the round (see the module docstring and docs/bots.md).

    ``iterations``: determinizations sampled per searched decision (default 4 when no
    ``seconds`` is given). ``seconds``: a CPU-time budget per searched decision instead (or as
    well: whichever ends first; at least one determinization). ``weights``: per phase, a
    factor on the budget (default: twice as much for the rare, cheap and decisive
    announcement, choice of the first player and of a tied TM, and for offers; half as much
    for takes: :data:`DEFAULT_WEIGHTS`).
    ``candidates``: how many of greedy's best scored choices (offers, takes, picks, pirate
    discards, gifts, storage, Sergio) are compared, at most, and ``margin``: only those
    greedy scores within this many doubloons of its best (None: no limit). ``horizon``:
    rounds played in a rollout (1: to the end of the current round).
    ``screen``: the share of the budget played by every candidate before only the better
    half of them (at least two) play the rest of it (1, the default: every candidate plays
    the whole budget).
    ``evaluation``: how the end of a rollout is scored, ``"net"`` (the default), ``"seat"``
    (its own seat flagged as the searcher's), ``"fitted"`` or ``"hand"``
    (:func:`win_shares`); for ``"hand"``, ``temperature``:
    doubloons per unit of the softmax that turns the seats' worths into a share of the win,
    and ``dev_scale``: a factor on what developments are worth. ``endgame``: once some seat
    has this many doubloons, rollouts play ``endgame_rounds`` rounds (this one included) or
    to the end of the game, whichever comes first (None, the default: never).
    ``store_horizon``: rounds played by a rollout from a storage decision, the round's last
    step (1: the rollout ends with the storage step). ``infer``: in the take step, deal the other
    seats only hands from which the greedy player would have made the offers they made
    (:func:`offer_test`; a seat's hand is dealt again up to ``tries`` times in all, then the last
    deal is kept): an exact model of greedy opponents, a guess about any other player.
    ``offers``: the offers compared (R5.2): ``"all"`` (the default) every legal offer;
    ``"greedy"`` greedy's best scored ones, as in the other scored phases; ``"bids"`` greedy's
    best offer of each offer score (R5.4), at most ``offer_candidates`` (:func:`_offer_candidates`).
    ``offer_iterations``: determinizations per offer decision (None: ``iterations`` times its
    weight); with ``offer_first``, every offer plays that many of them first, then only the
    best ``offer_keep`` play the rest (None: every offer plays all).
    ``takes``: ``"all"`` compares every legal take, ``"greedy"`` greedy's best few;
    ``take_iterations``: determinizations per take decision (None: as any phase).
    ``budget``: the defaults of ``weights``, ``offer_first``, ``offer_keep``, ``takes`` and
    ``take_iterations`` (:data:`BUDGETS`): ``"plain"`` (2, 4, greedy's takes on half the
    budget), ``"compiled"`` (more search for the CPU the compiled build saves) or ``"auto"``,
    the default: the budget of the build that runs (:data:`BUILD`); an option given overrides
    its budget's value.
    ``phases``: the decision kinds searched; greedy plays the others.
    """

    def __init__(self, seed: int = 0, iterations: int | None = None,
                 seconds: float | None = None, *, weights: dict[str, float] | None = None,
                 candidates: int = 4, margin: float | None = DEFAULT_MARGIN,
                 horizon: int = 1, temperature: float = 8.0,
                 dev_scale: float = DEFAULT_DEV_SCALE,
                 endgame: float | None = None, endgame_rounds: int = 3,
                 store_horizon: int = DEFAULT_STORE_HORIZON,
                 evaluation: str = DEFAULT_EVALUATION, screen: float = 1.0,
                 infer: bool = False, tries: int = DEFAULT_TRIES,
                 offers: str = DEFAULT_OFFERS, offer_candidates: int = 6, takes: str = "",
                 offer_iterations: int | None = None, offer_first: int | None = BY_BUDGET,
                 offer_keep: int = BY_BUDGET, take_iterations: int | None = BY_BUDGET,
                 budget: str = "auto", phases: Sequence[str] = SEARCH_PHASES) -> None:
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        if seconds is not None and seconds <= 0:
            raise ValueError("seconds must be positive")
        if horizon < 1:
            raise ValueError("the horizon is at least 1 round")
        if candidates < 1:
            raise ValueError("candidates must be at least 1")
        if endgame_rounds < 1:
            raise ValueError("endgame_rounds must be at least 1")
        if store_horizon < 1:
            raise ValueError("store_horizon must be at least 1")
        if tries < 1:
            raise ValueError("tries must be at least 1")
        if not 0.0 < screen <= 1.0:
            raise ValueError("screen is a share of the budget, above 0 and at most 1")
        if evaluation not in EVALUATIONS:
            raise ValueError(f"evaluation is one of {', '.join(EVALUATIONS)}, "
                             f"not {evaluation!r}")
        self.seed = seed
        self.rng = random.Random(seed)  # reseeded for each question (question_seed)
        self.iterations = (DEFAULT_ITERATIONS if iterations is None and seconds is None
                           else iterations)
        self.seconds = seconds
        if budget != "auto" and budget not in BUDGETS:
            raise ValueError(f"budget is auto, {' or '.join(BUDGETS)}, not {budget!r}")
        self.budget = BUILD if budget == "auto" else budget
        preset = BUDGETS[self.budget]
        self.weights = dict(preset["weights"] if weights is None else weights)
        if takes == "":
            takes = preset["takes"]
        if offer_first == BY_BUDGET:
            offer_first = preset["offer_first"]
        if offer_keep == BY_BUDGET:
            offer_keep = preset["offer_keep"]
        if take_iterations == BY_BUDGET:
            take_iterations = preset["take_iterations"]
        self.candidates = candidates
        self.margin = margin
        self.horizon = horizon
        self.temperature = temperature
        self.dev_scale = dev_scale
        self.endgame = endgame
        self.endgame_rounds = endgame_rounds
        self.store_horizon = store_horizon
        self.evaluation = evaluation
        self.screen = screen
        self.infer = infer
        self.tries = tries
        if offers not in OFFER_SETS:
            raise ValueError(f"offers is one of {', '.join(OFFER_SETS)}, not {offers!r}")
        if offer_candidates < 1:
            raise ValueError("offer_candidates must be at least 1")
        self.offers = offers
        if takes not in ("greedy", "all"):
            raise ValueError(f"takes is greedy or all, not {takes!r}")
        self.takes = takes
        for name, value in (("offer_iterations", offer_iterations),
                            ("offer_first", offer_first), ("offer_keep", offer_keep),
                            ("take_iterations", take_iterations)):
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1")
        self.offer_iterations = offer_iterations
        self.offer_first = offer_first
        self.offer_keep = offer_keep
        self.take_iterations = take_iterations
        self.offer_candidates = offer_candidates
        self.phases = frozenset(phases)
        self.greedy = Ranker(seed)
        self.policy = [_PolicyBot(seed + 1 + s) for s in range(6)]
        self.searches: dict[str, int] = {}  # searched decisions, by phase
        self.rollouts = 0

    # -- the decision -----------------------------------------------------------------------

    def decide(self, view: View, legal: Sequence[Decision]) -> Decision:
        if len(legal) == 1:
            return legal[0]
        # Every chance of this decision (determinizations, rollout seeds) from the seed and
        # the question: asked again (a resumed host), the bot answers the same.
        self.rng.seed(question_seed(self.seed, view, legal))
        choice = self.greedy.decide(view, legal)
        phase = view.phase
        if phase not in self.phases or view.seat is None:
            return choice
        cands = self.candidates_for(phase, legal, choice)
        if len(cands) <= 1:
            return choice
        self.searches[phase] = self.searches.get(phase, 0) + 1
        return self._search(view, cands)

    def candidates_for(self, phase: str, legal: Sequence[Decision],
                    choice: Decision) -> list[Decision]:
        """The decisions worth comparing, greedy's choice first."""
        if phase in ALL_CHOICES:
            return [choice, *(d for d in legal if d != choice)][:MAX_ALL]
        if phase == "turn":
            # Greedy's step, and the cheapest identical set reaching each other target.
            sets: dict[int, MakeSet] = {}
            for d in legal:
                if isinstance(d, MakeSet):
                    best = sets.get(d.target)
                    if best is None or _set_cost(d) < _set_cost(best):
                        sets[d.target] = d
            out = [choice]
            out.extend(d for d in sets.values() if d != choice)
            return out
        scored = sorted(self.greedy.scored, key=lambda sd: -sd[0])
        if phase == "take" and self.takes == "all":
            return [choice, *(d for d in legal if d != choice)]
        if phase == "offer" and self.offers != "greedy":
            return _offer_candidates(self.offers, scored, choice, self.offer_candidates)
        out = [choice]
        floor = scored[0][0] - self.margin if scored and self.margin is not None else -1e18
        for score, d in scored:
            if len(out) >= self.candidates or score < floor:
                break
            if d not in out:
                out.append(d)
        return out

    def _search(self, view: View, cands: list[Decision]) -> Decision:
        seat = view.seat
        assert seat is not None
        horizon = self.horizon
        if view.phase == "store":  # the last step of the round (R6.9): look further
            horizon = max(horizon, self.store_horizon)
        stop = view.round + horizon - 1
        if self.endgame is not None and max(view.doubloons) >= self.endgame:
            stop = max(stop, view.round + self.endgame_rounds - 1)
        weight = self.weights.get(view.phase, 1.0)
        limit = None if self.iterations is None else max(1, round(self.iterations * weight))
        if view.phase == "offer" and self.offer_iterations is not None:
            limit = self.offer_iterations
        if view.phase == "take" and self.take_iterations is not None:
            limit = self.take_iterations
        seconds = None if self.seconds is None else self.seconds * weight
        start = time.thread_time() if seconds is not None else 0.0
        deadline = None if seconds is None else start + seconds
        totals = [0.0] * len(cands)
        test = (offer_test(view, determinize(view, self.rng), self.policy[0])
                if self.infer and view.phase == "take" else None)
        first_n = self.offer_first if view.phase == "offer" else None
        if first_n is not None and limit is not None and len(cands) > self.offer_keep:
            # Every offer on a few determinizations, then only the best few on the rest.
            done = self._play(view, seat, stop, cands, totals, test, min(first_n, limit), None)
            order = sorted(range(len(cands)), key=lambda i: (-totals[i], i))
            kept = sorted(order[:self.offer_keep])
            cands = [cands[i] for i in kept]
            totals = [totals[i] for i in kept]
            if limit > done:
                self._play(view, seat, stop, cands, totals, test, limit - done, None)
        elif self.screen < 1.0 and len(cands) > 2:
            # Screening: every candidate on a share of the budget, then only the better half
            # (greedy's choice first among equals) on the rest of the rollouts.
            first = self._play(view, seat, stop, cands, totals, test,
                               None if limit is None else max(1, round(limit * self.screen)),
                               None if seconds is None else start + seconds * self.screen)
            order = sorted(range(len(cands)), key=lambda i: (-totals[i], i))
            kept = sorted(order[:max(2, (len(cands) + 1) // 2)])
            if limit is not None:  # the rollouts left, shared by the candidates kept
                limit = (limit - first) * len(cands) // len(kept)
            cands = [cands[i] for i in kept]
            totals = [totals[i] for i in kept]
            if limit != 0:
                self._play(view, seat, stop, cands, totals, test, limit, deadline)
        else:
            self._play(view, seat, stop, cands, totals, test, limit, deadline)
        best = 0  # greedy's choice unless another does strictly better
        for i in range(1, len(cands)):
            if totals[i] > totals[best] + 1e-9:
                best = i
        return cands[best]

    def _play(self, view: View, seat: int, stop: int, cands: Sequence[Decision],
              totals: list[float], test: HandTest | None, limit: int | None,
              deadline: float | None) -> int:
        """Add to ``totals`` each candidate's score in determinizations sampled until
        ``limit`` of them or the CPU ``deadline`` (at least one); how many were sampled.
        ``test``: of the other seats' hands (:func:`offer_test`), or None."""
        done = 0
        while True:
            if limit is not None and done >= limit:
                break
            if deadline is not None and done and time.thread_time() >= deadline:
                break
            base = look_ahead(determinize(view, self.rng, test, self.tries), stop)
            seed = self.rng.getrandbits(32)
            for i, d in enumerate(cands):
                g = base.copy()
                g.apply(seat, d)
                totals[i] += self.rollout(g, seat, seed)
            done += 1
        self.rollouts += done * len(cands)
        return done

    def rollout(self, g: Game, seat: int, seed: int) -> float:
        """Play ``g`` on with greedy players to the halt (or the end); ``seat``'s score (one
        rollout of the search: a subclass may watch it)."""
        bots = self.policy
        views = [PlayerView(g, s) for s in range(g.players)]
        for s in range(g.players):
            bots[s].reseed(seed + s)
            bots[s].watch(g, views[s])
        while g.phase != OVER:
            s = g.waiting_seats()[0] if g.phase in SIMULTANEOUS else g.active
            g.apply(s, bots[s].decide(views[s], g.legal(s)))
        result = g.result
        if result is not None:
            return 1.0 / len(result.winners) if seat in result.winners else 0.0
        return win_shares(g, self.evaluation, self.temperature, self.dev_scale, seat)[seat]


def offer_test(view: View, sample: Game, model: GreedyBot) -> HandTest | None:
    """In the take step, a test of the hands a determinization deals to the other seats:
    a seat that neither took nor lost a card yet still shows its whole offer, and a hand is
    kept only if ``model`` (the greedy player), holding that hand and the offer, would have
    offered those cards (R5.2), whether or not that seat was the TM then; a seat with Las
    Casas' freedom (R5.2) or without a card offered is not tested. ``sample``: any
    determinization of ``view`` (the tests read only its public state). None: nothing to
    test."""
    if view.phase != "take":
        return None
    involved = {s for pair in view.takes for s in pair}
    faceup = view.faceup_counts
    checks: dict[int, tuple[_Context, tuple[int, ...], float]] = {}
    for s in range(view.players):
        if s == view.seat or s in involved or not any(faceup[s]):
            continue
        ctx = model.context(PlayerView(sample, s))
        if "casas" in ctx.powers:
            continue
        prize = 0.0
        if ctx.qv:
            ranked = sorted(ctx.qv, reverse=True)
            prize = ranked[0] - (ranked[1] if len(ranked) > 1 else 0.0)
        checks[s] = (ctx, faceup[s], TM_WORTH * min(prize, 10.0) / 10.0)
    if not checks:
        return None
    announced = view.announced

    def accept(seat: int, hand: list[int]) -> bool:
        check = checks.get(seat)
        if check is None:
            return True
        ctx, offer, weight = check
        whole = [h + o for h, o in zip(hand, offer, strict=True)]
        size = sum(offer)
        if size != min(announced, sum(whole)):
            return True  # not an offer the greedy player makes: nothing to learn
        kept = ctx.evaluate(tuple(hand))
        paid = sum(v * k for v, k in enumerate(offer))
        as_tm = as_other = False  # a better offer for a TM, for another seat
        for alt in map(to_counts, submultisets(whole, size)):
            score = ctx.evaluate(tuple(h - a for h, a in zip(whole, alt, strict=True)))
            as_tm = as_tm or score > kept + EPS
            as_other = as_other or (score + weight * sum(v * k for v, k in enumerate(alt))
                                    > kept + weight * paid + EPS)
            if as_tm and as_other:
                return False
        return True

    return accept


def _offer_candidates(kind: str, scored: Sequence[tuple[float, Decision]], choice: Decision,
                      limit: int) -> list[Decision]:
    """The offers compared (scored by greedy, best first), greedy's choice first. ``all``:
    every offer; ``bids``: for each offer score (R5.4: the sum of the trade values), greedy's
    best offer of that score, the best-scored of them first, at most ``limit``: offers that
    bid differently for the Trade Master's token, each keeping the most of the hand."""
    if kind == "all":
        return [choice, *(d for _, d in scored if d != choice)]
    out = [choice]
    seen = {_bid(choice)}
    for _, d in scored:
        if len(out) >= limit:
            break
        bid = _bid(d)
        if bid not in seen:
            seen.add(bid)
            out.append(d)
    return out


def _bid(d: Decision) -> int:
    return sum(d.cards) if isinstance(d, Offer) else -1


def look_ahead(game: Game, last_round: int) -> Game:
    """``game`` made a rollout game: it keeps no log, and it halts (phase over, no result)
    when round ``last_round`` ends instead of starting the next one. Its copies do the
    same."""
    game.keep_log = False
    game.on_round_end = lambda g: g.round >= last_round
    return game


def _set_cost(d: MakeSet) -> tuple[int, int]:
    return (len(d.cards), d.cards.count(RELIC))


def _rounds_left(g: Game) -> float:
    """The greedy player's estimate of the income payments left (at least 1)."""
    leader = max(g.doubloons)
    done = max(g.round - 1, 0)
    pace = max((leader + 25.0) / (done + 5.0), 2.5)
    left = (WIN_DOUBLOONS - leader) / pace
    by_queue = len(g.devpile) / max(g.players * 0.6, 1.0) + 1.0
    return max(1.0, min(left, by_queue, 14.0))


def worth_parts(g: Game, rounds_left: float | None = None) -> list[list[float]]:
    """Per seat, the parts of what it is worth for the rest of the game, in doubloons, in the
    order of :data:`PARTS`: its doubloons; then, as the greedy player values a development it
    owns, the printed income of its developments over the rounds left, a development taken
    (one an opponent does not get), the caravels' extra cards, the merchants' conversions, the
    warehouse slots, the shipyards' income and the character powers; its stored cards as the
    greedy player values them for next round's event; and its printed income for one round.
    ``rounds_left``: the estimate of the income payments left, when already known."""
    r = _rounds_left(g) if rounds_left is None else rounds_left
    later = max(r - 1.0, 0.0)
    deck = g.deck
    n = g.players
    caravels = [len(c) for c in g.caravels]
    # Stored cards serve in the next round, whose event is queue card 1's icon (R3.2, R3.4).
    event = deck[g.queue[0]].icon if g.queue else None
    cosa = g.owner.get("cosa")
    out = []
    for s in range(n):
        income = caravel = merchant = warehouse = shipyard = power = 0.0
        have = [0, 0, 0, 0]
        for m in g.merchants[s]:
            have[deck[m].merchant_class] += 1
        slots = g.capacity[s]
        devs = g.devs[s]
        for cid in devs:
            card = deck[cid]
            income += card.income
            kind = card.kind
            if kind == "caravel":
                caravel += (CARD_WORTH - 0.03 * card.caravel) * later
            elif kind == "merchant":
                merchant += MERCHANT_MORE / have[card.merchant_class] * r
            elif kind == "warehouse":
                for i in range(slots, slots + card.capacity):
                    warehouse += WAREHOUSE_SLOT[min(i, len(WAREHOUSE_SLOT) - 1)] * later
            elif kind == "shipyard":
                richer = sum(1 for t in range(n) if t != s and caravels[t] > caravels[s])
                shipyard += max(richer, 0.5) * SHIPYARD_RATE * r
            elif card.power:
                power += POWER_RATE.get(card.power, 0.3) * r
        stored_worth = 0.0
        stored = g.stored[s]
        if any(stored):
            pair, single, relic = store_worths(None if s == cosa else event)
            for v in range(1, 10):
                k = stored[v]
                if k >= 2:
                    stored_worth += pair * min(k, 3)
                elif k:
                    stored_worth += single + 0.03 * v
            stored_worth += relic * stored[RELIC]
        out.append([float(g.doubloons[s]), income * r, DENIAL * len(devs), caravel, merchant,
                    warehouse, shipyard, power, stored_worth, income])
    return out


def fitted_features(parts: Sequence[float], rounds_left: float) -> list[float]:
    """The features of the fitted evaluation: a seat's :func:`worth_parts`, then each of
    them times ``rounds_left / 10`` and divided by ``rounds_left`` (at least 1), so that
    their weights can change smoothly as the game goes on."""
    late = 1.0 / max(rounds_left, 1.0)
    early = rounds_left / 10.0
    return [*parts, *(p * early for p in parts), *(p * late for p in parts)]


def net_inputs(g: Game, rounds_left: float, parts: Sequence[Sequence[float]]
               ) -> list[list[float]]:
    """Per seat, the inputs of the ``net`` evaluation's hidden units, in the order of
    :data:`NET_INPUTS`: its :func:`worth_parts` ``parts``; the rounds left and their inverse;
    its lead over the best other seat in doubloons, in worth (the parts but the income rate
    added up) and in doubloons plus income over the rounds left; whether it is the TM, and
    one flag for each seat it sits after the TM; its developments, caravels and warehouse
    slots."""
    n = g.players
    r = rounds_left
    late = 1.0 / max(r, 1.0)
    leads = _leads(r, parts)
    out = []
    for s in range(n):
        after = (s - g.tm) % n
        out.append([*parts[s], r, late, *leads[s], float(after == 0), float(after == 1),
                    float(after == 2), float(after == 3), float(len(g.devs[s])),
                    float(len(g.caravels[s])), float(g.capacity[s])])
    return out


def _leads(r: float, parts: Sequence[Sequence[float]]) -> list[tuple[float, ...]]:
    """Per seat, its lead over the best other seat in doubloons, in worth and in projected
    doubloons (:func:`net_inputs`)."""
    money = [p[0] for p in parts]
    worth = [p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7] + p[8] for p in parts]
    projected = [p[0] + p[9] * r for p in parts]
    return list(zip(*(_lead(v) for v in (money, worth, projected)), strict=True))


def _lead(values: list[float]) -> list[float]:
    """Each value minus the largest of the others."""
    top = max(values)
    i = values.index(top)
    second = max(values[:i] + values[i + 1:])
    return [v - top if s != i else v - second for s, v in enumerate(values)]


class _Net:
    """The ``net`` evaluation: a seat's logit is the fitted conditional logit's (its own
    weights) plus ``out . tanh(hidden . inputs + bias)``, inputs standardized."""

    def __init__(self, data: dict[str, Any]) -> None:
        if data.get("format") != "mundus-net search evaluation":
            raise ValueError("not a mundus-net search evaluation weights file")
        inputs = data.get("inputs")
        seat = inputs == [*NET_INPUTS, "searcher"]
        if inputs != list(NET_INPUTS) and not seat:
            raise ValueError("the evaluation's weights are for other inputs than this "
                             "version's")
        linear = [float(v) for v in data["linear"]]
        k = len(PARTS)
        searcher = [float(v) for v in data["searcher"]] if seat else [0.0, 0.0, 0.0]
        if len(linear) != 3 * k or len(searcher) != 3:
            raise ValueError("the evaluation's weights file is damaged")
        # The searcher flag (the ``seat`` evaluation): its linear weights (x 1, x r/10, / r)
        # and its weight in each hidden unit, added to the searcher's seat only.
        self.seat = seat
        self.searcher = (searcher[0], searcher[1], searcher[2])
        self.linear = tuple(zip(linear[:k], linear[k:2 * k], linear[2 * k:], strict=True))
        mean = [float(v) for v in data["mean"]]
        scale = [float(v) for v in data["scale"]]
        # Standardizing folded into each hidden unit: w . (x - mean) / scale + b; then the
        # inputs every seat shares (rounds left, its inverse) and the TM flags taken out of
        # the product: the flags' weights are looked up by seat after the TM.
        flag = NET_INPUTS.index("tm")
        end = len(NET_INPUTS)
        units = []
        flags: list[float] = []
        for column, bias, out in zip(data["hidden"], data["bias"], data["out"], strict=True):
            w = [float(v) / sd for v, sd in zip(column, scale, strict=True)]
            b = float(bias) - sum(wi * m for wi, m in zip(w, mean, strict=True))
            units.append((w[:k] + w[k + 2:flag] + w[flag + 4:end], w[k], w[k + 1],
                          tuple(w[flag:flag + 4]), b, float(out)))
            flags.append(w[end] if seat else 0.0)
        self.units = units
        self.flags = flags


_NETS: dict[str, _Net] = {}


def _net(name: str = NET_FILE) -> _Net:
    """A shipped net evaluation (``net``: :data:`NET_FILE`, ``seat``: :data:`SEAT_FILE`),
    read once."""
    net = _NETS.get(name)
    if net is None:
        text = resources.files("mundus_net.bots").joinpath("data", name).read_text(
            encoding="utf-8")
        net = _NETS[name] = _Net(json.loads(text))
    return net


def win_shares(g: Game, evaluation: str = "fitted", temperature: float = 8.0,
               dev_scale: float = DEFAULT_DEV_SCALE, searcher: int = -1) -> list[float]:
    """Each seat's estimated share of the win from a position at the end of a round (the
    shares add up to 1). ``fitted``: the softmax over seats of :data:`FITTED` times the
    seat's :func:`fitted_features`, a conditional logit fitted to who won greedy games from
    such positions; ``net``: that logit plus hidden units (:data:`NET_FILE`); ``seat``: the
    same fitted to games of a search bot and three greedy ones, with seat ``searcher`` (-1:
    none) flagged as the search bot's (:data:`SEAT_FILE`); ``hand``: the softmax of
    :func:`worths` (developments at ``dev_scale``) at ``temperature`` doubloons per unit."""
    if evaluation == "fitted":
        # w . fitted_features(parts, r), with each part's three weights added up first.
        r = _rounds_left(g)
        early, late = r / 10.0, 1.0 / max(r, 1.0)
        weights = [a + b * early + c * late for a, b, c in _FITTED_BY_PART]
        logits = [sum(map(operator.mul, weights, parts)) for parts in worth_parts(g, r)]
    elif evaluation == "net" or evaluation == "seat":
        # The fitted logit (the net's own weights) plus the hidden units of net_inputs, the
        # inputs every seat shares added to each unit's bias once.
        net = _net(NET_FILE if evaluation == "net" else SEAT_FILE)
        r = _rounds_left(g)
        early, late = r / 10.0, 1.0 / max(r, 1.0)
        weights = [a + b * early + c * late for a, b, c in net.linear]
        units = [(w, b + w_r * r + w_late * late, flags, out)
                 for w, w_r, w_late, flags, b, out in net.units]
        # The ``seat`` evaluation: the searcher's seat has the flag's weights added, to its
        # logit and to each hidden unit's bias.
        flagged = searcher if net.seat else -1
        bonus = 0.0
        flagged_units = units
        if flagged >= 0:
            one, by_early, by_late = net.searcher
            bonus = one + by_early * early + by_late * late
            flagged_units = [(w, b + f, flags, out)
                             for (w, b, flags, out), f in zip(units, net.flags, strict=True)]
        all_parts = worth_parts(g, r)
        leads = _leads(r, all_parts)
        n, tm = g.players, g.tm
        logits = []
        for s, parts in enumerate(all_parts):
            after = (s - tm) % n
            inputs = [*parts, *leads[s], float(len(g.devs[s])), float(len(g.caravels[s])),
                      float(g.capacity[s])]
            u = sum(map(operator.mul, weights, parts))
            if s == flagged:
                u += bonus
            for w, b, flags, out in (flagged_units if s == flagged else units):
                on = flags[after] if after < 4 else 0.0
                u += out * math.tanh(b + on + sum(map(operator.mul, w, inputs)))
            logits.append(u)
    else:
        logits = [w / temperature for w in worths(g, dev_scale)]
    top = max(logits)
    weights = [math.exp(v - top) for v in logits]
    total = sum(weights)
    return [v / total for v in weights]


def worths(g: Game, scale: float = 1.0) -> list[float]:
    """Each seat's doubloons plus what its developments and stored cards are worth for the
    rest of the game, in doubloons (the greedy player's estimates, as it values a
    development it owns, developments at ``scale``; stored cards as it values them for next
    round's event): :func:`worth_parts` added up."""
    return [p[0] + scale * (p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7]) + p[8]
            for p in worth_parts(g)]

