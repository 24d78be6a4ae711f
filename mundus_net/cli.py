"""The ``mundus`` command: a table of subcommands, each imported only when it runs.

``mundus --help`` is printed from the table alone, so it (and ``mundus rules ...``) loads
none of ZeroMQ, prompt_toolkit, cryptography or sqlite3 (pip's ``commands_dict`` does the
same). Each command module provides ``register(subparsers)``, which adds its parser (its
arguments and ``func``), and lives in the layer it belongs to (docs/architecture.md).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NamedTuple

from mundus_net import version
from mundus_net.compiled import describe


class Command(NamedTuple):
    module: str
    summary: str


# The order is the order of `mundus --help`.
COMMANDS: dict[str, Command] = {
    "play": Command("mundus_net.tools.play",
                    "play against bots on this computer (the quickest start)"),
    "join": Command("mundus_net.client.tui.join",
                    "sit at a table on the network (listed from the LAN without an address)"),
    "watch": Command("mundus_net.client.tui.watch", "watch a table as a spectator"),
    "rules": Command("mundus_net.tools.rules_cli",
                     "start, show and advance positions (docs/notation.md)"),
    "sim": Command("mundus_net.tools.sim",
                   "play many games between bots and summarise the results"),
    "tournament": Command("mundus_net.tools.tournament",
                          "many games between bots, seats rotated, with ratings"),
    "train": Command("mundus_net.tools.train",
                     "train the learned bot again (imitation of the search bot)"),
    "replay": Command("mundus_net.client.tui.replay",
                      "step through a recorded game, as a seat or as a spectator"),
    "review": Command("mundus_net.tools.review",
                      "review a game: what each decision cost, from each seat's own view"),
    "report": Command("mundus_net.tools.report",
                      "draw pictures of a game record or of tournament results"),
    "verify": Command("mundus_net.tools.verify",
                      "check a signed game record: signature, fair deal, offers, replay"),
    "host": Command("mundus_net.host.cli", "host a table on the network"),
    "bot": Command("mundus_net.client.bot",
                   "play a seat (or --seats N) of a networked table with a bot strategy"),
}


class _Version(argparse.Action):
    """``--version``, which reads the metadata only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0,
                         help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"mundus-net {version()}\nbuild: {describe()}")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser: every command listed from the table, and only ``command``'s module
    imported to give it its arguments. A command module that cannot be imported is an error
    (ModuleNotFoundError), never skipped."""
    parser = argparse.ArgumentParser(
        prog="mundus", description="Mundus Novus: play, host, simulate and check rulings.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, entry in COMMANDS.items():
        if name == command:
            importlib.import_module(entry.module).register(_Named(sub, entry.summary))
        else:
            sub.add_parser(name, help=entry.summary, add_help=False)
    return parser


class _Named:
    """The subparsers action as a command module sees it: ``add_parser`` gets the table's
    one-line summary, so the summary is written once."""

    def __init__(self, sub: argparse._SubParsersAction[argparse.ArgumentParser],
                 summary: str) -> None:
        self._sub = sub
        self._summary = summary

    def add_parser(self, name: str, **kwargs: object) -> argparse.ArgumentParser:
        kwargs.setdefault("help", self._summary)
        return self._sub.add_parser(name, **kwargs)  # type: ignore[arg-type]


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option), if known."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_of(args_list))
    args = parser.parse_args(args_list)
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
