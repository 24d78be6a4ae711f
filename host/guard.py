"""Which peer connections the host closes: socket-free policy, with an injected clock
(docs/security.md, "Under load and attack").

ZeroMQ accepts every TCP connection and gives the application no way to close one. The
host learns of each connection from its socket's monitor (the file descriptor, when it was
accepted and when it closed) and, for the ROUTER, of the connection each message came from
(``SRCFD``). :class:`ConnectionGuard` decides from that which connections to close: beyond
the cap, the oldest connection that never joined the table; and any connection that has not
joined within ``join_seconds``. :class:`SubscriberGuard` does the same for the PUB side,
where an honest subscriber sends its handshake and one subscription and nothing more: a
connection that has sent more than that is closed. ``host/server.py`` and
``host/publisher.py`` do the closing (:func:`cut`).
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType

fcntl: ModuleType | None
termios: ModuleType | None
try:  # Unix: a TCP socket's send queue is asked with SIOCOUTQ (TIOCOUTQ)
    import fcntl
    import termios
except ImportError:  # Windows
    fcntl = termios = None

JOIN_SECONDS = 10.0  # a connection that has not said hello by then is closed
# An honest subscriber sends the ZeroMQ greeting, the CURVE handshake (about 600 bytes) and
# one subscription; the ZMTP heartbeats of another client library would add a few bytes a
# second. Anything well beyond is a subscription flood.
SUBSCRIBER_BYTES = 2048
SUBSCRIBER_BYTES_PER_SECOND = 64.0


@dataclass
class Peer:
    """One accepted connection."""

    fd: int
    since: float
    address: tuple[str, int] | None  # the peer's (host, port), to check an fd before closing
    identities: set[bytes] = field(default_factory=set)  # ROUTER identities seen from it


class ConnectionGuard:
    """The connections of one listening socket: at most ``limit`` at once, and those that
    do not join the table within ``join_seconds`` closed."""

    def __init__(self, limit: int, join_seconds: float = JOIN_SECONDS) -> None:
        if limit < 1:
            raise ValueError("limit must be positive")
        self.limit = limit
        self.join_seconds = join_seconds
        self.peers: dict[int, Peer] = {}
        self.closed_count = 0  # connections this guard asked to close

    def __len__(self) -> int:
        return len(self.peers)

    def accepted(self, fd: int, now: float, address: tuple[str, int] | None,
                 joined: Callable[[bytes], bool]) -> list[Peer]:
        """A new connection: the connections to close now (beyond the cap, the oldest that
        has not joined, or the new one itself when every other one has)."""
        known = self.peers.get(fd)
        if known is not None and known.address is None:  # heard before its accept event
            known.address = address
        else:
            self.peers[fd] = Peer(fd, now, address)
        if len(self.peers) <= self.limit:
            return []
        idle = [p for p in self.peers.values() if not self._joined(p, joined)]
        victim = min(idle, key=lambda p: p.since) if idle else self.peers[fd]
        return self._close([victim])

    def heard(self, fd: int, identity: bytes, now: float) -> None:
        """A message from ``identity`` came in on connection ``fd``."""
        peer = self.peers.get(fd)
        if peer is None:  # its accept event is still on the way
            peer = self.peers[fd] = Peer(fd, now, None)
        if len(peer.identities) < 8:  # bounded: a connection has one identity
            peer.identities.add(identity)

    def gone(self, fd: int) -> None:
        """The connection on ``fd`` closed."""
        self.peers.pop(fd, None)

    def sweep(self, now: float, joined: Callable[[bytes], bool]) -> list[Peer]:
        """The connections that have not joined ``join_seconds`` after they were accepted
        (or that the table has since forgotten)."""
        return self._close([p for p in self.peers.values()
                            if now - p.since >= self.join_seconds and not self._joined(p, joined)])

    @staticmethod
    def _joined(peer: Peer, joined: Callable[[bytes], bool]) -> bool:
        return any(joined(identity) for identity in peer.identities)

    def _close(self, peers: Iterable[Peer]) -> list[Peer]:
        closing = list(peers)
        for peer in closing:
            self.peers.pop(peer.fd, None)
        self.closed_count += len(closing)
        return closing


class SubscriberGuard:
    """The PUB socket's connections: at most ``limit``, and each closed once it has sent
    more than a subscriber sends."""

    def __init__(self, limit: int, allowance: int = SUBSCRIBER_BYTES,
                 per_second: float = SUBSCRIBER_BYTES_PER_SECOND) -> None:
        if limit < 1:
            raise ValueError("limit must be positive")
        self.limit = limit
        self.allowance = allowance
        self.per_second = per_second
        self.peers: dict[int, Peer] = {}
        self.closed_count = 0

    def __len__(self) -> int:
        return len(self.peers)

    def accepted(self, fd: int, now: float, address: tuple[str, int] | None) -> list[Peer]:
        """A new subscriber: closed at once when ``limit`` are connected already (those
        connected keep their place)."""
        peer = self.peers[fd] = Peer(fd, now, address)
        return self._close([peer]) if len(self.peers) > self.limit else []

    def gone(self, fd: int) -> None:
        self.peers.pop(fd, None)

    def flooding(self, now: float, received: Callable[[int], int | None]) -> list[Peer]:
        """The connections that sent more than an honest subscriber would have by now
        (``received(fd)``: the bytes the connection has received, None if unknown)."""
        found = []
        for peer in self.peers.values():
            count = received(peer.fd)
            if count is not None and \
                    count > self.allowance + self.per_second * (now - peer.since):
                found.append(peer)
        return self._close(found)

    def _close(self, peers: list[Peer]) -> list[Peer]:
        for peer in peers:
            self.peers.pop(peer.fd, None)
        self.closed_count += len(peers)
        return peers


# -- the closing itself (sockets, not policy) ------------------------------------------------

_TCP_INFO = getattr(socket, "TCP_INFO", None)  # Linux
_OUTQ: int | None = getattr(termios, "TIOCOUTQ", None) if termios is not None else None
_BYTES_RECEIVED = struct.Struct("=Q")  # struct tcp_info: tcpi_bytes_received at offset 128


def peer_address(fd: int) -> tuple[str, int] | None:
    """The (host, port) of the TCP peer on ``fd``, None if it is not a connected socket."""
    try:
        with socket.socket(fileno=os.dup(fd)) as sock:
            address = sock.getpeername()
    except OSError:
        return None
    return (str(address[0]), int(address[1])) if isinstance(address, tuple) else None


def bytes_received(fd: int) -> int | None:
    """How many bytes the TCP connection on ``fd`` has received (Linux 4.1+; None
    elsewhere or when unknown)."""
    if _TCP_INFO is None:
        return None
    try:
        with socket.socket(fileno=os.dup(fd)) as sock:
            info = sock.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, 160)
    except OSError:
        return None
    if len(info) < 136:
        return None
    return int(_BYTES_RECEIVED.unpack_from(info, 128)[0])


def unsent_bytes(fd: int) -> int | None:
    """The bytes written to the TCP connection on ``fd`` that its peer has not yet taken
    (the kernel's send queue; None where that cannot be asked). A peer that does not read
    leaves it full."""
    if _OUTQ is None or fcntl is None:
        return None
    try:
        return int(struct.unpack("i", fcntl.ioctl(fd, _OUTQ, b"\0\0\0\0"))[0])
    except OSError:
        return None


def cut(peer: Peer) -> bool:
    """Close the connection of ``peer`` under ZeroMQ's feet: shut its TCP socket down, so
    that ZeroMQ sees the peer go and frees what the connection held. The descriptor is first
    checked to be the same connection (a closed one's number may have been reused)."""
    if peer.address is None or peer_address(peer.fd) != peer.address:
        return False
    with contextlib.suppress(OSError), socket.socket(fileno=os.dup(peer.fd)) as sock:
        sock.shutdown(socket.SHUT_RDWR)
        return True
    return False
