"""Argument types and options that several ``mundus`` commands share (argparse only).

Every command module, in every layer above the engine, takes its validators from here, so a
count or a number of seconds is refused with the same words everywhere.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def whole_number(lo: int, hi: int | None = None, what: str = "the number"
                 ) -> Callable[[str], int]:
    """An argparse type: a whole number from ``lo`` to ``hi`` (no upper bound when None)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < lo or (hi is not None and value > hi):
            bound = f"at least {lo}" if hi is None else f"{lo} to {hi}"
            raise argparse.ArgumentTypeError(f"{what} must be {bound}, not {value}")
        return value
    return parse


positive_int = whole_number(1)


def seconds(most: float, what: str = "seconds") -> Callable[[str], float]:
    """An argparse type: a number of seconds, more than 0 and at most ``most``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {what}") from None
        if not (0 < value <= most and math.isfinite(value)):
            raise argparse.ArgumentTypeError(
                f"{what} must be positive and at most {most:g}, not {text}")
        return value
    return parse


def add_deck_option(parser: argparse.ArgumentParser, *, recorded: bool = False) -> None:
    """``--deck FILE``, the same for every command that has it: a development deck file
    (docs/deck-format.md) for a new game, or, for a record (``recorded``), the one it was
    played with."""
    parser.add_argument(
        "--deck", metavar="FILE", default=None,
        help="the development deck file the game was played with (default: the built-in deck)"
        if recorded else "a development deck file (docs/deck-format.md; default: the built-in "
                         "deck)")
