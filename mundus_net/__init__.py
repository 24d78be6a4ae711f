"""mundus_net: Mundus Novus over the network.

General layout (docs/architecture.md has the whole map, and a test enforces it):

- :mod:`mundus_net.engine`: the rules (docs/rules.md R1-R8), pure: no I/O, no network, no terminal;
- :mod:`mundus_net.bots`: built-in strategies, on the engine only;
- :mod:`mundus_net.protocol`: the wire messages, the commitments, record signing (no sockets'
  owners, no terminal);
- :mod:`mundus_net.host` and :mod:`mundus_net.client`: the two ends of a table, which never
  import each other; :mod:`mundus_net.client.tui` is the terminal client;
- :mod:`mundus_net.tools`: the commands that compose the layers (sim, tournament, ...);
- :mod:`mundus_net.cli`: the ``mundus`` command, which imports a command only when it runs.

This package itself re-exports the engine's main names.
"""

from typing import Any

# First: it refuses a compiled module built from another source than the one beside it.
import mundus_net.compiled  # noqa: F401
from mundus_net.engine.cards import RELIC
from mundus_net.engine.decisions import RuleError
from mundus_net.engine.deck import Deck, DeckError, default_deck, load_deck
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import Event, Game, GameState, Options, Pending, Result
from mundus_net.engine.view import PlayerView

__all__ = [
    "RELIC", "Deck", "DeckError", "Event", "Game", "GameState", "MundusError", "Options",
    "Pending", "PlayerView", "Result", "RuleError", "__version__", "default_deck", "load_deck",
    "version",
]


def version() -> str:
    """The installed distribution's version (one place: pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version
    try:
        return dist_version("mundus-net")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def __getattr__(name: str) -> Any:
    # The version is read from the installed metadata, and only when asked for.
    if name == "__version__":
        return version()
    raise AttributeError(f"module 'mundus_net' has no attribute {name!r}")
