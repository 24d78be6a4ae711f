"""Games: the settings that fix a run of games, the seating of each game, playing one game
in-process, and its row. The lower floor of ``mundus sim``, ``mundus tournament`` and its
network runner (:mod:`mundus_net.tools.tournament_network`): game ``i`` is the same game in
all of them, fixed by the master seed and ``i`` alone. The standings made from the rows are
in :mod:`mundus_net.tools.standings`.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mundus_net.bots.base import Bot, load_bot, read_bot_files, ship_bot_files, split_options
from mundus_net.engine.deck import Deck
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import Game
from mundus_net.engine.seeds import bot_seed, game_seed
from mundus_net.protocol.statedir import atomic_write
from mundus_net.tools.referee import Refereed, make_bot, referee
from mundus_net.tools.results import Row, check_spec

__all__ = [
    "DEFAULT_TIME_LIMIT", "Settings", "TournamentError", "design_games", "exit_words", "game_id",
    "make_row", "play_chunk", "play_one", "record_path", "row_of", "seat_names", "seating",
    "without_cpu"
]

DEFAULT_TIME_LIMIT = 10.0  # seconds per decision, as the host's default for network bots


class TournamentError(MundusError, RuntimeError):
    """A game could not be played (not a bot's fault: those are charged and recorded)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything that fixes the games of a tournament (picklable: sent to the workers)."""

    bots: tuple[str, ...]
    players: int
    seed: int = 0
    round_limit: int | None = None
    promo: bool = False
    time_limit: float | None = DEFAULT_TIME_LIMIT
    records: str | None = None  # directory for each game's GameRecord JSON
    rotate: bool = True  # seats rotate from game to game (see seating()); else bot j at seat j
    strict: bool = False  # a failing bot raises instead of being charged (mundus sim)
    deck: Deck | None = None  # None: the default deck
    label: str = "tournament"  # names the games' ids and the records' meta key
    series: bool = False  # one bot object per entry plays every game, in order
    # The bot files, read once at the start (path as given, absolute path, source): every
    # process plays the same code, and workers that cannot see the file still load it.
    files: tuple[tuple[str, str, str], ...] = ()

    def check(self) -> None:
        """Raise ValueError with a clear message for settings that cannot be played."""
        if not 2 <= self.players <= 6:
            raise ValueError(f"a game has 2 to 6 players, not {self.players}")
        if len(self.bots) < self.players:
            raise ValueError(f"{self.players} players need at least {self.players} bots, but "
                             f"{len(self.bots)} were given ({','.join(self.bots) or 'none'})")
        for spec in self.bots:
            check_spec(spec)
        if self.round_limit is not None and self.round_limit < 1:
            raise ValueError(f"the round limit must be at least 1, not {self.round_limit}")
        if self.time_limit is not None and not self.time_limit > 0:
            raise ValueError(f"the time limit must be positive, not {self.time_limit}")

    def with_files(self) -> Settings:
        """These settings with the bot files read now (ValueError if one cannot be)."""
        return dataclasses.replace(self, files=read_bot_files(self.bots))


def seating(index: int, bots: int, players: int, rotate: bool = True,
            seed: int = 0) -> tuple[int, ...]:
    """The bot (index into the bot list) at each seat of game ``index``: a balanced design.

    Every line-up (every set of ``players`` bots out of ``bots``) comes once in each block of
    C games (C = bots choose players), so every pair of bots meets equally often; across
    ``players`` blocks each line-up sits in every rotation, so every bot of it takes every
    seat once; and across the (players - 1)! cyclic orders of a line-up, every relative order
    comes equally often. The orders of line-ups and of cyclic orders are shuffled by ``seed``
    (fixed by it: the same for every ``--jobs`` or worker). Without ``rotate``, seat ``s``
    holds bot ``s`` in every game."""
    if not rotate:
        return tuple(range(players))
    lineups, cycles = _design(bots, players, seed)
    block, which = divmod(index, len(lineups))
    lineup = lineups[which]
    cycle = cycles[(block // players) % len(cycles)]
    turn = block % players
    order = [lineup[c] for c in cycle]  # the line-up in this cyclic order, then rotated
    return tuple(order[turn:] + order[:turn])


@functools.lru_cache(maxsize=64)
def _design(bots: int, players: int, seed: int
            ) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """(line-ups, cyclic orders) of the design, in the order ``seed`` gives them."""
    rng = random.Random(f"mundus-net/seating/{seed}/{bots}/{players}")
    lineups = list(itertools.combinations(range(bots), players))
    rng.shuffle(lineups)
    # The cyclic orders of positions 0..players-1: position 0 first, the rest permuted.
    cycles = [(0, *rest) for rest in itertools.permutations(range(1, players))]
    rng.shuffle(cycles)
    return tuple(lineups), tuple(cycles)


def design_games(bots: int, players: int) -> int:
    """Games of one whole cycle of the design: every line-up in every rotation and every
    cyclic order (a multiple of it gives every pair and every seat order equal weight)."""
    return math.comb(bots, players) * players * math.factorial(players - 1)


def record_path(directory: str | Path, index: int) -> Path:
    return Path(directory) / f"game-{index:06d}.json"


def game_id(seed: int, index: int, label: str = "tournament") -> str:
    return f"{label}-{seed}-{index}"


def seat_names(settings: Settings, seats: Sequence[int]) -> list[str]:
    """Each seat's player name: the strategy (its class name for ``module:Class``) and the
    entry's index, at most 32 characters (the protocol's limit)."""
    return [f"{split_options(settings.bots[j])[0].rpartition(':')[2][:24]} #{j}"
            for j in seats]


# -- one game, in-process -----------------------------------------------------------------------


def play_one(settings: Settings, index: int, entries: dict[int, Bot] | None = None) -> Row:
    """Play game ``index`` in this process and return its row (and write its record if
    ``settings.records`` is set). The one game loop of ``mundus tournament`` and
    ``mundus sim``: game ``i`` is the same game in both. ``entries`` keeps one bot object
    per entry across calls (a series: each is made once, with game 0's seed)."""
    if settings.files:
        ship_bot_files(settings.files)
    seats = seating(index, len(settings.bots), settings.players, settings.rotate,
                    settings.seed)
    seed = game_seed(settings.seed, index)
    game = Game.new(settings.players, seed, promo=settings.promo,
                    round_limit=settings.round_limit, deck=settings.deck)
    bots = []
    for j in seats:
        if entries is not None and j in entries:
            bots.append(entries[j])
            continue
        made_seed = bot_seed(settings.seed, 0 if entries is not None else index, j)
        bot = (load_bot(settings.bots[j], made_seed) if settings.strict
               else make_bot(settings.bots[j], made_seed))
        if entries is not None:
            entries[j] = bot
        bots.append(bot)
    refereed = referee(game, bots, time_limit=settings.time_limit, strict=settings.strict)
    if settings.records is not None:
        meta: dict[str, object] = {settings.label: {
            "game": index, "seating": list(seats), "bots": list(settings.bots)}}
        record = refereed.record(game_id(settings.seed, index, settings.label),
                                 seat_names(settings, seats), meta=meta)
        atomic_write(record_path(settings.records, index), record.to_json() + "\n", 0o644)
    return row_of(index, seed, seats, refereed)


def row_of(index: int, seed: int, seats: Sequence[int], refereed: Refereed) -> Row:
    """The row of a game played in-process (:func:`make_row` from the referee's answer)."""
    result = refereed.result
    listed, texts = refereed.fault_rows()
    return make_row(index, seed, seats, result.winners, result.places, result.doubloons,
                    result.rounds, result.reason, refereed.fault_counts(), refereed.asked,
                    listed, texts, refereed.cpu_ms())


def make_row(index: int, seed: int, seats: Sequence[int], winners: Iterable[int],
             places: Iterable[int], doubloons: Iterable[int], rounds: int, reason: str,
             faults: Sequence[dict[str, int]], decisions: Sequence[int] | None = None,
             fault_list: Sequence[dict[str, object]] = (),
             tracebacks: Sequence[str] = (),
             cpu_ms: Sequence[Sequence[float]] | None = None) -> Row:
    """A game's row: per seat (``seating[s]`` is the bot at seat ``s``) its place, doubloons,
    faults (kind -> count, only kinds that happened) and decisions asked; every fault in
    order (seat, kind, phase, round, decision, reason, and ``traceback``: an index into
    ``tracebacks``, the game's distinct tracebacks, or None); per seat the CPU time of each
    decision that returned, in ms (None: not measured, over the network). The CPU times
    are the only part of a row that varies from run to run."""
    return {"game": index, "seed": seed, "seating": list(seats), "winners": list(winners),
            "places": list(places), "doubloons": list(doubloons), "rounds": rounds,
            "reason": reason, "faults": [dict(sorted(f.items())) for f in faults],
            "decisions": None if decisions is None else list(decisions),
            "fault_list": list(fault_list), "tracebacks": list(tracebacks),
            "cpu_ms": None if cpu_ms is None else [list(times) for times in cpu_ms]}


def without_cpu(data: Any) -> Any:
    """``data`` (rows, a summary, a ``--json`` file's contents) without its ``cpu_ms``
    fields: the only measured ones, so what is left is the same for the same games."""
    if isinstance(data, dict):
        return {k: without_cpu(v) for k, v in data.items() if k != "cpu_ms"}
    if isinstance(data, list):
        return [without_cpu(v) for v in data]
    return data


def play_chunk(settings: Settings, start: int, stop: int) -> list[Row]:
    """Games ``start`` to ``stop - 1``, in order (the unit of work of a worker)."""
    return [play_one(settings, i) for i in range(start, stop)]


def exit_words(code: int | None) -> str:
    """How a process ended, in words (for a game whose process died)."""
    if code is None:
        return "it did not say how"
    if code < 0:
        import signal

        try:
            return f"killed by signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"

