"""The host's PUB socket, in a thread of its own (docs/protocol.md §1; docs/security.md,
"Under load and attack").

Subscriptions are what a subscriber sends the PUB socket, and ZeroMQ files each one in a
tree in the thread that owns the socket: a flood of long, distinct subscriptions costs memory
(about 48 times its size) and time there. So the socket is an XPUB in manual mode, owned by
this thread and not by the game's: it applies only the one subscription clients send (to
everything, the empty prefix), limits every frame a subscriber may send (``MAXMSGSIZE``:
what the CURVE handshake needs), and closes a connection as soon as it has sent more than a
subscriber sends (:class:`~host.guard.SubscriberGuard`), which frees what ZeroMQ kept for
it. No frame costs work that grows with the number of subscribers: a frame that is not a
subscription has only its own connection looked at (``SRCFD``), and the others are looked at
in turn within a budget a second. The game's thread hands it each update through an
in-process pipe (:meth:`send`).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

import zmq
from zmq.utils.monitor import parse_monitor_message

from mundus_net.host.guard import SubscriberGuard, bytes_received, cut, peer_address

__all__ = [
    "LAST_WORDS_MS", "PUB_MAX_FRAME", "PUB_RCVHWM", "PUB_SNDHWM", "SUSPECTS_PER_TURN", "Publisher",
    "publisher_socket"
]

PUB_MAX_FRAME = 512  # bytes a subscriber may send in one frame: the CURVE handshake needs ~300
PUB_SNDHWM = 1000  # updates queued for one subscriber; one that lags more catches up (§5)
PUB_RCVHWM = 16  # subscriptions queued from one subscriber
LAST_WORDS_MS = 2000  # how long a closing PUB socket still sends what it holds
# Connections of frames that are not subscriptions read in one turn before they are looked at:
# one, so that a single flooding connection is looked at after its first such frame (issue 38:
# at 64, one connection's flood was read 10,000 frames a turn and the host grew to 812 MB).
SUSPECTS_PER_TURN = 1
_WATCHED = int(zmq.EVENT_ACCEPTED) | int(zmq.EVENT_DISCONNECTED) | int(zmq.EVENT_CLOSED)
_NOBLOCK = int(zmq.NOBLOCK)
_EVENTS = int(zmq.EVENTS)
_POLLIN = int(zmq.POLLIN)
_SRCFD = int(zmq.SRCFD)
_SUBSCRIBE_ALL = b"\x01"
_END = b""  # stop()'s marker in the inbox (an update is never empty)
_UNSUBSCRIBE_ALL = b"\x00"
_names = itertools.count()


def publisher_socket(ctx: zmq.Context[Any]) -> zmq.Socket[Any]:
    """The PUB side's socket, not yet bound (CURVE is set up by the caller)."""
    sock: zmq.Socket[Any] = ctx.socket(zmq.XPUB)
    sock.setsockopt(zmq.LINGER, 200)
    sock.setsockopt(zmq.XPUB_MANUAL, 1)
    sock.setsockopt(zmq.MAXMSGSIZE, PUB_MAX_FRAME)
    sock.setsockopt(zmq.SNDHWM, PUB_SNDHWM)
    sock.setsockopt(zmq.RCVHWM, PUB_RCVHWM)
    return sock


