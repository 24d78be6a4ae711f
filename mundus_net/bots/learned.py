"""``learned``: the greedy player's candidates, chosen by a small network that learned to play
as the search bot does.

At every decision of the kinds its weights learned (``Model.phases``; the shipped ones: the
progression turn) with more than one sensible choice, the bot lists the same candidates the
search bot compares (greedy's choice, the next best by greedy's own scores, every choice when
there are few, each queue target of a progression turn), describes each by a few numbers
(:func:`candidate_features`: greedy's score of it and its rank, the phase, the kind of
decision and what it names, the development a set reaches, the seat's standing), scores each
with a one-hidden-layer network (tanh) and takes the best; greedy's choice wins ties, and
greedy plays every other decision. The network was trained by imitation: ``mundus train``
plays games of the search bot (searching those kinds) against three greedy bots through the
tournament's game runner, records at each searched decision the candidates and the search's
estimate of each, and fits the network to choose as it did (:mod:`mundus_net.rl.imitate`,
docs/rl.md). Its weights ship with the package (``mundus_net/bots/data/learned.json``) and
are read with the standard library: playing needs neither numpy nor anything beyond the
package's own dependencies. A decision costs about a greedy decision and a few hundred
multiplications per candidate; it is deterministic (no chances drawn beyond greedy's seeded
tie-breaks).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from mundus_net.bots.greedy import _Context
from mundus_net.bots.search import Ranker
from mundus_net.engine.cards import RELIC
from mundus_net.engine.decisions import (
    TARGET_CASH,
    TARGET_DRAW,
    Announce,
    ChooseEvent,
    ChooseFirst,
    ChooseTradeMaster,
    Decision,
    MakeSeries,
    MakeSet,
    Offer,
    PickCards,
    PirateDiscard,
    Store,
    Take,
)
from mundus_net.engine.view import View

__all__ = [
    "ALL_CHOICES", "FEATURES", "LEARNED_PHASES", "MAX_ALL", "WEIGHTS_FILE", "LearnedBot",
    "Model", "Ranker", "candidate_features", "candidates", "default_model", "load_model",
]

# The decision kinds the network chooses in (greedy plays the others), and those in which
# every choice is a candidate (at most MAX_ALL): as the search bot (mundus_net.bots.search).
LEARNED_PHASES = ("announce", "offer", "take", "first", "turn", "tm_tie", "pick", "pirates",
                  "gift", "store", "coronado", "split", "sergio")
ALL_CHOICES = ("announce", "first", "tm_tie", "coronado", "split")
MAX_ALL = 8
CANDIDATES = 4  # of greedy's best scored choices, at most
MARGIN = 3.0  # doubloons of greedy's best score: scored choices further behind are not tried
WEIGHTS_FILE = "learned.json"  # in mundus_net/bots/data
_KINDS = ("ChooseEvent", "SplitFleet", "PickCards", "BuyMarket", "PirateDiscard", "Announce",
          "Offer", "ChooseTradeMaster", "Take", "Gift", "ChooseFirst", "Convert", "MakeSet",
          "MakeSeries", "MakeRelicSet", "MakePerfect", "EndTurn", "Store")
_EVENTS = (None, "KA", "IP", "ST", "FI", "PI")
_DEV_KINDS = ("caravel", "merchant", "warehouse", "shipyard", "character", "building")
_WITH_CARDS = (PickCards, PirateDiscard, Offer, MakeSet, MakeSeries, Store)
_KIND_AT = {name: i for i, name in enumerate(_KINDS)}
_PHASE_AT = {name: i for i, name in enumerate(LEARNED_PHASES)}
_EVENT_AT = {name: i for i, name in enumerate(_EVENTS)}

# The layout of a candidate's features (candidate_features), block by block.
_BLOCKS = (("bias", 1), ("greedy's choice", 1), ("rank", 4), ("scored", 1), ("score gap", 1),
           ("phase", len(LEARNED_PHASES)), ("kind", len(_KINDS)), ("announce", 3),
           ("cards", 4), ("target", 3), ("take", 3), ("seat", 3), ("event", len(_EVENTS)),
           ("players", 5), ("standing", 7), ("development", 4 + len(_DEV_KINDS)))
FEATURES = sum(size for _, size in _BLOCKS)


def _starts() -> dict[str, int]:
    out: dict[str, int] = {}
    at = 0
    for name, size in _BLOCKS:
        out[name] = at
        at += size
    return out


_START = _starts()


def _set_cost(d: MakeSet) -> tuple[int, int]:
    return (len(d.cards), d.cards.count(RELIC))


def candidates(phase: str, legal: Sequence[Decision], choice: Decision,
               scored: Sequence[tuple[float, Decision]]) -> list[Decision]:
    """The decisions worth comparing, greedy's choice first (as the search bot lists them)."""
    if phase in ALL_CHOICES:
        return [choice, *(d for d in legal if d != choice)][:MAX_ALL]
    if phase == "turn":
        sets: dict[int, MakeSet] = {}
        for d in legal:
            if isinstance(d, MakeSet):
                best = sets.get(d.target)
                if best is None or _set_cost(d) < _set_cost(best):
                    sets[d.target] = d
        return [choice, *(d for d in sets.values() if d != choice)]
    ranked = sorted(scored, key=lambda sd: -sd[0])
    out = [choice]
    floor = ranked[0][0] - MARGIN if ranked else -1e18
    for score, d in ranked:
        if len(out) >= CANDIDATES or score < floor:
            break
        if d not in out:
            out.append(d)
    return out


