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

The limits themselves are here too, each one token bucket (:class:`TokenBucket`), per key
(:class:`KeyedLimiter`: per connection, per source address) or for everyone together; and
:class:`InviteGuard` bounds the guesses at a table's invite code, per source and in all.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import os
import socket
import struct
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType

__all__ = [
    "CHECKS_PER_SECOND", "FLAG_CHANGE_BURST", "FLAG_CHANGE_RATE", "FREE_GUESSES",
    "GUESSES_PER_SECOND", "GUESS_BURST", "GUESS_MEMORY_S", "GUESS_WAIT_MAX_S", "JOIN_SECONDS",
    "SUBSCRIBER_BYTES", "SUBSCRIBER_BYTES_PER_SECOND", "SUSPECT_CHECKS_PER_SECOND",
    "TAKE_OVER_BURST", "TAKE_OVER_RATE", "ConnectionGuard", "InviteGuard", "KeyedLimiter",
    "Peer", "SeatGuard", "SubscriberGuard", "TokenBucket", "bytes_received", "cut", "fcntl",
    "peer_address", "source_key", "termios", "unsent_bytes"
]

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


# -- limits (socket-free, with an injected clock) ------------------------------------------------


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` kept; each thing allowed takes one."""

    __slots__ = ("burst", "rate", "tokens", "told", "updated")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a bucket needs a positive rate and a burst of at least 1")
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.updated = now
        self.told = -math.inf  # when its owner was last told it is limited (KeyedLimiter.warn)

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.updated) * self.rate)
        self.updated = max(self.updated, now)

    def ready(self, now: float) -> bool:
        """Whether a token is there (none is taken)."""
        self._refill(now)
        return self.tokens >= 1.0

    def take(self, now: float) -> bool:
        """Take a token if there is one."""
        self._refill(now)
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


class KeyedLimiter:
    """A :class:`TokenBucket` per key (a connection, a source address), for at most
    ``max_keys`` keys at once: when a new key comes to a full table, the buckets full for
    10 s are forgotten, else the least recently used one. Forgetting a bucket hands its key a fresh
    burst, so whatever it guards needs a limit for everyone together as well when keys are
    cheap (source addresses are: an IPv6 network has many)."""

    def __init__(self, rate: float, burst: float, *, max_keys: int = 4096,
                 warn_every: float = 1.0) -> None:
        if max_keys < 1:
            raise ValueError("max_keys must be positive")
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.warn_every = warn_every
        self._buckets: dict[object, TokenBucket] = {}

    def __len__(self) -> int:
        return len(self._buckets)

    def bucket(self, key: object, now: float) -> TokenBucket:
        buckets = self._buckets
        found = buckets.pop(key, None)  # put back at the end: the most recently used
        if found is None:
            if len(buckets) >= self.max_keys:
                self.prune(now)
                if len(buckets) >= self.max_keys:
                    del buckets[next(iter(buckets))]
            found = TokenBucket(self.rate, self.burst, now)
        buckets[key] = found
        return found

    def allow(self, key: object, now: float) -> bool:
        return self.bucket(key, now).take(now)

    def warn(self, key: object, now: float) -> bool:
        """Whether to tell ``key`` it is limited (at most once per ``warn_every``)."""
        bucket = self.bucket(key, now)
        if now - bucket.told >= self.warn_every:
            bucket.told = now
            return True
        return False

    def prune(self, now: float) -> None:
        """Forget the keys whose bucket has been full for a while (bounded memory)."""
        for key in [k for k, b in self._buckets.items()
                    if now - b.updated > b.burst / b.rate + 10.0]:
            del self._buckets[key]


def source_key(host: str) -> str:
    """Whom a limit per source counts an address as: an IPv4 address itself, an IPv6 one by
    its /64 network (one household or host gets a whole /64)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


# Invite codes (protocol/invite.py; docs/security.md, "Guessing the invite code").
FREE_GUESSES = 5  # wrong codes a source may give before it waits (typos, a misread letter)
GUESS_WAIT_MAX_S = 3600.0  # the longest a source waits between two guesses
GUESS_MEMORY_S = 86400.0  # a source's wrong guesses are forgotten a day after its last one
GUESSES_PER_SECOND = 1.0  # wrong codes for everyone together, kept up
GUESS_BURST = 60.0


@dataclass(slots=True)
class _Guesses:
    """One source's wrong invite codes."""

    wrong: int
    until: float  # its next guess is looked at from then on
    last: float  # when it gave its last wrong code


class InviteGuard:
    """How many wrong invite codes a table takes: from one source, ``free`` go unnoticed,
    then each wrong one makes the source wait before its next guess, 1 s, 2 s, 4 s...
    (doubling, at most ``max_wait``); from everyone together at most ``per_second`` a second
    (bursts of ``burst``). A source that waits, or any guess while everyone's budget is
    spent, is refused without its code being compared: the right code too. Socket-free,
    with an injected clock; ``log`` takes the lines for the host's console."""

    def __init__(self, clock: Callable[[], float], *, free: int = FREE_GUESSES,
                 max_wait: float = GUESS_WAIT_MAX_S, per_second: float = GUESSES_PER_SECOND,
                 burst: float = GUESS_BURST, max_sources: int = 4096) -> None:
        self.clock = clock
        self.free = free
        self.max_wait = max_wait
        self.max_sources = max_sources
        self.log: Callable[[str], None] = lambda text: None
        self.wrong_total = 0
        self._all = TokenBucket(per_second, burst, clock())
        self._sources: dict[str, _Guesses] = {}  # the least recently wrong first
        self._all_told = -math.inf

    def wait(self, source: str | None) -> float:
        """Seconds until a guess from ``source`` is looked at (0: now)."""
        now = self.clock()
        record = self._sources.get(self._key(source))
        own = 0.0 if record is None else max(0.0, record.until - now)
        if own > 0:
            return own
        if self._all.ready(now):
            return 0.0
        return (1.0 - self._all.tokens) / self._all.rate

    def wrong(self, source: str | None) -> None:
        """A wrong code from ``source``: counted, and its wait set."""
        now = self.clock()
        key = self._key(source)
        self.wrong_total += 1
        self._all.take(now)
        record = self._sources.pop(key, None)
        if record is None or now - record.last > GUESS_MEMORY_S:
            record = _Guesses(0, now, now)
        if len(self._sources) >= self.max_sources:
            del self._sources[next(iter(self._sources))]  # the least recently wrong
        self._sources[key] = record
        record.wrong += 1
        record.last = now
        over = record.wrong - self.free
        if over > 0:
            seconds = min(self.max_wait, 2.0 ** (over - 1))
            record.until = now + seconds
            if over == 1 or seconds >= self.max_wait or over % 5 == 0:
                self.log(f"host: {record.wrong} wrong invite codes from {key}: its next "
                         f"guess waits {seconds:g} s")
        if not self._all.ready(now) and now - self._all_told >= 60.0:
            self._all_told = now
            self.log(f"host: {self.wrong_total} wrong invite codes in all: invite codes are "
                     f"looked at {self._all.rate:g} a second for everyone until they stop "
                     "(seated players are not affected)")

    def right(self, source: str | None) -> None:
        """The right code from ``source``: its wrong guesses are forgotten."""
        self._sources.pop(self._key(source), None)

    @staticmethod
    def _key(source: str | None) -> str:
        return "an unknown address" if source is None else source_key(source)


# A seat's take-overs (docs/protocol.md §3): bursts of TAKE_OVER_BURST, then one every
# 1/TAKE_OVER_RATE seconds; a seat's flag changes (``bot``, ``contribute``) likewise.
TAKE_OVER_BURST = 3.0
TAKE_OVER_RATE = 0.2
FLAG_CHANGE_BURST = 3.0
FLAG_CHANGE_RATE = 0.1
TAKEN_REMEMBERED = 16  # per seat: the connections and client ids taken over, the last ones
CONTEST_TOLD_S = 30.0  # the console is told a seat is fought over at most this often


@dataclass
class _SeatContest:
    """One seat's take-overs and flag changes."""

    take_overs: TokenBucket
    flag_changes: TokenBucket
    taken: deque[bytes | str] = field(default_factory=lambda: deque(maxlen=TAKEN_REMEMBERED))
    count: int = 0  # take-overs made
    refused: int = 0  # take-overs refused
    told: float = -math.inf


class SeatGuard:
    """What a seat's token can do to the seat's connection, per seat: at most
    ``TAKE_OVER_BURST`` take-overs at once, then one every ``1/TAKE_OVER_RATE`` seconds; a
    connection or client program that was taken over never takes the seat back over (it was
    told to stop, §3); flag changes limited the same way. Socket-free, with an injected
    clock; ``log`` takes the console's lines ("seat 1 (Ana) is being fought over")."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.log: Callable[[str], None] = lambda text: None
        self._seats: dict[int, _SeatContest] = {}

    def _seat(self, seat: int) -> _SeatContest:
        found = self._seats.get(seat)
        if found is None:
            now = self.clock()
            found = self._seats[seat] = _SeatContest(
                TokenBucket(TAKE_OVER_RATE, TAKE_OVER_BURST, now),
                TokenBucket(FLAG_CHANGE_RATE, FLAG_CHANGE_BURST, now))
        return found

    def was_taken_over(self, seat: int, conn: bytes, client: str | None) -> bool:
        """Whether ``conn``, or the client program ``client``, was taken over from ``seat``
        (the last ``TAKEN_REMEMBERED`` of each)."""
        taken = self._seat(seat).taken
        return conn in taken or (client is not None and client in taken)

    def take_over_wait(self, seat: int) -> float:
        """Seconds until a take-over of ``seat`` is allowed (0: now; none is taken)."""
        return self._wait(self._seat(seat).take_overs)

    def flag_wait(self, seat: int) -> float:
        """Seconds until ``seat``'s flags may change (0: now; none is taken)."""
        return self._wait(self._seat(seat).flag_changes)

    def _wait(self, bucket: TokenBucket) -> float:
        now = self.clock()
        return 0.0 if bucket.ready(now) else (1.0 - bucket.tokens) / bucket.rate

    def flags_changed(self, seat: int) -> None:
        self._seat(seat).flag_changes.take(self.clock())

    def taken_over(self, seat: int, conn: bytes, client: str | None, by_take_over: bool) -> None:
        """``seat`` moved away from ``conn`` (its client ``client``): by a take-over, which
        counts, or by the same client program from a new connection."""
        contest = self._seat(seat)
        contest.taken.append(conn)
        if by_take_over:
            contest.take_overs.take(self.clock())
            contest.count += 1
            if client is not None:
                contest.taken.append(client)

    def refused(self, seat: int, name: str, why: str) -> int:
        """A take-over of ``seat`` refused; the console is told (at most every
        ``CONTEST_TOLD_S``). Returns the take-overs refused so far."""
        contest = self._seat(seat)
        contest.refused += 1
        now = self.clock()
        if now - contest.told >= CONTEST_TOLD_S:
            contest.told = now
            self.log(f"host: seat {seat} ({name}) is being fought over: {contest.count} "
                     f"take-over(s) made, {contest.refused} refused ({why}); the seat stays "
                     "with the client that holds it. Someone else has its token: see "
                     "docs/security.md, \"A stolen token\"")
        return contest.refused


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
        # The peers are in the order they were accepted: the first that has not joined is
        # the oldest, found without looking at the others (a flood of connections beyond the
        # cap costs one look per joined connection, not one per connection; issue 38).
        victim = next((p for p in self.peers.values() if not self._joined(p, joined)),
                      self.peers[fd])
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


CHECKS_PER_SECOND = 200.0  # subscriber connections looked at in turn, whoever is suspected
SUSPECT_CHECKS_PER_SECOND = 2000.0  # connections looked at because of what they sent


class SubscriberGuard:
    """The PUB socket's connections: at most ``limit``, and each closed once it has sent
    more than a subscriber sends.

    Looking at a connection costs system calls, so no frame makes the guard look at every
    connection: a frame that is more than a subscription has its own connection looked at
    (:meth:`suspected`, at most ``SUSPECT_CHECKS_PER_SECOND`` a second), and the others are
    looked at in turn, at most ``CHECKS_PER_SECOND`` a second (:meth:`sweep`): the work a
    second is bounded whatever the number of connections."""

    def __init__(self, limit: int, allowance: int = SUBSCRIBER_BYTES,
                 per_second: float = SUBSCRIBER_BYTES_PER_SECOND, now: float = 0.0) -> None:
        if limit < 1:
            raise ValueError("limit must be positive")
        self.limit = limit
        self.allowance = allowance
        self.per_second = per_second
        self.peers: dict[int, Peer] = {}
        self.closed_count = 0
        self._turns = TokenBucket(CHECKS_PER_SECOND, CHECKS_PER_SECOND, now)
        self._suspects = TokenBucket(SUSPECT_CHECKS_PER_SECOND, SUSPECT_CHECKS_PER_SECOND, now)
        self._order: deque[int] = deque()  # the sweep's turns (closed ones dropped lazily)

    def __len__(self) -> int:
        return len(self.peers)

    def accepted(self, fd: int, now: float, address: tuple[str, int] | None) -> list[Peer]:
        """A new subscriber: closed at once when ``limit`` are connected already (those
        connected keep their place)."""
        peer = self.peers[fd] = Peer(fd, now, address)
        if len(self.peers) > self.limit:
            return self._close([peer])
        self._order.append(fd)
        if len(self._order) > 2 * len(self.peers) + 16:  # churn: drop the closed ones
            self._order = deque(fd for fd in dict.fromkeys(self._order) if fd in self.peers)
        return []

    def gone(self, fd: int) -> None:
        self.peers.pop(fd, None)

    def flooding(self, now: float, received: Callable[[int], int | None]) -> list[Peer]:
        """Every connection that sent more than an honest subscriber would have by now
        (``received(fd)``: the bytes the connection has received, None if unknown). One call
        for each connection: for tests and rare sweeps; the publisher uses :meth:`suspected`
        and :meth:`sweep`."""
        return self._close([p for p in list(self.peers.values())
                            if self._over(p, now, received)])

    def suspected(self, fds: Iterable[int], now: float,
                  received: Callable[[int], int | None]) -> list[Peer]:
        """The connections among ``fds`` (those that sent something else than a
        subscription) that sent too much; within the budget for such checks."""
        found = []
        for fd in fds:
            peer = self.peers.get(fd)
            if peer is None:
                continue
            if not self._suspects.take(now):
                break  # the sweep finds it in its turn
            if self._over(peer, now, received):
                found.append(peer)
        return self._close(found)

    def sweep(self, now: float, received: Callable[[int], int | None]) -> list[Peer]:
        """The next connections in turn that sent too much, as many as the budget allows
        since the last sweep."""
        found = []
        order = self._order
        for _ in range(len(order)):
            peer = self.peers.get(order[0])
            if peer is None:
                order.popleft()  # closed since
                continue
            if not self._turns.take(now):
                break
            order.rotate(-1)
            if self._over(peer, now, received):
                found.append(peer)
        return self._close(found)

    def _over(self, peer: Peer, now: float, received: Callable[[int], int | None]) -> bool:
        count = received(peer.fd)
        return count is not None and \
            count > self.allowance + self.per_second * (now - peer.since)

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
