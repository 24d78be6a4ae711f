"""The bot interface: a bot sees one seat's view and the legal decisions, and picks one."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import linecache
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

from mundus_net.engine.decisions import Decision
from mundus_net.engine.game import PHASES
from mundus_net.engine.view import PlayerView, View

__all__ = [
    "BUILTIN_BOTS", "Bot", "BotFactory", "bot_file", "bot_traceback", "load_bot", "question_seed",
    "read_bot_files", "register_bot", "ship_bot_files", "split_options", "strategy_names",
]


@runtime_checkable
class Bot(Protocol):
    """A strategy. ``decide`` is called whenever the bot's seat has a decision pending
    (``legal`` is never empty) and returns one of ``legal``.

    A bot may also have ``on_game_end(view)``: it is called once when the game is over
    (``view.result`` is set), in-process and over the network; a bot object that plays a
    series of games (``mundus tournament --series``,
    :func:`mundus_net.tools.tournament.play_series`) learns from it between games
    (docs/bots.md)."""

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision: ...


BotFactory = Callable[[int], Bot]  # seed -> bot


def bot_traceback(exc: BaseException) -> str:
    """The traceback of an exception a bot raised, without the caller's own frame."""
    tb = exc.__traceback__
    return "".join(traceback.format_exception(type(exc), exc, tb.tb_next if tb else None))


def question_seed(seed: int, view: View, legal: Sequence[Decision]) -> int:
    """A seed for one decision, from the bot's seed and the question alone (the round, the
    step, the hand and the legal decisions): a bot that draws its chances from it answers a
    question asked again (a host resumed from its log asks a fresh bot) as it did the first
    time, whatever it was asked before. (The legal list by its length and ends: cheap, and
    a question's own.)

    The question is a tuple of small integers (the step by its number, each end of the list
    by a digest of its text form, kept per decision object), hashed by Python's tuple hash:
    integers hash to themselves whatever ``PYTHONHASHSEED`` says, so the seed is the same in
    every process, at a fifth of the cost of hashing the question's text (issue 29)."""
    digests, first, last = _DIGESTS, legal[0], legal[-1]
    question = (seed, view.round, _PHASE_NUMBERS.get(view.phase, -1), len(legal),
                digests.get(id(first)) or _digest(first), digests.get(id(last)) or _digest(last),
                *view.hand_counts)
    return hash(question) & _SEED_MASK


_SEED_MASK = 2**64 - 1
_PHASE_NUMBERS = {phase: number for number, phase in enumerate(PHASES)}
# id -> the digest of the decision's repr, for the decisions in _DIGESTED, which keeps them
# alive so that their ids are not reused; the engine shares its decisions, so a few thousand
# cover it.
_DIGESTS: dict[int, int] = {}
_DIGESTED: list[Decision] = []
_DIGESTS_LIMIT = 50_000


def _digest(decision: Decision) -> int:
    """A 60-bit digest of ``repr(decision)`` (stable in every process, never 0), kept in
    _DIGESTS for this decision object."""
    if len(_DIGESTED) >= _DIGESTS_LIMIT:
        _DIGESTS.clear()
        _DIGESTED.clear()
    digest = hashlib.blake2b(repr(decision).encode(), digest_size=8).digest()
    _DIGESTED.append(decision)
    code = _DIGESTS[id(decision)] = int.from_bytes(digest, "little") >> 4 or 1
    return code


# The built-in strategies by name, as "module:attr": a module is imported only when a bot
# of its name is made (pip's command table), so this module imports none of them.
BUILTIN_BOTS: dict[str, str] = {
    "random": "mundus_net.bots.random_bot:RandomBot",
    "greedy": "mundus_net.bots.greedy:GreedyBot",
    "search": "mundus_net.bots.search:SearchBot",
    "learned": "mundus_net.bots.learned:LearnedBot",
}
_REGISTRY: dict[str, BotFactory] = {}  # registered while the program runs (register_bot)


def register_bot(name: str, factory: BotFactory) -> None:
    """Make ``name`` a strategy name for ``factory`` (called with the seed, then the
    options), in this process; it takes precedence over a built-in of the same name."""
    _REGISTRY[name] = factory