def candidate_features(view: View, cands: Sequence[Decision],
                       scored: Sequence[tuple[float, Decision]],
                       context: _Context | None = None) -> list[list[float]]:
    """One vector of :data:`FEATURES` numbers per candidate (``cands[0]`` is greedy's
    choice; ``scored``: greedy's (score, decision) pairs of this decision, if it scored
    them), from what the seat's view shows. ``context``: the greedy player's evaluation
    context of this view (its values of the queue's developments describe the development a
    set reaches; None: not described)."""
    seat = view.seat if view.seat is not None else 0
    players = view.players
    doubloons = view.doubloons
    mine = doubloons[seat]
    others = [d for s, d in enumerate(doubloons) if s != seat]
    best_other = max(others) if others else 0
    scores = {d: s for s, d in scored}
    top = max(scores.values()) if scores else 0.0
    phase = _PHASE_AT.get(view.phase)
    common = [0.0] * FEATURES
    common[_START["bias"]] = 1.0
    if phase is not None:
        common[_START["phase"] + phase] = 1.0
    common[_START["players"] + min(max(players, 2), 6) - 2] = 1.0
    at = _START["standing"]
    common[at] = view.round / 20.0
    common[at + 1] = mine / 75.0
    common[at + 2] = best_other / 75.0
    common[at + 3] = max(-2.0, min(2.0, (mine - best_other) / 20.0))
    common[at + 4] = 1.0 if mine >= best_other else 0.0
    common[at + 5] = len(view.hand) / 10.0
    common[at + 6] = len(cands) / 8.0
    out = []
    for rank, d in enumerate(cands):
        x = common[:]
        if rank == 0:
            x[_START["greedy's choice"]] = 1.0
        x[_START["rank"] + min(rank, 3)] = 1.0
        score = scores.get(d)
        if score is not None:
            x[_START["scored"]] = 1.0
            x[_START["score gap"]] = max(-3.0, (score - top) / 3.0)
        kind = _KIND_AT.get(type(d).__name__)
        if kind is not None:
            x[_START["kind"] + kind] = 1.0
        _describe(x, d, seat, players, doubloons)
        if context is not None and isinstance(d, MakeSet):
            _describe_development(x, d, context)
        out.append(x)
    return out


def _describe(x: list[float], d: Decision, seat: int, players: int,
              doubloons: Sequence[int]) -> None:
    """Write what decision ``d`` names into its feature vector ``x``."""
    if isinstance(d, Announce):
        x[_START["announce"] + min(max(d.n, 2), 4) - 2] = 1.0
        return
    if isinstance(d, ChooseEvent):
        event = _EVENT_AT.get(d.event)
        if event is not None:
            x[_START["event"] + event] = 1.0
        return
    if isinstance(d, (ChooseFirst, ChooseTradeMaster)):
        offset = (d.seat - seat) % players
        at = _START["seat"]
        x[at] = 1.0 if offset == 0 else 0.0
        x[at + 1] = offset / players
        x[at + 2] = max(-2.0, min(2.0, (doubloons[d.seat] - doubloons[seat]) / 20.0))
        return
    if isinstance(d, Take):
        at = _START["take"]
        x[at] = 1.0 if d.swap is not None else 0.0
        x[at + 1] = d.card / 10.0
        x[at + 2] = (d.swap or 0) / 10.0
        return
    cards: tuple[int, ...] = d.cards if isinstance(d, _WITH_CARDS) else ()
    if cards:
        at = _START["cards"]
        x[at] = len(cards) / 5.0
        x[at + 1] = cards.count(RELIC) / 2.0
        x[at + 2] = sum(c for c in cards if c != RELIC) / (9.0 * len(cards))
        x[at + 3] = 1.0 if len(set(cards)) == 1 else 0.0
    if isinstance(d, MakeSet):
        at = _START["target"]
        if d.target == TARGET_CASH:
            x[at] = 1.0
        elif d.target == TARGET_DRAW:
            x[at + 1] = 1.0
        else:
            x[at + 2] = d.target / 5.0


