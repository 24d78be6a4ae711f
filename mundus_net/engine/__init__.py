"""The rules engine (docs/rules.md R1-R8): cards, the deck, decisions, the game, views, the
notation and game records. Pure: no I/O, no network, no terminal; it imports nothing of the
rest of mundus_net (docs/architecture.md).

The names below are its main surface (each module lists its own in ``__all__``); the
notation (:mod:`mundus_net.engine.notation`), records (:mod:`mundus_net.engine.record`),
determinization and seeds are imported from their modules."""

from mundus_net.engine.decisions import Decision, RuleError
from mundus_net.engine.deck import Deck, DeckError, default_deck, load_deck
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import Event, Game, GameState, Options, Pending, Result
from mundus_net.engine.view import PlayerView, StateView

__all__ = [
    "Decision", "Deck", "DeckError", "Event", "Game", "GameState", "MundusError", "Options",
    "Pending", "PlayerView", "Result", "RuleError", "StateView", "default_deck", "load_deck",
]
