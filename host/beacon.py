"""The host's LAN beacon (docs/protocol.md §14): a small UDP datagram every second that says
"a mundus-net table is here": its name, ports, free seats and protocol version.

``mundus join`` without an address listens for these (:mod:`mundus_net.client.discovery`) and
lists the tables it hears. By default the beacon goes to the LAN broadcast address
255.255.255.255:7799; ``--beacon ADDR:PORT`` sends it elsewhere (a subnet's broadcast address,
or 127.0.0.1 for tests), ``--no-beacon`` turns it off.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
from collections.abc import Callable
from typing import Any

from mundus_net.host.server import Host
from mundus_net.host.table import Table
from mundus_net.protocol.beacon import (
    BEACON_BROADCAST,
    BEACON_PORT,
    Announcement,
    encode_beacon,
    parse_endpoint,
)

__all__ = [
    "DEFAULT_TARGET", "INTERVAL_S", "Beacon", "add_arguments", "from_args", "table_announcement",
    "table_beacon"
]

INTERVAL_S = 1.0


class Beacon:
    """Sends ``announce()`` to ``target`` every ``interval`` seconds in a daemon thread.
    ``announce`` returning None stops the beacon (the table is gone)."""

    def __init__(self, announce: Callable[[], Announcement | None],
                 target: tuple[str, int] = (BEACON_BROADCAST, BEACON_PORT),
                 interval: float = INTERVAL_S,
                 log: Callable[[str], None] | None = None) -> None:
        self.announce = announce
        self.target = target
        self.interval = interval
        self.log = log or (lambda text: print(text, file=sys.stderr, flush=True))
        self.sent = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self._warned = False

    @property
    def thread(self) -> threading.Thread | None:
        """The thread that sends the beacons (None before :meth:`start`)."""
        return self._thread

    def start(self) -> None:
        if self._thread is not None:
            return
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        self._sock = sock
        self._thread = threading.Thread(target=self._run, name="mundus-beacon", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def send_once(self) -> bool:
        """Send one beacon now; False when the table is gone or the send failed."""
        announcement = self.announce()
        return announcement is not None and self._send(announcement)

    def _send(self, announcement: Announcement) -> bool:
        if self._sock is None:
            return False
        try:
            self._sock.sendto(encode_beacon(announcement), self.target)
        except OSError as exc:  # no network, no route to the broadcast address...
            if not self._warned:
                self._warned = True
                self.log(f"beacon: cannot send to {self.target[0]}:{self.target[1]}: {exc} "
                         "(players can still join with the address)")
            return False
        self.sent += 1
        return True

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                announcement = self.announce()
                if announcement is None:
                    break
                self._send(announcement)
                self._stop.wait(self.interval)
        finally:
            if self._sock is not None:
                self._sock.close()
                self._sock = None


def table_announcement(table: Table, address: str, port: int, pub_port: int) -> Announcement:
    """What the beacon says about ``table`` (call it in the host's thread)."""
    return Announcement(name=table.name, game=table.game_id, port=port, pub_port=pub_port,
                        players=table.players, free=table.free_seats(),
                        started=table.started, address=address, key=table.host_key)


def table_beacon(host: Host, address: str,
                 target: tuple[str, int] = (BEACON_BROADCAST, BEACON_PORT),
                 interval: float = INTERVAL_S) -> Beacon:
    """A beacon for ``host``'s table (already bound), reading the table in the host's thread;
    it stops by itself when the host stops."""

    last: list[Announcement] = []

    def announce() -> Announcement | None:
        if host.finished.is_set():
            return None
        try:
            found = host.call(lambda t: table_announcement(t, address, host.port,
                                                           host.pub_port),
                              timeout=max(interval, 1.0))
        except Exception:  # the host stopped meanwhile, or is too busy: say it again
            return None if host.finished.is_set() or not last else last[0]
        last[:] = [found]
        return found

    return Beacon(announce, target, interval)


# -- the host command's options -------------------------------------------------------------


def _target(text: str) -> tuple[str, int]:
    try:
        return parse_endpoint(text, BEACON_BROADCAST)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


DEFAULT_TARGET = (BEACON_BROADCAST, BEACON_PORT)  # where --beacon announces by default


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--beacon ADDR:PORT`` and ``--no-beacon`` for ``mundus host``."""
    parser.add_argument("--beacon", type=_target, default=DEFAULT_TARGET,
                        metavar="ADDR:PORT",
                        help="where to announce the table for `mundus join` without an "
                             f"address (default {BEACON_BROADCAST}:{BEACON_PORT}, the LAN "
                             "broadcast)")
    parser.add_argument("--no-beacon", action="store_true",
                        help="do not announce the table on the LAN")


def from_args(args: Any, host: Host, address: str) -> Beacon | None:
    """The beacon the options ask for (not started), or None with --no-beacon. A table bound
    to a loopback address is announced on loopback only, unless --beacon says otherwise:
    nobody on the LAN could join it."""
    if getattr(args, "no_beacon", False):
        return None
    target: tuple[str, int] = tuple(args.beacon)
    if target == (BEACON_BROADCAST, BEACON_PORT) and str(getattr(args, "bind", "")) \
            .startswith("127."):
        target = ("127.0.0.1", BEACON_PORT)
    return table_beacon(host, address, target)
