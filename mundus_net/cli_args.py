"""Argument types and options that several ``mundus`` commands share (argparse only).

Every command module, in every layer above the engine, takes its validators from here, so a
count or a number of seconds is refused with the same words everywhere.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path


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


def seconds(most: float, what: str = "seconds", zero: bool = False) -> Callable[[str], float]:
    """An argparse type: a number of seconds, more than 0 (or 0 too, with ``zero``) and at
    most ``most``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {what}") from None
        if not ((value >= 0 if zero else value > 0) and value <= most and math.isfinite(value)):
            least = "0 or more" if zero else "positive"
            raise argparse.ArgumentTypeError(
                f"{what} must be {least} and at most {most:g}, not {text}")
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


def mundus_command() -> str:
    """How to run this program again from where the player is: ``mundus`` when that name
    finds the running script on PATH, else the running script's path (relative to the
    current folder when it is inside it), else ``python -m mundus_net`` with this Python."""
    running = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if running is not None and running.suffix != ".py" and running.is_file():
        found = shutil.which("mundus")
        if found is not None and _same_file(Path(found), running):
            return "mundus"
        return shlex.quote(_from_here(running))
    return f"{shlex.quote(_from_here(Path(sys.executable)))} -m mundus_net"


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or os.path.samefile(a, b)
    except OSError:
        return False


def _from_here(path: Path) -> str:
    """``path`` as typed in the current folder: relative (``.venv/bin/mundus``) when it is
    inside it, else absolute."""
    absolute = Path(os.path.abspath(path))
    try:
        inside = absolute.relative_to(Path.cwd())
    except ValueError:
        return str(absolute)
    text = str(inside)
    return text if os.sep in text else f".{os.sep}{text}"


def command(*words: str) -> str:
    """A command line of this program: ``command("join", address)``."""
    return " ".join([mundus_command(), *(shlex.quote(w) for w in words)])
