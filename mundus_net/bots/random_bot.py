"""``random``: a uniformly random legal decision at every step, drawn from its seed and the
question (:func:`~mundus_net.bots.base.question_seed`), so a question asked again gets the
same answer."""

from __future__ import annotations

from collections.abc import Sequence

from mypy_extensions import mypyc_attr

from mundus_net.bots.base import question_seed
from mundus_net.engine.decisions import Decision
from mundus_net.engine.view import View

__all__ = ["RandomBot"]


# Bots of your own may build on it (docs/bots.md), also when it is compiled.
@mypyc_attr(allow_interpreted_subclasses=True)
class RandomBot:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def decide(self, view: View, legal: Sequence[Decision]) -> Decision:
        if len(legal) == 1:
            return legal[0]
        # 64 random bits of the question's own, taken modulo a list of at most a few hundred
        # decisions: uniform to within 1e-16, without seeding a generator each time.
        return legal[question_seed(self.seed, view, legal) % len(legal)]

