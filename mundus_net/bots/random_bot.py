"""``random``: a uniformly random legal decision at every step, from its own seeded generator."""

from __future__ import annotations

import random
from collections.abc import Sequence

from mundus_net.bots.base import register_bot
from mundus_net.engine.decisions import Decision
from mundus_net.engine.view import PlayerView


class RandomBot:
    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        # choice() draws exactly what legal[randrange(len(legal))] would, with less overhead.
        return self.rng.choice(legal)


register_bot("random", RandomBot)
