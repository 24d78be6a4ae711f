"""A deterministic bot for tests where a question may be asked twice (a host that restarts
asks again what it had not logged): the answer depends only on the bot's seed and the
question, never on how often it was asked."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from mundus_net.engine.decisions import Decision
from mundus_net.engine.view import PlayerView


class KeyedBot:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return legal[self.key(view, legal) % len(legal)]

    def key(self, view: PlayerView, legal: Sequence[Decision]) -> int:
        """The question as a number: the seed, the round and the legal answers."""
        question = f"{self.seed}/{view.round}/{[repr(d) for d in legal]}"
        return int(hashlib.sha256(question.encode()).hexdigest(), 16)


class AskedAgainBot(KeyedBot):
    """Like KeyedBot, but a question asked again gets the next legal answer: the key is the
    question and how often it was asked. Over a host that went back, the seat plays its
    turns otherwise, and holds other cards at the next offer step."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.asked: dict[int, int] = {}

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        key = self.key(view, legal)
        times = self.asked.get(key, 0)
        self.asked[key] = times + 1
        return legal[(key + times) % len(legal)]
