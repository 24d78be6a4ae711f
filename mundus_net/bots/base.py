"""The bot interface: a bot sees one seat's view and the legal decisions, and picks one."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

from mundus_net.engine.decisions import Decision
from mundus_net.engine.view import PlayerView


@runtime_checkable
class Bot(Protocol):
    """A strategy. ``decide`` is called whenever the bot's seat has a decision pending
    (``legal`` is never empty) and returns one of ``legal``."""

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision: ...


BotFactory = Callable[[int], Bot]  # seed -> bot


def question_seed(seed: int, view: PlayerView, legal: Sequence[Decision]) -> int:
    """A seed for one decision, from the bot's seed and the question alone (the round, the
    step, the hand and the legal decisions): a bot that draws its chances from it answers a
    question asked again (a host resumed from its log asks a fresh bot) as it did the first
    time, whatever it was asked before. (The legal list by its length and ends: cheap, and
    a question's own.)"""
    question = repr((view.round, view.phase, tuple(sorted(view.hand)), len(legal), legal[0],
                     legal[-1]))
    digest = hashlib.blake2b(question.encode(), digest_size=8, key=(seed & (2**64 - 1))
                             .to_bytes(8, "little")).digest()
    return int.from_bytes(digest, "little")
_REGISTRY: dict[str, BotFactory] = {}


def register_bot(name: str, factory: BotFactory) -> None:
    _REGISTRY[name] = factory


def strategy_names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def _load_builtins() -> None:
    # All, always: importing the bots package registers "random" alone, so an empty
    # registry is not the sign that the built-ins are missing (imports are cached).
    importlib.import_module("mundus_net.bots.random_bot")
    importlib.import_module("mundus_net.bots.greedy")
    importlib.import_module("mundus_net.bots.search")


def _import_file(path: str) -> ModuleType:
    """The module in the Python file ``path`` (relative to the current directory), imported
    once under a name made from its absolute path."""
    full = os.path.abspath(path)
    name = "_mundus_bot_" + hashlib.sha256(full.encode()).hexdigest()[:16]
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.spec_from_file_location(name, full)
    if spec is None or spec.loader is None or not os.path.isfile(full):
        raise ImportError(f"no Python file {path!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _import_module(module_name: str) -> ModuleType:
    """``importlib.import_module``; a module not found on ``sys.path`` is looked for in the
    current directory too (the ``mundus`` script does not put it on the path, ``python -m``
    does), so ``examples.cautious_bot:CautiousBot`` works from the repository's root."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        here = os.getcwd()
        top = module_name.partition(".")[0]
        if exc.name not in (top, module_name) or here in sys.path or "" in sys.path:
            raise
        sys.path.append(here)  # after everything installed: it shadows nothing
        return importlib.import_module(module_name)


def split_options(spec: str) -> tuple[str, dict[str, object]]:
    """``search:iterations=8:seconds=0.5`` -> (``search``, {iterations: 8, seconds: 0.5}):
    trailing ``:key=value`` parts are options for the bot's factory (whole numbers, decimals,
    ``true``/``false``, or text)."""
    parts = spec.split(":")
    options: dict[str, object] = {}
    while len(parts) > 1 and "=" in parts[-1]:
        key, _, text = parts.pop().partition("=")
        if not key.isidentifier():
            raise ValueError(f"bot option {key!r} of {spec!r} is not a name")
        options[key] = _option_value(text)
    return ":".join(parts), dict(reversed(list(options.items())))


def _option_value(text: str) -> object:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def load_bot(spec: str, seed: int = 0) -> Bot:
    """A bot from a strategy name (``random``, ``greedy``), ``module:Class`` or
    ``path/to/file.py:Class``, with options after it (``search:iterations=8``: keyword
    arguments of the factory); the class (or any factory) is called with ``seed`` first."""
    _load_builtins()
    base, options = split_options(spec)
    factory = _factory(base, spec)
    if options:
        try:
            inspect.signature(factory).bind(seed, **options)
        except TypeError:
            try:
                accepted = [name for name in inspect.signature(factory).parameters][1:]
            except (TypeError, ValueError):
                accepted = []
            raise ValueError(f"{base!r} takes no option {', '.join(map(repr, options))} "
                             f"(its options: {', '.join(accepted) or 'none'})") from None
    bot = factory(seed, **options)
    if not callable(getattr(bot, "decide", None)):
        raise ValueError(f"{spec!r} has no decide(view, legal) method")
    return bot  # type: ignore[no-any-return]


def _factory(spec: str, whole: str) -> Callable[..., Any]:
    if spec in _REGISTRY:
        return _REGISTRY[spec]
    if ":" not in spec:
        raise ValueError(f"unknown strategy {spec!r}: use one of "
                         f"{', '.join(strategy_names())}, module:Class or file.py:Class")
    module_name, _, attr = spec.rpartition(":")
    try:
        if module_name.endswith(".py") or os.sep in module_name or "/" in module_name:
            module = _import_file(module_name)
        else:
            module = _import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_name!r} for strategy {whole!r}: {exc}") \
            from None
    factory = getattr(module, attr, None)
    if factory is None:
        raise ValueError(f"{module_name!r} has no {attr!r} (strategy {whole!r})")
    return factory  # type: ignore[no-any-return]
