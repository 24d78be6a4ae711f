"""A behaviour fingerprint of the engine: one hash over many seeded games of random bots.

Optimising the engine must not change what it does. This script plays a fixed set of seeded
games (2-6 players, promo cards on and off, a random first TM and a round limit in some) with
seeded :class:`RandomBot` players through :func:`mundus_net.tools.runner.play_game`, and hashes

* every decision a bot applied, with the full legal list it was chosen from (the random bot
  picks by index, so the order of a legal list is behaviour too),
* every log event: its kind, its public payload and its private parts,
* a periodic snapshot of the deciding seat's :class:`PlayerView`,
* the final result.

The hash must be the same before and after a change that is meant to be only faster::

    python benchmarks/fingerprint.py            # 300 games
    python benchmarks/fingerprint.py --games 50 # quicker, a weaker check
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Sequence
from typing import Any

from mundus_net.bots.random_bot import RandomBot
from mundus_net.engine.decisions import Decision
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView
from mundus_net.tools.runner import play_game

VIEW_EVERY = 37  # snapshot the deciding seat's view every this many decisions


def canonical(value: Any) -> str:
    """A repr that does not depend on dict insertion order (sets are sorted too)."""
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: repr(kv[0]))
        return "{" + ", ".join(f"{k!r}: {canonical(v)}" for k, v in items) + "}"
    if isinstance(value, (set, frozenset)):
        return "set(" + ", ".join(sorted(canonical(v) for v in value)) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(canonical(v) for v in value) + "]"
    if isinstance(value, tuple):
        # A decision (a NamedTuple) by its kind and values: renaming a field changes nothing.
        kind = type(value).__name__ if hasattr(value, "_fields") else ""
        return kind + "(" + ", ".join(canonical(v) for v in value) + ",)"
    return repr(value)


class RecordingBot:
    """A RandomBot that feeds each choice (and what it was chosen from) into a hash."""

    def __init__(self, seed: int, digest: Any, counter: list[int]) -> None:
        self.inner = RandomBot(seed)
        self.digest = digest
        self.counter = counter

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        choice = self.inner.decide(view, legal)
        self.counter[0] += 1
        update = self.digest.update
        update(f"D{view.seat}:{canonical(choice)}|{len(legal)}:".encode())
        update(hashlib.sha256(canonical(tuple(legal)).encode()).digest())
        if self.counter[0] % VIEW_EVERY == 0:
            update(canonical(view.to_dict()).encode())
        return choice


def game_setup(index: int) -> dict[str, Any]:
    """The table options of game ``index`` of the fixed set."""
    return {
        "players": 2 + index % 5,
        "seed": 1000 + index,
        "promo": index % 3 == 1,
        "first_tm": None if index % 7 == 3 else index % (2 + index % 5),
        "round_limit": 6 if index % 11 == 5 else None,
    }


def fingerprint(games: int, verbose: bool = False) -> tuple[str, int, int]:
    """(hex digest, bot decisions, log events) over the first ``games`` games of the set."""
    digest = hashlib.sha256()
    decisions = [0]
    events = 0
    for index in range(games):
        setup = game_setup(index)
        game = Game.new(setup["players"], setup["seed"], promo=setup["promo"],
                        first_tm=setup["first_tm"], round_limit=setup["round_limit"])
        bots = [RecordingBot(index * 10 + seat, digest, decisions)
                for seat in range(setup["players"])]
        play_game(game, bots)
        for event in game.log:
            digest.update(f"E{event.kind}:{canonical(event.public)}"
                          f":{canonical(event.private)}".encode())
        events += len(game.log)
        assert game.result is not None
        digest.update(f"R{game.result!r}".encode())
        if verbose and (index + 1) % 50 == 0:
            print(f"{index + 1} games", file=sys.stderr)
    return digest.hexdigest(), decisions[0], events


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300, help="games to play (default 300)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    digest, decisions, events = fingerprint(args.games, verbose=True)
    elapsed = time.perf_counter() - start
    print(f"{args.games} games, {decisions} bot decisions, {events} log events, "
          f"{elapsed:.1f} s", file=sys.stderr)
    print(digest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