class Publisher:
    """Runs the bound XPUB ``sock`` (from :func:`publisher_socket`) in a daemon thread;
    :meth:`send` publishes from the game's thread."""

    def __init__(self, ctx: zmq.Context[Any], sock: zmq.Socket[Any], limit: int,
                 log: Callable[[str], None], clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.sock = sock
        self.guard = SubscriberGuard(limit, now=clock())
        self.log = log
        self._clock = clock
        self._monitor = sock.get_monitor_socket(_WATCHED)
        address = f"inproc://mundus-publisher-{next(_names)}"
        self._inbox: zmq.Socket[Any] = ctx.socket(zmq.PAIR)
        self._inbox.setsockopt(zmq.RCVHWM, 0)  # the game's updates are never dropped here
        self._inbox.bind(address)
        self._outbox: zmq.Socket[Any] = ctx.socket(zmq.PAIR)  # the game thread's end
        self._outbox.setsockopt(zmq.SNDHWM, 0)
        self._outbox.connect(address)
        self._stop = threading.Event()
        self._ended = False  # the end marker stop() sends has been read
        self._thread = threading.Thread(target=self._run, name="mundus-publisher", daemon=True)
        self._told = -1e18
        # How many bytes a connection has received (the kernel's count; a benchmark counts
        # the calls).
        self.received: Callable[[int], int | None] = bytes_received
        self.closed_floods = 0  # subscriber connections closed for sending too much

    def start(self) -> None:
        self._thread.start()

    def send(self, payload: bytes) -> None:
        """Publish ``payload`` (from the game's thread only)."""
        with contextlib.suppress(zmq.ZMQError):
            self._outbox.send(payload, _NOBLOCK)

    def stop(self, timeout: float = 2.0) -> None:
        """Publish what was sent, then close (from the game's thread)."""
        # The end of what was sent, behind it in the same pipe: the thread publishes until it
        # reads this (a message just sent may not be readable yet in the other thread).
        with contextlib.suppress(zmq.ZMQError):
            self._outbox.send(_END, _NOBLOCK)
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._outbox.close(linger=0)

    # -- the thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        poller = zmq.Poller()
        for sock in (self._inbox, self.sock, self._monitor):
            poller.register(sock, zmq.POLLIN)
        try:
            while True:
                stopping = self._stop.is_set()
                ready = dict(poller.poll(0 if stopping else 100))
                if self._monitor in ready:
                    self._connections()
                self._subscriptions()
                if self._inbox in ready or stopping:
                    self._forward()
                if stopping:
                    deadline = self._clock() + LAST_WORDS_MS / 1000
                    while not self._ended and self._clock() < deadline:
                        if self._inbox.poll(50):
                            self._forward()
                    break
        except zmq.ZMQError as exc:
            if exc.errno != zmq.ETERM:
                self.log(f"host: the publisher stopped: {exc}")
        finally:
            with contextlib.suppress(zmq.ZMQError):
                self.sock.disable_monitor()
            for sock in (self._monitor, self._inbox, self.sock):
                # The last updates (a stop's "stopping") still reach slow subscribers, within
                # a bound: on a loaded machine 200 ms was not always enough.
                sock.close(linger=LAST_WORDS_MS if sock is self.sock else 0)

    def _forward(self) -> None:
        inbox, sock = self._inbox, self.sock
        while int(inbox.getsockopt(_EVENTS)) & _POLLIN:  # cheaper than a recv raising Again
            self._subscriptions()  # a subscriber that came in meanwhile gets these updates
            for _ in range(1000):
                try:
                    payload = inbox.recv(_NOBLOCK, copy=True)
                except zmq.Again:
                    break
                if payload == _END:
                    self._ended = True
                    continue
                with contextlib.suppress(zmq.ZMQError):
                    sock.send(payload, _NOBLOCK)
                if not int(inbox.getsockopt(_EVENTS)) & _POLLIN:
                    break

    def _subscriptions(self) -> None:
        """Apply the subscriptions that came in: only "everything" is a subscription clients
        send; anything else has its sender looked at before the next frame is read, and the
        others are looked at in turn (:class:`~host.guard.SubscriberGuard`: bounded work a
        second)."""
        suspects: set[int] = set()
        sock = self.sock
        for _ in range(10_000):
            if not int(sock.getsockopt(_EVENTS)) & _POLLIN:
                break
            try:
                frame = sock.recv(_NOBLOCK, copy=False)
            except zmq.Again:
                break
            data = frame.bytes
            if data == _SUBSCRIBE_ALL:
                sock.setsockopt(zmq.SUBSCRIBE, b"")  # for the connection it came from
            elif data != _UNSUBSCRIBE_ALL:  # (a connection that closed says that)
                with contextlib.suppress(zmq.ZMQError):  # not known: the sweep finds it
                    suspects.add(int(frame.get(_SRCFD)))
                if len(suspects) >= SUSPECTS_PER_TURN:
                    break  # look at the senders now: every message read costs memory
        now = self._clock()
        guard = self.guard
        flooding = guard.suspected(suspects, now, self.received) if suspects else []
        flooding += guard.sweep(now, self.received)
        closed = sum(1 for peer in flooding if cut(peer))
        if closed:
            self.closed_floods += closed
            if now - self._told >= 10.0:
                self._told = now
                self.log(f"host: closed {closed} subscriber connection(s) that sent more than "
                         "subscribers send (a subscription flood)")

    def _connections(self) -> None:
        now = self._clock()
        while True:
            try:
                frames = self._monitor.recv_multipart(_NOBLOCK)
            except zmq.Again:
                return
            event = parse_monitor_message(frames)
            fd = int(event["value"])
            if event["event"] == zmq.EVENT_ACCEPTED:
                for peer in self.guard.accepted(fd, now, peer_address(fd)):
                    cut(peer)
            else:
                self.guard.gone(fd)
