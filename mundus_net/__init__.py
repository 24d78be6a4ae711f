"""mundus_net: the Mundus Novus rules engine (RULES.md R1-R8). Pure: no I/O, no network."""

from .cards import RELIC
from .decisions import RuleError
from .deck import Deck, DeckError, default_deck, load_deck
from .game import Event, Game, Options, Pending, Result
from .view import PlayerView

__version__ = "0.1.0"

__all__ = [
    "RELIC", "Deck", "DeckError", "Event", "Game", "Options", "Pending", "PlayerView",
    "Result", "RuleError", "default_deck", "load_deck",
]
