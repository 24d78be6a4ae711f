"""The words of a game's review (``mundus review``, the replay viewer's review line): the
labels and a one-line reason for a decision, in the player's language.

The numbers come from :mod:`mundus_net.bots.review` (language-neutral); a reason names the
better decision and the decision played in the words of the list of choices
(:func:`mundus_net.client.tui.choices.describe`), read in the seat's view at that moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from mundus_net.bots.review import DecisionReview
from mundus_net.client.i18n import N_, current
from mundus_net.client.tui.choices import describe
from mundus_net.engine.view import PlayerView, StateView

__all__ = [
    "BETTER", "LABEL_WORDS", "label_count", "label_word", "points", "reason", "review_line",
    "share",
]

LABEL_WORDS = {
    "inaccuracy": N_("inaccuracy"),
    "mistake": N_("mistake"),
    "blunder": N_("blunder"),
}

# What was better, by the step of the decision.
BETTER = {
    "coronado": N_("a better event choice"),
    "split": N_("a better fleet"),
    "pick": N_("better caravel cards"),
    "sergio": N_("a better market buy"),
    "pirates": N_("a better pirate discard"),
    "announce": N_("a better announcement"),
    "offer": N_("a better offer"),
    "tm_tie": N_("a better Trade Master"),
    "take": N_("a better take"),
    "gift": N_("a better gift"),
    "first": N_("a better first player"),
    "turn": N_("a better combination"),
    "store": N_("better storage"),
}


def label_word(label: str | None) -> str:
    """The label in the player's language (empty for none)."""
    return current()._(LABEL_WORDS[label]) if label in LABEL_WORDS else ""


def label_count(label: str, count: int) -> str:
    """``3 mistakes``, ``1 blunder``, in the player's language."""
    t = current()
    words = {
        "inaccuracy": t.ngettext("{count} inaccuracy", "{count} inaccuracies", count),
        "mistake": t.ngettext("{count} mistake", "{count} mistakes", count),
        "blunder": t.ngettext("{count} blunder", "{count} blunders", count),
    }
    return words[label].format(count=count)


def share(value: float) -> str:
    """A share of the win as a percentage: ``31%``."""
    return current()._("{percent}%").format(percent=round(100 * value))


def points(loss: float) -> str:
    """A loss in percentage points: ``4.2``."""
    return f"{100 * loss:.1f}"


def reason(review: DecisionReview, view: PlayerView, names: Sequence[str]) -> str:
    """Why the decision lost, in one line: what was better, and both shares of the win
    (``view``: the seat's view when it decided)."""
    t = current()
    seen = cast(StateView, view)  # describe reads the attributes both views share
    if review.best == review.played:
        return t._("{played}: the best the search found ({share} of the win)").format(
            played=describe(review.played, seen, names), share=share(review.played_share))
    better = t._(BETTER.get(review.phase, N_("a better decision")))
    return t._("{better}: {best} keeps {best_share} of the win, {played} {played_share}").format(
        better=better, best=describe(review.best, seen, names),
        best_share=share(review.best_share), played=describe(review.played, seen, names),
        played_share=share(review.played_share))


def review_line(review: DecisionReview, view: PlayerView, names: Sequence[str]) -> str:
    """The label, the points lost and the reason: ``mistake (-6.3): a better take: ...``;
    without a label, the reason alone."""
    text = reason(review, view, names)
    if review.label is None:
        return text
    return current()._("{label} (−{points}): {reason}").format(
        label=label_word(review.label), points=points(review.loss), reason=text)
