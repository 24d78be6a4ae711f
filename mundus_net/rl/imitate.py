"""Imitation of the search bot: the teacher that records its choices, and the fit of the
learned bot's network to them (``mundus train`` drives both, docs/rl.md).

:class:`Teacher` is the search bot with the settings it had when the shipped weights were
trained (:data:`TEACHING`; searching every kind it searches, it plays exactly as such a
``SearchBot`` does, same seed, same games; ``phases="turn"`` searches only those) that also
keeps, at each decision it searches, every candidate's features
(:func:`mundus_net.bots.learned.candidate_features`), the candidate it chose and each
candidate's mean share of the win over its rollouts. :func:`fit` trains the network of
:class:`mundus_net.bots.learned.Model` on such samples (numpy, the ``rl`` extra): a softmax
over each decision's candidates, the cross-entropy to the search's choice or to the softmax
of its estimates, Adam, minibatches drawn from a generator seeded by ``seed``, so the same
samples and seed give the same weights. The teacher needs only the standard library;
:func:`fit` imports numpy when called.
"""

from __future__ import annotations

import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from mundus_net.bots.learned import FEATURES, Model, candidate_features
from mundus_net.bots.search import EARLIER_DEFAULTS, SEARCH_PHASES, SearchBot
from mundus_net.engine.decisions import Decision
from mundus_net.engine.game import Game
from mundus_net.engine.view import View

__all__ = ["TEACHERS", "TEACHING", "Fitted", "Sample", "Teacher", "fit", "phase_list",
           "sample_from_row", "sample_to_row"]


@dataclass(frozen=True, slots=True)
class Sample:
    """One searched decision: the phase, each candidate's features (``FEATURES`` numbers per
    candidate, flat, float32), the index of the candidate the search chose, and each
    candidate's mean share of the win over the search's rollouts."""

    phase: str
    features: bytes
    choice: int
    values: tuple[float, ...]

    @property
    def candidates(self) -> int:
        return len(self.values)


def sample_to_row(sample: Sample) -> list[Any]:
    """A sample as plain data (a tournament row's ``samples`` entry: msgpack and pickle
    carry it)."""
    return [sample.phase, sample.features, sample.choice, list(sample.values)]


def sample_from_row(row: Sequence[Any]) -> Sample:
    phase, features, choice, values = row
    return Sample(str(phase), bytes(features), int(choice), tuple(float(v) for v in values))


def phase_list(text: str) -> tuple[str, ...]:
    """``"turn,announce"`` -> the decision kinds it names, ``"all"`` -> every kind the search
    searches (ValueError naming one that the search does not search)."""
    if text.strip() == "all":
        return SEARCH_PHASES
    phases = tuple(p.strip() for p in text.split(",") if p.strip())
    unknown = [p for p in phases if p not in SEARCH_PHASES]
    if unknown or not phases:
        raise ValueError(f"phases are some of {', '.join(SEARCH_PHASES)}, not {text!r}")
    return phases


# Every teacher made in this process, in order (a run of games takes its teachers' samples
# from here: the tournament's runner makes its bots itself).
TEACHERS: list[Teacher] = []


# The search's settings when the shipped weights were trained: `mundus train` still makes them.
TEACHING: Final[dict[str, Any]] = EARLIER_DEFAULTS


class Teacher(SearchBot):
    """The search bot with the settings it had before issue 35 (the teacher of the shipped
    weights), recording a :class:`Sample` at each decision it searches (in ``samples``)."""

    def __init__(self, seed: int = 0, iterations: int | None = None,
                 seconds: float | None = None, phases: str | None = None) -> None:
        super().__init__(seed, iterations, seconds, **TEACHING,
                         phases=SEARCH_PHASES if phases is None else phase_list(phases))
        self.samples: list[Sample] = []
        self._values: list[float] = []
        TEACHERS.append(self)

    def _search(self, view: View, cands: list[Decision]) -> Decision:
        features = candidate_features(view, cands, self.greedy.scored,
                                      self.greedy.context(view))
        self._values = []
        chosen = super()._search(view, cands)
        k = len(cands)
        values = self._values
        done = len(values) // k
        means = tuple(sum(values[i::k]) / max(done, 1) for i in range(k))
        flat = array.array("f", [v for x in features for v in x])
        self.samples.append(Sample(view.phase, flat.tobytes(), cands.index(chosen), means))
        return chosen

    def rollout(self, g: Game, seat: int, seed: int) -> float:
        value = super().rollout(g, seat, seed)
        self._values.append(value)
        return value


@dataclass(frozen=True, slots=True)
class Fitted:
    """A trained model and how well it imitates: on the held-out decisions, the share where
    it chose as the search did, and the share where greedy's choice was the search's (what
    always playing greedy's choice would score); ``gain``: the mean, over the held-out
    decisions, of the search's estimate of the share of the win of the candidate it chooses
    minus that of greedy's choice (0 for greedy; the search's own choices score more, as
    they pick the best of noisy estimates)."""

    model: Model
    train_decisions: int
    held_out: int
    accuracy: float
    greedy_accuracy: float
    loss: float
    gain: float


