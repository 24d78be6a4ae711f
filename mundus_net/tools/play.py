"""``mundus play``: a game against bots on this computer, with nothing to set up.

It starts a table in the background (:mod:`mundus_net.host.local`: a host on 127.0.0.1 with free
ports and N host bots, in a process of its own) and puts you at it in the full-screen client.
Leave with Ctrl-C or Ctrl-D and the table keeps your seat; the command printed when you leave
(``mundus join ADDRESS --name NAME``) brings you back.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mundus_net.bots.base import load_bot, strategy_names
from mundus_net.cli_args import command, positive_int, seconds, whole_number
from mundus_net.client.i18n import add_language_argument, choose_language, current, use
from mundus_net.client.known_hosts import KnownHosts
from mundus_net.client.tokens import TokenStore
from mundus_net.client.tui.session import Seating, default_name, needs_terminal, sit
from mundus_net.host import local
from mundus_net.host.keys import own_sign_key
from mundus_net.protocol.security import fingerprint_bytes
from mundus_net.protocol.statedir import new_record_path, state_dir

__all__ = [
    "DEFAULT_BOT_PACE", "RECORD_WAIT_S", "record_path", "register", "review_command", "run"
]


def _strategy(spec: str) -> str:
    try:
        load_bot(spec, 0)
    except Exception as exc:  # an unknown name, or a factory that fails
        raise argparse.ArgumentTypeError(str(exc)) from None
    return spec


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "play",
        description="Start a table with host bots on this computer and sit at it in the "
                    "full-screen client (docs/client.md).")
    p.add_argument("--bots", type=whole_number(1, 5, "the number of bots (2-6 players)"),
                   default=3, metavar="N",
                   help="how many bots play with you, 1-5 (default 3)")
    p.add_argument("--name", default=None, help="your name at the table (default: the name "
                                                "you used last; asked the first time)")
    p.add_argument("--seed", type=int, default=None,
                   help="game seed: the same seed deals the same cards (default: random)")
    p.add_argument("--strategy", type=_strategy, default="greedy",
                   help=f"the bots' strategy: {', '.join(strategy_names())} or module:Class "
                        "(default greedy; search is the strongest)")
    p.add_argument("--round-limit", type=positive_int, default=None, metavar="N",
                   help="end the game after N rounds (R8.5; default: no limit)")
    p.add_argument("--record", metavar="FILE", default=None,
                   help="where to write the game record (JSON, docs/record.md) when the game "
                        "ends (default: a new file in the state folder's records/)")
    p.add_argument("--no-record", action="store_true", help="keep no record of the game")
    p.add_argument("--bot-pace", type=seconds(60, zero=True), default=DEFAULT_BOT_PACE, metavar="S",
                   help="seconds between two bot moves, so that you can follow them "
                        f"(default {DEFAULT_BOT_PACE:g}; 0: at once)")
    p.add_argument("--keep-minutes", type=seconds(24 * 60, "minutes"), default=30.0, metavar="M",
                   help="how long the table waits for you after you leave (default 30)")
    p.add_argument("--insecure", action="store_true",
                   help="no encryption (for debugging the protocol)")
    add_language_argument(p)
    p.set_defaults(func=run)


DEFAULT_BOT_PACE = 0.6


def record_path(args: argparse.Namespace) -> Path | None:
    """Where the record goes: --record, nowhere with --no-record, else a new file named for
    the moment the game starts in the state folder."""
    if args.no_record:
        return None
    if args.record is not None:
        return Path(args.record).absolute()
    return new_record_path()


def run(args: argparse.Namespace) -> int:
    if needs_terminal("play"):
        return 2
    name = (args.name or default_name()).strip()[:32] or "Player"
    language = choose_language(args.lang, name, os.environ)
    t = use(language)
    record = record_path(args)
    print(t.ngettext("Starting a table for you and {count} {strategy} bot(s) …",
                     "Starting a table for you and {count} {strategy} bot(s) …",
                     args.bots).format(count=args.bots, strategy=args.strategy), flush=True)
    try:
        table = local.start(
            bots=args.bots, strategy=args.strategy, name=f"{name}'s table",
            idle_minutes=args.keep_minutes, log=state_dir() / "play-host.log", seed=args.seed,
            round_limit=args.round_limit, record=record, insecure=args.insecure,
            bot_pace=args.bot_pace)
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        print(f"mundus play: {exc}", file=sys.stderr)
        return 1
    minutes = t.ngettext("{count} minute", "{count} minutes",
                         int(args.keep_minutes) if float(args.keep_minutes).is_integer()
                         else 2).format(
        count=f"{args.keep_minutes:g}")
    # The table's key comes from the process this client started: pinned, and saved for
    # `mundus join ADDRESS` later.
    pid = table.process.pid
    seating = Seating(table.address, name, store=TokenStore(), note={"pid": pid},
                      host_key=table.host_key, insecure=table.host_key is None,
                      known_hosts=KnownHosts(),
                      left_note=[t._("The table runs on in the background (process {pid}) "
                                     "and waits {minutes} for you.").format(
                                         pid=pid, minutes=minutes)], language=language,
                      after_game=None if record is None else t._(
                          "Once you leave, see where the game was won and lost: {command}"
                      ).format(command=review_command(record, name)))
    status = sit(seating)
    if record is not None:
        if seating.game_over:  # the table writes it within a moment of the result
            _wait_for(record, table.process)
        _tell_record(record, table.sign_key, name)
    return status


RECORD_WAIT_S = 10.0


def _wait_for(record: Path, table: subprocess.Popen[str]) -> None:
    """Until ``record`` is written, the table's process ends, or RECORD_WAIT_S pass."""
    deadline = time.monotonic() + RECORD_WAIT_S
    while not record.exists() and table.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)


def _signer(sign_key: str | None, own_key: str | None) -> str:
    """host.keys.signed_by's words (what ``mundus verify`` prints, in English for tools) in
    the player's language."""
    t = current()
    if sign_key is None:
        return t._("not signed (--insecure)")
    fp = fingerprint_bytes(bytes.fromhex(sign_key))
    if sign_key == own_key:
        return t._("signed by this computer's host key, fingerprint {fingerprint}").format(
            fingerprint=fp)
    return t._("signed by the record signing key {fingerprint}").format(fingerprint=fp)


def _tell_record(record: Path, sign_key: str | None, name: str) -> None:
    """Where the record is, which key signs it (as ``mundus verify`` will name it), and the
    commands that replay and check it."""
    t = current()
    signer = _signer(sign_key, own_sign_key())
    if not record.exists():
        print(t._("The game's record will be written to {record} when the game ends, "
                  "{signer}.").format(record=record, signer=signer))
        return
    print(t._("The game's record: {record}").format(record=record) + f"\n  {signer}\n  "
          + t._("replay it: {command}").format(command=command("replay", str(record)))
          + "\n  " + t._("check it:  {command}").format(command=command("verify", str(record)))
          + "\n  " + t._("review it: {command}").format(command=review_command(record, name)),
          flush=True)


def review_command(record: Path, name: str) -> str:
    """The command that reviews the player's decisions in ``record`` (mundus review)."""
    return command("review", str(record), "--seat", name)
