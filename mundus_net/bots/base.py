"""The bot interface: a bot sees one seat's view and the legal decisions, and picks one."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from ..decisions import Decision
from ..view import PlayerView


@runtime_checkable
class Bot(Protocol):
    """A strategy. ``decide`` is called whenever the bot's seat has a decision pending
    (``legal`` is never empty) and returns one of ``legal``."""

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision: ...


BotFactory = Callable[[int], Bot]  # seed -> bot
_REGISTRY: dict[str, BotFactory] = {}


def register_bot(name: str, factory: BotFactory) -> None:
    _REGISTRY[name] = factory


def strategy_names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def _load_builtins() -> None:
    # Both, always: importing the bots package registers "random" alone, so an empty
    # registry is not the sign that the built-ins are missing (imports are cached).
    importlib.import_module("mundus_net.bots.random_bot")
    importlib.import_module("mundus_net.bots.greedy")


def load_bot(spec: str, seed: int = 0) -> Bot:
    """A bot from a strategy name (``random``, ``greedy``) or ``module:Class``; the class is
    called with ``seed`` as its only argument."""
    _load_builtins()
    if spec in _REGISTRY:
        return _REGISTRY[spec](seed)
    if ":" not in spec:
        raise ValueError(f"unknown strategy {spec!r}: use one of "
                         f"{', '.join(strategy_names())} or module:Class")
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_name!r} for strategy {spec!r}: {exc}") from None
    factory = getattr(module, attr, None)
    if factory is None:
        raise ValueError(f"{module_name!r} has no {attr!r} (strategy {spec!r})")
    bot = factory(seed)
    if not callable(getattr(bot, "decide", None)):
        raise ValueError(f"{spec!r} has no decide(view, legal) method")
    return bot  # type: ignore[no-any-return]
