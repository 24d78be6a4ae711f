"""Seeds derived from one seed: the same run of games, bots and host bots from one number.

Pure and stable across runs and Python versions (SHA-256, unlike ``hash``). The host, the
sim and the tournament all derive their seeds here, so game ``i`` of a run is the same game
wherever it is played.
"""

from __future__ import annotations

import hashlib

__all__ = ["bot_seed", "derive_seed", "game_seed"]


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed that depends only on ``seed`` and ``parts`` (stable across runs and
    Python versions, unlike ``hash``)."""
    text = "/".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def game_seed(seed: int, index: int) -> int:
    """The engine seed of game ``index`` of a run."""
    return derive_seed(seed, "game", index)


def bot_seed(seed: int, index: int, bot: int) -> int:
    """The seed of bot ``bot`` in game ``index`` of a run."""
    return derive_seed(seed, "bot", index, bot)