def fit(samples: Sequence[Sample], *, seed: int = 0, hidden: int = 32, epochs: int = 40,
        batch: int = 256, rate: float = 0.003, l2: float = 1e-4, held_out: float = 0.1,
        temperature: float = 0.0,
        progress: Callable[[int, int, float], None] | None = None) -> Fitted:
    """Train the network on ``samples`` (the last ``held_out`` share of them kept aside to
    measure it). ``temperature`` 0: the target is the search's choice; above 0: the softmax
    of the candidates' mean shares of the win at that temperature (the search's estimates,
    which say how much better a candidate looked, not only which was best).
    ``progress(epoch, epochs, loss)`` after each epoch."""
    import numpy as np

    if not samples:
        raise ValueError("no samples to learn from (no decision was searched)")
    rng = np.random.default_rng(seed)
    k = max(s.candidates for s in samples)
    n = len(samples)
    x = np.zeros((n, k, FEATURES), dtype=np.float64)
    mask = np.zeros((n, k), dtype=bool)
    y = np.zeros(n, dtype=np.int64)
    values = np.zeros((n, k))
    for i, s in enumerate(samples):
        c = s.candidates
        x[i, :c] = np.frombuffer(s.features, dtype=np.float32).reshape(c, FEATURES)
        mask[i, :c] = True
        y[i] = s.choice
        values[i, :c] = s.values
    if temperature > 0:
        logits = np.where(mask, values / temperature, -1e9)
        target = np.exp(logits - logits.max(axis=1, keepdims=True)) * mask
        target /= target.sum(axis=1, keepdims=True)
    else:
        target = np.zeros((n, k))
        target[np.arange(n), y] = 1.0
    cut = n - int(n * held_out) if held_out > 0 else n
    cut = max(1, cut)
    w1 = rng.normal(0.0, 1.0 / np.sqrt(FEATURES), (FEATURES, hidden))
    b1 = np.zeros(hidden)
    w2 = rng.normal(0.0, 1.0 / np.sqrt(hidden), hidden)
    params = [w1, b1, w2]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    step = 0

    def forward(xb: Any, mb: Any) -> tuple[Any, Any, Any]:
        h = np.tanh(xb @ w1 + b1)  # (b, k, hidden)
        scores = h @ w2  # (b, k)
        scores = np.where(mb, scores, -1e9)
        scores = scores - scores.max(axis=1, keepdims=True)
        p = np.exp(scores) * mb
        p /= p.sum(axis=1, keepdims=True)
        return h, scores, p

    loss = 0.0
    for epoch in range(epochs):
        order = rng.permutation(cut)
        total = 0.0
        for start in range(0, cut, batch):
            idx = order[start:start + batch]
            xb, mb, tb = x[idx], mask[idx], target[idx]
            h, _, p = forward(xb, mb)
            total += float(-(tb * np.log(p + 1e-12)).sum())
            grad_s = (p - tb) / len(idx)  # d loss / d score, (b, k)
            g_w2 = np.einsum("bk,bkh->h", grad_s, h) + l2 * w2
            grad_h = grad_s[:, :, None] * w2[None, None, :] * (1.0 - h * h)
            g_w1 = np.einsum("bkf,bkh->fh", xb, grad_h) + l2 * w1
            g_b1 = grad_h.sum(axis=(0, 1))
            step += 1
            for param, grad, m, v in zip(params, (g_w1, g_b1, g_w2), moments, squares,
                                         strict=True):
                m *= beta1
                m += (1 - beta1) * grad
                v *= beta2
                v += (1 - beta2) * grad * grad
                m_hat = m / (1 - beta1 ** step)
                v_hat = v / (1 - beta2 ** step)
                param -= rate * m_hat / (np.sqrt(v_hat) + eps)
        loss = total / cut
        if progress is not None:
            progress(epoch + 1, epochs, loss)
    if cut < n:
        _, _, p = forward(x[cut:], mask[cut:])
        picks = p.argmax(axis=1)
        accuracy = float((picks == y[cut:]).mean())
        greedy = float((y[cut:] == 0).mean())
        rows = np.arange(n - cut)
        gain = float((values[cut:][rows, picks] - values[cut:, 0]).mean())
    else:
        accuracy = greedy = gain = float("nan")
    model = Model(tuple(tuple(round(float(v), 6) for v in row) for row in w1),
                  tuple(round(float(v), 6) for v in b1), tuple(round(float(v), 6) for v in w2),
                  {})
    return Fitted(model, cut, n - cut, accuracy, greedy, loss, gain)
