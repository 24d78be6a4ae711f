"""The ``mundus`` command. Each subcommand lives in its own module, which provides
``register(subparsers)``; network subcommands live in host/ and client/ and are found here by
module name only, so the engine never imports them."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# subcommand -> module providing register(subparsers). Order is the order of `mundus --help`.
SUBCOMMANDS = {
    "play": "client.play",
    "join": "client.join",
    "watch": "client.watch",
    "rules": "mundus_net.rules_cli",
    "sim": "mundus_net.sim",
    "tournament": "mundus_net.tournament",
    "replay": "client.replay",
    "report": "mundus_net.report",
    "verify": "mundus_net.verify",
    "host": "host.cli",
    "bot": "client.bot",
}


def add_deck_option(parser: argparse.ArgumentParser, *, recorded: bool = False) -> None:
    """``--deck FILE``, the same for every command that has it: a development deck file
    (docs/deck-format.md) for a new game, or, for a record (``recorded``), the one it was
    played with."""
    parser.add_argument(
        "--deck", metavar="FILE", default=None,
        help="the development deck file the game was played with (default: the built-in deck)"
        if recorded else "a development deck file (docs/deck-format.md; default: the built-in "
                         "deck)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mundus", description="Mundus Novus: play, host, simulate and check rulings.")
    parser.add_argument("--version", action="version", version="mundus-net 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in SUBCOMMANDS.values():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue  # not built yet
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`mundus ... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
