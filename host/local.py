"""The table ``mundus play`` starts: a host on 127.0.0.1 with free ports and host bots, in a
process of its own, so that the player can leave (Ctrl-C, Ctrl-D) and come back with
``mundus join``.

The process prints one line, ``READY PORT PUB_PORT GAME_ID KEY SIGN_KEY``, once its sockets
are bound (KEY: the host's public key, Z85; SIGN_KEY: the public key that signs the record,
hex; each ``-`` with ``--insecure``), then writes nothing more to
standard output (its log goes to a file). Its keys are those of ``mundus host`` (made on
first use in ``$XDG_STATE_HOME/mundus-net``). With ``--seed`` the seed is fixed: the same
seed deals the same cards (no contributions are mixed in: the player is the host here).
It ends when the game is over and the player has left, when no person has been at the table
for ``--idle-minutes``, or on SIGTERM (the player is told, as ``mundus host`` tells its
players); with ``--record FILE`` it writes the game record the moment the game ends, signed
with the host's key (a game stopped before its end cannot go on: its record is written then,
and says it is unfinished).

:func:`start` launches it (``mundus play`` calls it); not a command of its own. It runs with
``python -P``, so a folder the player starts from (one holding a ``mundus_net`` of its own, say)
can never stand in for the installed package.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from mundus_net.bots.base import load_bot
from mundus_net.engine.seeds import derive_seed
from mundus_net.host.cli import StopRequest, record_text
from mundus_net.host.keys import HostKeys
from mundus_net.host.server import Host
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.security import SecurityError
from mundus_net.protocol.statedir import atomic_write

__all__ = [
    "READY", "START_TIMEOUT_S", "WAIT_FOR_JOIN_S", "LocalTable", "main", "parse_args", "start"
]

READY = "READY"
WAIT_FOR_JOIN_S = 120.0  # a table nobody joins (the client failed) goes away after this
START_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class LocalTable:
    """A started background table: its process, the address to join, the host's public key
    and the key that signs its record (None when insecure)."""

    process: subprocess.Popen[str]
    address: str
    host_key: str | None
    sign_key: str | None = None


def start(*, bots: int, strategy: str, name: str, idle_minutes: float, log: Path | None,
          seed: int | None = None, round_limit: int | None = None,
          record: Path | None = None, insecure: bool = False,
          bot_pace: float = 0.0) -> LocalTable:
    """Start the table process and wait (at most START_TIMEOUT_S) for its READY line.

    Raises RuntimeError, naming what the process said, when it does not start.
    """
    # -P: the current folder is not put first on the path, so nothing there shadows the
    # installed package.
    command = [sys.executable, "-P", "-m", "mundus_net.host.local", "--bots", str(bots),
               "--strategy", strategy, "--name", name, "--idle-minutes", str(idle_minutes)]
    if log is not None:
        command += ["--log", str(log)]
    if seed is not None:
        command += ["--seed", str(seed)]
    if round_limit is not None:
        command += ["--round-limit", str(round_limit)]
    if record is not None:
        command += ["--record", str(record.absolute())]
    if insecure:
        command.append("--insecure")
    if bot_pace:
        command += ["--bot-pace", str(bot_pace)]
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    out = proc.stdout
    if out is None:  # pragma: no cover - Popen with PIPE always gives one
        raise RuntimeError("the table's output could not be read")
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(out.readline()), daemon=True)
    reader.start()
    reader.join(START_TIMEOUT_S)
    words = line[0].split() if line else []
    if len(words) != 6 or words[0] != READY:
        proc.kill()
        _, err = proc.communicate(timeout=5)
        raise RuntimeError(f"the table did not start: {err.strip() or 'no answer'}")
    out.close()
    if proc.stderr is not None:
        proc.stderr.close()
    return LocalTable(proc, f"tcp://127.0.0.1:{int(words[1])}",
                      None if words[4] == "-" else words[4], None if words[5] == "-" else words[5])


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m mundus_net.host.local")
    p.add_argument("--bots", type=int, required=True)
    p.add_argument("--strategy", default="greedy")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--round-limit", type=int, default=None)
    p.add_argument("--name", default="Mundus table")
    p.add_argument("--record", type=Path, default=None)
    p.add_argument("--idle-minutes", type=float, default=30.0)
    p.add_argument("--log", type=Path, default=None)
    p.add_argument("--insecure", action="store_true")
    p.add_argument("--bot-pace", type=float, default=0.0)
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    # The player's terminal may send SIGINT/SIGHUP to its process group: this table outlives
    # the client (it is started in a session of its own, and ignores them anyway).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    stop = StopRequest()  # SIGTERM: stop as mundus host does, the player told, the record kept
    signal.signal(signal.SIGTERM, stop)
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    bots = [load_bot(args.strategy, derive_seed(seed, "host-bot", i)) for i in range(args.bots)]
    # The player sits first; each bot is named with its seat's number (as in the notation).
    seats = list(range(1, args.bots + 1))
    names = [f"{args.strategy.rpartition(':')[2]} {seat}"[:32] for seat in seats]
    settings = TableSettings(fixed_seed=args.seed is not None, first_tm=None,
                             round_limit=args.round_limit, name=args.name[:64],
                             bot_pace=max(0.0, args.bot_pace))
    table = Table(args.bots + 1, settings, seed=args.seed, bots=bots, bot_names=names,
                  bot_seats=seats)
    keys = None
    if not args.insecure:
        try:
            keys = HostKeys.load_or_create()
        except (SecurityError, OSError):
            keys = HostKeys.generate()  # no state directory: keys for this table only
    host = Host(table, bind="127.0.0.1", port=0, keys=keys, insecure=args.insecure)
    host.start()
    print(f"{READY} {host.port} {host.pub_port} {table.game_id} {host.public_key or '-'} "
          f"{keys.sign_key if keys is not None else '-'}", flush=True)
    _detach_output(args.log)

    def write_record() -> None:
        if args.record is None:
            return
        try:
            args.record.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(args.record, record_text(table, keys), 0o644)
        except OSError as exc:
            print(f"cannot write the record to {args.record}: {exc}", file=sys.stderr)

    try:
        _serve(host, args.idle_minutes * 60, on_over=write_record, stop=stop)
    finally:
        host.stop()  # before the record is read: the table is the host thread's until then
        write_record()
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


def _announce_stop(table: Table, reason: str) -> None:
    """Tell the table's players that the host stops (run in the host's thread: Host.call)."""
    table.output.announce_stop(reason)


def _serve(host: Host, idle_s: float, on_over: Callable[[], None],
           stop: StopRequest | None = None) -> None:
    """Run until nobody is left at the table, or ``stop`` is asked (the players are told);
    ``on_over`` once when the game ends (the record is there for the player as soon as the
    result is)."""
    started = last_seen = time.monotonic()
    joined = told = False
    while not host.wait(0.25):
        if stop is not None and stop.signal is not None:
            print(f"stopping the table ({stop.signal})", file=sys.stderr)
            with contextlib.suppress(Exception):  # the last flush publishes it
                host.call(partial(_announce_stop, reason=stop.signal), timeout=2.0)
            break
        now = time.monotonic()
        try:
            present, taken, over = host.call(
                lambda t: (any(s.connected for s in t.seats if s.host_bot is None),
                           any(s.taken for s in t.seats if s.host_bot is None), t.over))
        except Exception:  # the host stopped meanwhile
            break
        if over and not told:
            told = True
            on_over()
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
