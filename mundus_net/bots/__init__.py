"""Built-in bots and the registry that turns a strategy name into a bot."""

from __future__ import annotations

from mundus_net.bots.base import Bot, load_bot, register_bot, strategy_names
from mundus_net.bots.random_bot import RandomBot

__all__ = ["Bot", "RandomBot", "load_bot", "register_bot", "strategy_names"]
