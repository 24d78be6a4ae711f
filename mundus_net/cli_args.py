"""Argument types and options that several ``mundus`` commands share (argparse only).

Every command module, in every layer above the engine, takes its validators from here, so a
count or a number of seconds is refused with the same words everywhere.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import shutil
import sys
import sysconfig
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


SCRIPT = "mundus"  # the console script pip installs (pyproject.toml)


def mundus_command() -> str:
    """How to run this program, as a person types it in any folder of this computer:
    ``mundus`` when that name on PATH finds this installation's script; else that script's
    whole path; else this Python's whole path with ``-m mundus_net``."""
    script = installed_script()
    if script is None:
        return f"{shlex.quote(os.path.abspath(sys.executable))} -m mundus_net"
    found = shutil.which(SCRIPT)
    if found is not None and _same_file(Path(found), script):
        return SCRIPT
    return shlex.quote(os.path.abspath(script))


def installed_script() -> Path | None:
    """The ``mundus`` script of the installation that runs now (None if there is none): the
    running script itself, else the one beside this Python or in the installation's scripts
    folders whose first line names an interpreter in this Python's folder (``python -m
    mundus_net`` of a virtual environment finds its ``bin/mundus``)."""
    if sys.argv and Path(sys.argv[0]).stem == SCRIPT and Path(sys.argv[0]).is_file():
        return Path(sys.argv[0])
    folders = [Path(sys.executable).parent]
    for scheme in (None, sysconfig.get_preferred_scheme("user")):
        with contextlib.suppress(KeyError, ValueError):
            path = sysconfig.get_path("scripts") if scheme is None else \
                sysconfig.get_path("scripts", scheme)
            folders.append(Path(path))
    for folder in folders:
        found = shutil.which(SCRIPT, path=str(folder))
        if found is not None and _runs_with_this_python(Path(found)):
            return Path(found)
    return None


def _runs_with_this_python(script: Path) -> bool:
    """True when ``script`` starts with ``#!`` and an interpreter in this Python's folder (not
    resolved: two virtual environments link the same system Python), or is no text script
    (a Windows launcher)."""
    try:
        with script.open("rb") as f:
            first = f.readline(4096)
    except OSError:
        return False
    if not first.startswith(b"#!"):
        return not first.isascii()
    words = first[2:].decode("utf-8", "replace").split()
    here = os.path.dirname(os.path.abspath(sys.executable))
    return bool(words) and os.path.dirname(os.path.abspath(words[0])) == here


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or os.path.samefile(a, b)
    except OSError:
        return False


def command(*words: str) -> str:
    """A command line of this program: ``command("join", address)``."""
    return " ".join([mundus_command(), *(shlex.quote(w) for w in words)])


def join_command(address: str, invite: str | None = None, *, name: str | None = None,
                 watch: bool = False, insecure: bool = False, take_over: bool = False) -> str:
    """The command that joins the table at ``address`` (or watches it, with ``watch``), as
    shown to players, to run as shown in any folder: the runnable program, the address, the
    table's invite code when it has one, ``--insecure`` for a table without encryption,
    ``--name`` when given (to come back as that player), and ``--take-over`` with
    ``take_over`` (to take the seat from the client that holds it)."""
    words = ["watch" if watch else "join", address]
    if invite is not None:
        words += ["--invite", invite]
    if insecure:
        words.append("--insecure")
    if name is not None:
        words += ["--name", name]
    if take_over:
        words.append("--take-over")
    return command(*words)