def _describe_development(x: list[float], d: MakeSet, context: _Context) -> None:
    """Write what the development set ``d`` reaches is (its kind and printed income) and
    what the greedy player thinks it is worth, also against the best it could reach."""
    qv = context.qv
    if not 1 <= d.target <= len(qv):
        return
    card = context.card(context.queue[d.target - 1])
    value = qv[d.target - 1]
    at = _START["development"]
    x[at] = 1.0
    x[at + 1] = max(-2.0, min(2.0, value / 20.0))
    x[at + 2] = max(-2.0, (value - max(qv)) / 10.0)
    x[at + 3] = card.income / 3.0
    if card.kind in _DEV_KINDS:
        x[at + 4 + _DEV_KINDS.index(card.kind)] = 1.0


@dataclass(frozen=True, slots=True)
class Model:
    """A one-hidden-layer network scoring a candidate: ``w2 . tanh(W1 x + b1)``. ``columns``:
    W1 by input feature (each a list of ``hidden`` numbers), so that a feature at 0 costs
    nothing. ``meta``: how it was trained (the command, the seed, the figures).
    ``phases``: the decision kinds it learned to choose in (greedy plays the others)."""

    columns: tuple[tuple[float, ...], ...]
    b1: tuple[float, ...]
    w2: tuple[float, ...]
    meta: dict[str, object]
    phases: tuple[str, ...] = LEARNED_PHASES

    def score(self, x: Sequence[float]) -> float:
        hidden = list(self.b1)
        n = len(hidden)
        for value, column in zip(x, self.columns, strict=True):
            if value != 0.0:
                for j in range(n):
                    hidden[j] += value * column[j]
        total = 0.0
        for h, w in zip(hidden, self.w2, strict=True):
            total += math.tanh(h) * w
        return total

    def to_json(self) -> dict[str, object]:
        return {"format": "mundus-net learned bot", "version": 1, "features": len(self.columns),
                "hidden": len(self.b1), "w1_by_feature": [list(c) for c in self.columns],
                "b1": list(self.b1), "w2": list(self.w2), "phases": list(self.phases),
                "meta": self.meta}


def model_from_json(data: object) -> Model:
    """The model in a weights file's JSON (ValueError naming what is wrong)."""
    if not isinstance(data, dict) or data.get("format") != "mundus-net learned bot":
        raise ValueError("not a mundus-net learned bot weights file")
    if data.get("features") != FEATURES:
        raise ValueError(f"the weights are for {data.get('features')} features, this version "
                         f"describes a candidate by {FEATURES}: train it again (mundus train)")
    try:
        columns = tuple(tuple(float(v) for v in c) for c in data["w1_by_feature"])
        b1 = tuple(float(v) for v in data["b1"])
        w2 = tuple(float(v) for v in data["w2"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"the weights file is damaged: {exc}") from None
    if len(columns) != FEATURES or len(w2) != len(b1) or any(len(c) != len(b1)
                                                              for c in columns):
        raise ValueError("the weights file's shapes do not agree")
    phases = data.get("phases", list(LEARNED_PHASES))
    if not isinstance(phases, list) or any(p not in LEARNED_PHASES for p in phases):
        raise ValueError(f"the weights file's phases are not some of "
                         f"{', '.join(LEARNED_PHASES)}: {phases!r}")
    meta = data.get("meta")
    return Model(columns, b1, w2, dict(meta) if isinstance(meta, dict) else {},
                 tuple(phases))


def load_model(path: str | Path | None = None) -> Model:
    """The model in a weights file (default: the one shipped with the package)."""
    if path is None:
        text = resources.files("mundus_net.bots").joinpath("data", WEIGHTS_FILE).read_text(
            encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    return model_from_json(json.loads(text))


_DEFAULT: list[Model] = []


def default_model() -> Model:
    """The shipped model, read once per process."""
    if not _DEFAULT:
        _DEFAULT.append(load_model())
    return _DEFAULT[0]


class LearnedBot:
    """The learned bot (see the module docstring). ``weights``: a weights file written by
    ``mundus train`` (default: the shipped one)."""

    def __init__(self, seed: int = 0, weights: str | None = None) -> None:
        self.seed = seed
        self.model = default_model() if weights is None else load_model(weights)
        self.greedy = Ranker(seed)

    def decide(self, view: View, legal: Sequence[Decision]) -> Decision:
        if len(legal) == 1:
            return legal[0]
        choice = self.greedy.decide(view, legal)
        phase = view.phase
        if phase not in self.model.phases or view.seat is None:
            return choice
        cands = candidates(phase, legal, choice, self.greedy.scored)
        if len(cands) <= 1:
            return choice
        model = self.model
        best, best_score = 0, -math.inf
        features = candidate_features(view, cands, self.greedy.scored,
                                      self.greedy.context(view))
        for i, x in enumerate(features):
            s = model.score(x)
            if s > best_score + 1e-9:
                best, best_score = i, s
        return cands[best]
