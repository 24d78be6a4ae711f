"""Finding tables on the LAN: listen for hosts' UDP beacons (docs/protocol.md §14).

``mundus join`` without an address listens for a couple of seconds and lists what it heard,
one entry per table (the newest beacon of each). A table is joined at the beacon's *source*
address and the port it names: the address the datagram came from is one this computer can
reach, whatever the host believes its own address to be.
"""

from __future__ import annotations

import contextlib
import socket
import time
from dataclasses import dataclass

from mundus_net.protocol.beacon import (
    BEACON_PORT,
    MAX_BEACON,
    Announcement,
    BeaconError,
    decode_beacon,
    parse_endpoint,
)
from mundus_net.protocol.messages import PROTOCOL_VERSION

__all__ = ["LISTEN_SECONDS", "Listener", "Table", "discover", "listen_address"]

LISTEN_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class Table:
    """A table heard on the LAN."""

    announcement: Announcement
    source: str  # the IP address the beacon came from

    @property
    def address(self) -> str:
        """The address to join."""
        return f"tcp://{self.source}:{self.announcement.port}"

    @property
    def compatible(self) -> bool:
        return self.announcement.version == PROTOCOL_VERSION

    def describe(self) -> str:
        a = self.announcement
        seats = f"{a.free} of {a.players} seats free" if a.free else f"{a.players} seats, full"
        state = "playing" if a.started else "waiting for players"
        text = f'"{a.name}" at {self.address}: {seats}, {state}'
        if not self.compatible:
            text += f" (protocol version {a.version}: this client speaks {PROTOCOL_VERSION})"
        if a.key is None:
            text += " (INSECURE: not encrypted)"
        return text


def listen_address(text: str) -> tuple[str, int]:
    """``--listen [ADDR:]PORT`` -> (address, port); the address defaults to every interface
    (broadcasts arrive there)."""
    return parse_endpoint(text, "", BEACON_PORT)


class Listener:
    """A UDP socket bound to ``(host, port)`` that collects beacons. Several listeners on one
    computer can share the port (SO_REUSEADDR / SO_REUSEPORT)."""

    def __init__(self, host: str = "", port: int = BEACON_PORT) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            sock.bind((host, port))
        except OSError:
            sock.close()
            raise
        self._sock = sock
        self.tables: dict[tuple[str, int, str], Table] = {}  # (source, port, game) -> newest

    @property
    def port(self) -> int:
        return int(self._sock.getsockname()[1])

    def collect(self, seconds: float) -> list[Table]:
        """Listen for ``seconds``; every table heard so far, in the order first heard."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self._sock.settimeout(left)
            try:
                packet, (source, _) = self._sock.recvfrom(MAX_BEACON + 1)
            except TimeoutError:
                break
            except OSError:
                continue
            try:
                announcement = decode_beacon(packet)
            except BeaconError:
                continue  # somebody else's datagram on this port
            table = Table(announcement, str(source))
            self.tables[(table.source, announcement.port, announcement.game)] = table
        return list(self.tables.values())

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def discover(seconds: float = LISTEN_SECONDS, host: str = "",
             port: int = BEACON_PORT) -> list[Table]:
    """The tables whose beacons arrive within ``seconds`` on ``host:port``."""
    with Listener(host, port) as listener:
        return listener.collect(seconds)
