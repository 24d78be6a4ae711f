"""The table ``mundus play`` starts: a host on 127.0.0.1 with free ports and host bots, in a
process of its own, so that the player can leave (Ctrl-C, Ctrl-D) and come back with
``mundus join``.

The process prints one line, ``READY PORT PUB_PORT GAME_ID KEY``, once its sockets are bound
(KEY: the host's public key, Z85, or ``-`` with ``--insecure``), then writes nothing more to
standard output (its log goes to a file). Its keys are those of ``mundus host`` (made on
first use in ``$XDG_STATE_HOME/mundus-net``). With ``--seed`` the seed is fixed: the same
seed deals the same cards (no contributions are mixed in: the player is the host here).
It ends when the game is over and the player has left, when no person has been at the table
for ``--idle-minutes``, or when it is killed; with ``--record FILE`` it writes the game record
first, signed with the host's key.

Run by :mod:`client.play` as ``python -m client.local_host ...``; not a command of its own.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from host.cli import record_text
from host.keys import HostKeys
from host.server import Host
from host.table import Table
from mundus_net.bots.base import load_bot
from mundus_net.sim import derive_seed
from protocol.security import SecurityError

READY = "READY"
WAIT_FOR_JOIN_S = 120.0  # a table nobody joins (the client failed) goes away after this


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m client.local_host")
    p.add_argument("--bots", type=int, required=True)
    p.add_argument("--strategy", default="greedy")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--round-limit", type=int, default=None)
    p.add_argument("--name", default="Mundus table")
    p.add_argument("--record", type=Path, default=None)
    p.add_argument("--idle-minutes", type=float, default=30.0)
    p.add_argument("--log", type=Path, default=None)
    p.add_argument("--insecure", action="store_true")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    # The player's terminal may send SIGINT/SIGHUP to its process group: this table outlives
    # the client (it is started in a session of its own, and ignores them anyway).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    bots = [load_bot(args.strategy, derive_seed(seed, "host-bot", i)) for i in range(args.bots)]
    names = [f"{args.strategy.rpartition(':')[2]} {i + 1}"[:32] for i in range(args.bots)]
    table = Table(args.bots + 1, seed=args.seed, fixed_seed=args.seed is not None, bots=bots,
                  bot_names=names, first_tm=0, round_limit=args.round_limit,
                  name=args.name[:64])
    keys = None
    if not args.insecure:
        try:
            keys = HostKeys.load_or_create()
        except (SecurityError, OSError):
            keys = HostKeys.generate()  # no state directory: keys for this table only
    host = Host(table, bind="127.0.0.1", port=0, keys=keys, insecure=args.insecure)
    host.start()
    print(f"{READY} {host.port} {host.pub_port} {table.game_id} {host.public_key or '-'}",
          flush=True)
    _detach_output(args.log)
    try:
        _serve(host, args.idle_minutes * 60)
    finally:
        if args.record is not None:
            try:
                args.record.write_text(record_text(table, keys), encoding="utf-8")
            except OSError as exc:
                print(f"cannot write the record to {args.record}: {exc}", file=sys.stderr)
    return 0


def _detach_output(log: Path | None) -> None:
    """Standard output and error to the log file (or nowhere): the client that started this
    process stops reading them."""
    target = os.devnull
    if log is not None:
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            target = str(log)
        except OSError:
            target = os.devnull
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def _serve(host: Host, idle_s: float) -> None:
    started = last_seen = time.monotonic()
    joined = False
    while not host.wait(1.0):
        now = time.monotonic()
        try:
            present, taken = host.call(
                lambda t: (any(s.connected for s in t.seats if s.host_bot is None),
                           any(s.taken for s in t.seats if s.host_bot is None)))
        except Exception:  # the host stopped meanwhile
            break
        joined = joined or taken
        if present:
            last_seen = now
        elif (joined and now - last_seen > idle_s) or \
                (not joined and now - started > WAIT_FOR_JOIN_S):
            print("nobody at the table: closing it", file=sys.stderr)
            break
    host.stop()


if __name__ == "__main__":
    sys.exit(main())
