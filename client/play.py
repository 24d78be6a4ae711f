"""``mundus play``: a game against bots on this computer, with nothing to set up.

It starts a table in the background (:mod:`client.local_host`: a host on 127.0.0.1 with free
ports and N host bots, in a process of its own) and puts you at it in the full-screen client.
Leave with Ctrl-C or Ctrl-D and the table keeps your seat; ``mundus join ADDRESS`` (the
address is printed when you leave) brings you back.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
from typing import Any

from mundus_net.bots.base import load_bot, strategy_names
from protocol.statedir import state_dir

from .known_hosts import KnownHosts
from .local_host import READY
from .session import Seating, default_name, needs_terminal, sit
from .tokens import TokenStore

START_TIMEOUT_S = 20.0


def _bots(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= 5:
        raise argparse.ArgumentTypeError(f"1 to 5 bots (2-6 players), not {value}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _strategy(spec: str) -> str:
    try:
        load_bot(spec, 0)
    except Exception as exc:  # an unknown name, or a factory that fails
        raise argparse.ArgumentTypeError(str(exc)) from None
    return spec


def _minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of minutes") from None
    if not 0 < value <= 24 * 60:
        raise argparse.ArgumentTypeError("minutes must be more than 0 and at most a day")
    return value


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "play", help="play against bots on this computer (the quickest start)",
        description="Start a table with host bots on this computer and sit at it in the "
                    "full-screen client (docs/client.md).")
    p.add_argument("--bots", type=_bots, default=3, metavar="N",
                   help="how many bots play with you, 1-5 (default 3)")
    p.add_argument("--name", default=None, help="your name at the table (default: your "
                                                "user name)")
    p.add_argument("--seed", type=int, default=None,
                   help="game seed: the same seed deals the same cards (default: random)")
    p.add_argument("--strategy", type=_strategy, default="greedy",
                   help=f"the bots' strategy: {', '.join(strategy_names())} or module:Class "
                        "(default greedy)")
    p.add_argument("--round-limit", type=_positive, default=None, metavar="N",
                   help="end the game after N rounds (R8.5; default: no limit)")
    p.add_argument("--record", metavar="FILE", default=None,
                   help="write the game record (JSON, docs/record.md) to FILE at the end")
    p.add_argument("--keep-minutes", type=_minutes, default=30.0, metavar="M",
                   help="how long the table waits for you after you leave (default 30)")
    p.add_argument("--insecure", action="store_true",
                   help="no encryption (for debugging the protocol)")
    p.set_defaults(func=run)


def start_table(args: argparse.Namespace, name: str
                ) -> tuple[subprocess.Popen[str], str, str | None]:
    """Start the background table; returns the process, the address to join and the host
    key (None when insecure)."""
    command = [sys.executable, "-m", "client.local_host", "--bots", str(args.bots),
               "--strategy", args.strategy, "--name", f"{name}'s table",
               "--idle-minutes", str(args.keep_minutes),
               "--log", str(state_dir() / "play-host.log")]
    if args.seed is not None:
        command += ["--seed", str(args.seed)]
    if args.round_limit is not None:
        command += ["--round-limit", str(args.round_limit)]
    if args.record is not None:
        command += ["--record", os.path.abspath(args.record)]
    if args.insecure:
        command.append("--insecure")
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    out = proc.stdout
    assert out is not None
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(out.readline()), daemon=True)
    reader.start()
    reader.join(START_TIMEOUT_S)
    words = line[0].split() if line else []
    if len(words) != 5 or words[0] != READY:
        proc.kill()
        _, err = proc.communicate(timeout=5)
        raise RuntimeError(f"the table did not start: {err.strip() or 'no answer'}")
    out.close()
    if proc.stderr is not None:
        proc.stderr.close()
    return proc, f"tcp://127.0.0.1:{int(words[1])}", None if words[4] == "-" else words[4]


def run(args: argparse.Namespace) -> int:
    if needs_terminal("play"):
        return 2
    name = (args.name or default_name()).strip()[:32] or "Player"
    print(f"Starting a table for you and {args.bots} {args.strategy} bot(s) …", flush=True)
    try:
        proc, address, key = start_table(args, name)
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        print(f"mundus play: {exc}", file=sys.stderr)
        return 1
    minutes = f"{args.keep_minutes:g} minute{'s' if args.keep_minutes != 1 else ''}"
    # The table's key comes from the process this client started: pinned, and saved for
    # `mundus join ADDRESS` later.
    seating = Seating(address, name, store=TokenStore(), note={"pid": proc.pid},
                      host_key=key, insecure=key is None, known_hosts=KnownHosts(),
                      left_note=[f"The table runs on in the background (process {proc.pid}) "
                                 f"and waits {minutes} for you."])
    return sit(seating)