def strategy_names() -> list[str]:
    """Every strategy name, built-in or registered, sorted (no bot module is imported)."""
    return sorted(BUILTIN_BOTS.keys() | _REGISTRY.keys())


def _named_factory(name: str) -> Callable[..., Any] | None:
    """The factory of a strategy name, its module imported now; None for another name."""
    factory = _REGISTRY.get(name)
    if factory is not None:
        return factory
    target = BUILTIN_BOTS.get(name)
    if target is None:
        return None
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)  # type: ignore[no-any-return]


# Bot files read once where a run starts and shipped with its settings (to worker processes
# and Dask workers, which may not see the file): path as given -> (absolute path, source).
_SHIPPED: dict[str, tuple[str, str]] = {}


def bot_file(spec: str) -> str | None:
    """The Python file a spec names (``path/to/bot.py:Class:opt=1`` -> ``path/to/bot.py``),
    or None for a strategy name or ``module:Class``."""
    base, _ = split_options(spec)
    module_name, colon, _ = base.rpartition(":")
    if colon and (module_name.endswith(".py") or os.sep in module_name or "/" in module_name):
        return module_name
    return None


def read_bot_files(specs: Sequence[str]) -> tuple[tuple[str, str, str], ...]:
    """(path as given, absolute path, source) of every bot file the specs name, read now
    (ValueError if one cannot be read): what :func:`ship_bot_files` installs elsewhere."""
    out = []
    for path in dict.fromkeys(p for p in map(bot_file, specs) if p is not None):
        full = os.path.abspath(path)
        try:
            with open(full, encoding="utf-8") as handle:
                out.append((path, full, handle.read()))
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read the bot file {path!r}: {exc}") from None
    return tuple(out)


def ship_bot_files(files: Sequence[tuple[str, str, str]]) -> None:
    """Make :func:`load_bot` use these sources for these paths (from
    :func:`read_bot_files`) instead of reading the files here."""
    for path, full, source in files:
        _SHIPPED[path] = (full, source)


def _import_file(path: str) -> ModuleType:
    """The module in the Python file ``path`` (relative to the current directory; or the
    source shipped for it), imported once under a name made from its absolute path and
    source."""
    shipped = _SHIPPED.get(path)
    full = shipped[0] if shipped is not None else os.path.abspath(path)
    key = full if shipped is None else f"{full}\0{shipped[1]}"
    name = "_mundus_bot_" + hashlib.sha256(key.encode()).hexdigest()[:16]
    found = sys.modules.get(name)
    if found is not None:
        return found
    if shipped is not None:
        return _exec_source(name, full, shipped[1])
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


def _exec_source(name: str, full: str, source: str) -> ModuleType:
    """A module made from shipped source; its lines are put in ``linecache`` so tracebacks
    show them where the file does not exist."""
    linecache.cache[full] = (len(source), None, source.splitlines(keepends=True), full)
    module = ModuleType(name)
    module.__file__ = full
    sys.modules[name] = module
    try:
        exec(compile(source, full, "exec"), module.__dict__)
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
    base, options = split_options(spec)
    factory = _factory(base, spec)
    if options:
        try:
            _signature(factory).bind(seed, **options)
        except TypeError:
            try:
                accepted = [name for name in _signature(factory).parameters][1:]
            except (TypeError, ValueError):
                accepted = []
            raise ValueError(f"{base!r} takes no option {', '.join(map(repr, options))} "
                             f"(its options: {', '.join(accepted) or 'none'})") from None
    bot = factory(seed, **options)
    if not callable(getattr(bot, "decide", None)):
        raise ValueError(f"{spec!r} has no decide(view, legal) method")
    return bot  # type: ignore[no-any-return]


def _signature(factory: Callable[..., Any]) -> inspect.Signature:
    """The factory's signature; for a compiled class (which has none), its __init__'s without
    ``self`` (a compiled __init__ with keyword-only parameters has none either: it then takes
    anything here, and refuses a wrong option when called)."""
    try:
        return inspect.signature(factory)
    except ValueError:
        if not isinstance(factory, type):
            raise
        init = inspect.signature(factory.__init__)  # type: ignore[misc]
        return init.replace(parameters=list(init.parameters.values())[1:])


def _factory(spec: str, whole: str) -> Callable[..., Any]:
    named = _named_factory(spec)
    if named is not None:
        return named
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
