"""A client's connection to a mundus-net host over ZeroMQ (docs/protocol.md): used by the
network bots and the terminal client.

Every protocol decision is :class:`~mundus_net.client.core.ClientCore`'s (the Clone pattern,
commit-reveal and its checks, the fair deal, heartbeats, retries, reconnects); a
:class:`Connection` is its shell. It owns the sockets (DEALER, SUB, CURVE), the poller and the
clock, and drives its core: wait on the sockets until the core's next deadline, hand it every
message, run its timers, send what it hands back, keep its notices for :meth:`Connection.poll`.

The shell is poll-driven and single-threaded: :meth:`Connection.poll` waits for at most
``timeout`` seconds and returns the notices (:mod:`mundus_net.client.notices`) that say
what changed. Nothing happens between two calls, so a plain loop can drive it;
:func:`poll_all` drives several (``mundus bot --seats N``, where the first connection's SUB
socket serves them all: ``public_from``); a UI with its own event loop uses
:mod:`mundus_net.client.background`, which runs the same loop in a thread.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import zmq

from mundus_net.client.core import (
    Channel,
    ClientCore,
    ClientError,
    ClientSettings,
    CloseSockets,
    OfferSecret,
    OpenDealer,
    Subscribe,
)
from mundus_net.client.notices import Gone, Mismatch, Notice, Refused, Welcome
from mundus_net.client.witness import WitnessFile
from mundus_net.engine.decisions import Decision
from mundus_net.engine.errors import MundusError
from mundus_net.protocol.chain import Witness
from mundus_net.protocol.errors import ProtocolError
from mundus_net.protocol.messages import MAX_HOST_FRAME, decode_host
from mundus_net.protocol.security import fetch_key, make_client, parse_key, require_curve
from mundus_net.protocol.shapes import Message

__all__ = ["ConnectTimeout", "Connection", "HostError", "poll_all"]

Clock = Callable[[], float]
# Plain ints: pyzmq's enum flags make every `&` a slow Python-level call.
_POLLIN = int(zmq.POLLIN)
_EVENTS = int(zmq.EVENTS)
_NOBLOCK = int(zmq.NOBLOCK)


class HostError(MundusError):
    """The host refused a request (§10)."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.rule = rule


class ConnectTimeout(MundusError):
    """The host did not answer in time."""


def _pub_address(address: str, port: int) -> str:
    scheme, sep, rest = address.partition("://")
    if not sep:
        raise ValueError(f"{address!r} is not tcp://HOST:PORT")
    host = rest.rsplit(":", 1)[0]
    return f"{scheme}://{host}:{port}"


class Connection:
    """One client's link to one host table: a :class:`ClientCore` (:attr:`core`) on ZeroMQ
    sockets. Not thread-safe: use it from one thread (other threads may only call
    :meth:`call_soon`).

    The connection acts (:meth:`connect`, :meth:`poll`, :meth:`decide`, :meth:`offer`,
    :meth:`chat`, :meth:`ping`, :meth:`request_snapshot`, :meth:`close`) and keeps what only
    the transport knows (:attr:`address`, :attr:`server_key`, :attr:`insecure`); everything
    known about the table is read on its core, the one place that holds it:
    ``conn.core.view()``, ``conn.core.ready``, ``conn.core.result``, ``conn.core.seat``,
    ``conn.core.closed``, ``conn.core.settings.name``... (:class:`ClientCore`)."""

    def __init__(self, address: str, settings: ClientSettings, *, token: str | None = None,
                 secret: OfferSecret | None = None,
                 on_secret: Callable[[OfferSecret | None], None] | None = None,
                 on_mismatch: Callable[[Mismatch], None] | None = None,
                 witnesses: WitnessFile | None = None,
                 tap: Callable[[str, Message], None] | None = None,
                 server_key: str | None = None, insecure: bool = False,
                 context: zmq.Context[Any] | None = None, wakeable: bool = True,
                 public_from: Connection | None = None, defer_witness: bool = False,
                 clock: Clock = time.monotonic) -> None:
        # Who this client is at the table is ``settings`` (each field says what it does);
        # ``token`` and ``secret`` resume a seat, as ClientCore's.
        # ``witnesses``: what this computer's clients saw of each game (client/witness.py),
        # read at the welcome and kept at each round: a host that goes back is seen even
        # after this client restarts.
        # ``defer_witness`` (mundus bot): a witness is saved just before the next frame leaves
        # rather than at once; a round's save waits until the owner has answered
        # (save_witness).
        self.witnesses = witnesses
        save = None if witnesses is None else \
            self._witness_due if defer_witness else witnesses.save
        self.core = ClientCore(settings, token=token, secret=secret, on_secret=on_secret,
                               load_witness=None if witnesses is None else witnesses.get,
                               on_witness=save)
        self.core.defer_round_witness = defer_witness
        self._due: Witness | None = None  # saved before the next frame leaves
        # Encryption (docs/security.md): CURVE with the host key ``server_key`` (Z85); without
        # one, connect() asks the host's key port and trusts the answer for this connection
        # (trust on first use, without memory: the commands keep known hosts). ``insecure``:
        # plain sockets, for a host run with --insecure.
        self.insecure = insecure
        self.server_key = None if server_key is None else parse_key(server_key)
        self.address = address
        self.on_mismatch = on_mismatch
        self.tap = tap  # sees every message received: ("dealer" | "sub", message); for tests
        # Whether other threads may wake a blocking poll (call_soon): a private inproc pipe
        # polled with the sockets. A single-threaded user (mundus bot) goes without it: every
        # socket in the poll costs system calls on every turn.
        self.wakeable = wakeable
        self._clock = clock
        self._ctx = context or zmq.Context.instance()
        # Several seats played from one thread (mundus bot --seats N) need the public
        # messages once: a connection made with ``public_from`` opens no SUB socket and is
        # handed every public message ``public_from`` receives, which its core handles as its
        # own (sequence numbers, gaps and snapshots included).
        self._public_from: Connection | None = public_from
        self._followers: list[Connection] = []
        if public_from is not None:
            if public_from.address != address or public_from._public_from is not None:
                raise ValueError("public_from is a connection to the same table with its own "
                                 "SUB socket")
            public_from._followers.append(self)

        self._dealer: zmq.Socket[Any] | None = None
        self._sub: zmq.Socket[Any] | None = None
        self._poller = zmq.Poller()
        self._wake_rx: zmq.Socket[Any] | None = None
        self._wake_tx: zmq.Socket[Any] | None = None
        self._wake_lock = threading.Lock()
        self._calls: deque[Callable[[], None]] = deque()
        self._out: list[Notice] = []

    # -- joining ------------------------------------------------------------------------------

    def connect(self, timeout: float = 10.0) -> Welcome:
        """Say hello and wait until welcomed and synced. Raises :class:`HostError` when the
        host refuses (table full, bad token...; the connection is closed then) and
        :class:`ConnectTimeout`. Notices seen meanwhile are returned by the next
        :meth:`poll`."""
        core = self.core
        if core.closed:
            raise ClientError("the connection is closed")
        deadline = self._clock() + timeout
        if not self.insecure and self.server_key is None:
            announced = fetch_key(self.address, min(timeout, 5.0), self._ctx)
            if announced is None:
                raise ConnectTimeout(f"no answer from the key port of {self.address} "
                                     "(PORT+2): pass the host's key, or check the address")
            if announced.insecure or announced.key is None:
                raise ClientError(f"{self.address} runs without encryption (--insecure): "
                                  "connect with insecure=True to accept that")
            self.server_key = announced.key
        core.start(self._clock())
        self._pump()
        queued: list[Notice] = []
        while not (core.connected and core.synced):
            left = deadline - self._clock()
            if left <= 0:
                raise ConnectTimeout(f"no answer from {self.address} in {timeout:g} s")
            for notice in self.poll(left):
                if isinstance(notice, Refused) and notice.request == "hello":
                    raise HostError(notice.code, notice.message, notice.rule)
                if isinstance(notice, Gone):  # taken over before it was synced, say
                    raise HostError(notice.why, notice.detail)
                queued.append(notice)
            if core.closed:  # closed without a word: nothing more will come
                raise HostError("closed", f"the connection to {self.address} closed")
        self._out[:0] = queued
        assert core.welcome is not None  # connected
        return core.welcome

    # -- the sockets --------------------------------------------------------------------------

    def _pump(self) -> None:
        """Do what the core asks, in order: frames for the DEALER and socket actions; then keep
        its notices for poll()."""
        core = self.core
        self._act(core.outgoing())
        notices = core.notices()
        if notices:
            self._out.extend(notices)
            if self.on_mismatch is not None:
                for notice in notices:
                    if isinstance(notice, Mismatch):
                        self.on_mismatch(notice)

    def _act(self, items: Iterable[object]) -> None:
        for item in items:
            if type(item) is bytes:
                if self._due is not None:  # what the frame tells is saved first
                    self._save_due()
                if self._dealer is not None:
                    with contextlib.suppress(zmq.Again):  # unreachable now: liveness will tell
                        self._dealer.send(item, _NOBLOCK)
            elif isinstance(item, OpenDealer):
                self._open_dealer()
            elif isinstance(item, Subscribe):
                self._subscribe(item.pub_port)
            elif isinstance(item, CloseSockets):
                self._teardown()

    def _witness_due(self, witness: Witness) -> None:
        self._due = witness

    def _save_due(self) -> None:
        due, self._due = self._due, None
        if due is not None and self.witnesses is not None:
            self.witnesses.save(self.core.witness or due)  # the newest: it holds the due one

    def _open_dealer(self) -> None:
        """Fresh sockets (also how a reconnect starts): the core's hello follows."""
        self._close_sockets()
        dealer = self._ctx.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.setsockopt(zmq.MAXMSGSIZE, MAX_HOST_FRAME)
        self._secure(dealer)
        dealer.connect(self.address)
        self._dealer = dealer
        if self._wake_rx is None and self.wakeable:
            # A private inproc pipe lets other threads interrupt a blocking poll.
            endpoint = f"inproc://mundus-client-wake-{id(self)}"
            self._wake_rx = self._ctx.socket(zmq.PAIR)
            self._wake_rx.bind(endpoint)
            self._wake_tx = self._ctx.socket(zmq.PAIR)
            self._wake_tx.connect(endpoint)
        self._poller = zmq.Poller()
        self._poller.register(dealer, zmq.POLLIN)
        if self._wake_rx is not None:
            self._poller.register(self._wake_rx, zmq.POLLIN)

    def _subscribe(self, pub_port: int) -> None:
        if self._public_from is not None:
            return  # public_from's SUB socket serves this connection too
        if self._sub is not None:  # a repeated welcome: keep one SUB
            self._poller.unregister(self._sub)
            self._sub.close(linger=0)
        sub = self._ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt(zmq.MAXMSGSIZE, MAX_HOST_FRAME)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        self._secure(sub)
        sub.connect(_pub_address(self.address, pub_port))
        self._sub = sub
        self._poller.register(sub, zmq.POLLIN)

    def _secure(self, sock: zmq.Socket[Any]) -> None:
        """CURVE for ``sock`` before it connects (nothing when insecure)."""
        if self.insecure:
            return
        if self.server_key is None:
            raise ClientError("no host key: connect() learns it, or pass server_key")
        require_curve()
        make_client(sock, self.server_key)

    def _close_sockets(self) -> None:
        for sock in (self._dealer, self._sub):
            if sock is not None:
                sock.close(linger=0)
        self._dealer = self._sub = None

    def _teardown(self) -> None:
        """The core closed: every socket goes, the wake pipe too."""
        self._close_sockets()
        with self._wake_lock:
            for sock in (self._wake_rx, self._wake_tx):
                if sock is not None:
                    sock.close(linger=0)
            self._wake_rx = self._wake_tx = None

    # -- the loop -----------------------------------------------------------------------------

    def poll(self, timeout: float | None = 0.0) -> list[Notice]:
        """Handle what arrives within ``timeout`` seconds (None: until something happens)
        and return what changed. Returns early once there is something to report, or after
        running functions handed over by :meth:`call_soon`."""
        now = self._clock()
        deadline = None if timeout is None else now + timeout
        while True:
            if self._run_calls() or self.core.closed:  # a call from another thread: let its
                break                             # caller look
            wait = self._timers(now)
            if self._out:
                wait = 0.0
            elif deadline is not None:
                wait = min(wait, max(0.0, deadline - now))
            ready = dict(self._poller.poll(math.ceil(wait * 1000)))
            if ready:
                self._ready(ready)
            now = self._clock()
            if self._out or self._calls or (deadline is not None and now >= deadline):
                break
        out, self._out = self._out, []
        return out

    def _timers(self, now: float) -> float:
        """Run the core's timers; return the seconds until its next deadline."""
        core = self.core
        due = core.next_deadline()
        if due is not None and due <= now:  # most turns nothing is due: skip the timers
            core.handle_timer(now)
            due = core.next_deadline()
        self._pump()
        return core.heartbeat_s if due is None else max(0.0, due - now)

    def _ready(self, ready: dict[Any, int]) -> None:
        """Read the sockets of this connection that ``ready`` (a poll's answer) names."""
        if self._wake_rx is not None and self._wake_rx in ready:
            while self._wake_rx.poll(0):
                self._wake_rx.recv()
        if self._dealer is not None and self._dealer in ready:
            self._drain(self._dealer, "dealer")
        if self._sub is not None and self._sub in ready:
            self._drain(self._sub, "sub")

    def _sockets(self) -> list[zmq.Socket[Any]]:
        return [sock for sock in (self._dealer, self._sub, self._wake_rx) if sock is not None]

    def _run_calls(self) -> bool:
        """Run what other threads handed over (call_soon); True if anything ran."""
        ran = bool(self._calls)
        while self._calls:
            self._calls.popleft()()
        return ran

    def _drain(self, sock: zmq.Socket[Any], source: str) -> None:
        # The core may replace the sockets (a reconnect); EVENTS is cheaper than a recv
        # raising Again.
        while (sock is self._dealer or sock is self._sub) and \
                int(sock.getsockopt(_EVENTS)) & _POLLIN:
            frame = sock.recv(_NOBLOCK)
            try:
                message = decode_host(frame)
            except ProtocolError:
                # The core tells it as a Problem (and counts it as a sign of life).
                channel = Channel.DEALER if source == "dealer" else Channel.PUBLIC
                self.core.receive(channel, frame, self._clock())
                self._pump()
                continue
            if self.tap is not None:
                self.tap(source, message)
            if source == "dealer":
                self.core.receive(Channel.DEALER, message, self._clock())
                self._pump()
            else:
                self._on_sub(message)
                for follower in self._followers:
                    if not follower.core.closed:
                        follower._on_sub(message)

    def _on_sub(self, message: Message) -> None:
        """One public message, from this connection's SUB socket or ``public_from``'s."""
        channel = Channel.PUBLIC if self._public_from is None else Channel.RELAYED
        self.core.receive(channel, message, self._clock())
        self._pump()

    def call_soon(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` in the polling thread at its next turn (thread-safe; wakes a blocking
        poll when the connection is ``wakeable``)."""
        self._calls.append(fn)
        with self._wake_lock:
            if self._wake_tx is not None and not self.core.closed:
                self._wake_tx.send(b"", zmq.NOBLOCK)

    # -- acting -------------------------------------------------------------------------------

    def decide(self, decision: Decision) -> int:
        """Send a decision now: :meth:`ClientCore.decide` does the work (checks it against the
        pending step, commits an Offer in the offer step, §7), this only puts its frame on the
        socket. Returns the request id; raises :class:`ClientError` (nothing sent) as it."""
        request = self.core.decide(decision, self._clock())
        self._pump()
        return request

    def ping(self) -> int:
        """Measure the round trip to the host now: a :class:`Pong` notice comes back."""
        request = self.core.ping(self._clock())
        self._pump()
        return request

    def chat(self, text: str) -> int:
        request = self.core.chat(text, self._clock())
        self._pump()
        return request

    def accept_rewind(self) -> int | None:
        """Go on after a Rewound notice (ClientCore.accept_rewind): said at the table."""
        request = self.core.accept_rewind(self._clock())
        self._pump()
        return request

    def request_snapshot(self) -> None:
        """Ask for a fresh snapshot (the Clone pattern does this by itself on gaps)."""
        self.core.request_snapshot(self._clock())
        self._pump()

    def watch_offers(self, event: Message) -> None:
        """Check one public event as if it had arrived (the core checks every one itself;
        tests/test_fair_deal.py calls this)."""
        self.core._watch_offers(event)
        self._pump()

    @property
    def subscribed_itself(self) -> bool:
        """Whether this connection has a SUB socket of its own (one that reads the public
        messages of another connection, ``public_from``, has none)."""
        return self._sub is not None

    # -- leaving ------------------------------------------------------------------------------

    def close(self, bye: bool = True, wait: float = 0.5) -> None:
        """Leave: say bye (the seat stays, marked away), wait up to ``wait`` seconds for its
        reply, and close the sockets."""
        if self.core.closed:
            return
        self.save_witness()
        if bye and self._dealer is not None:
            request = self.core.bye(self._clock())
            self._pump()
            deadline = self._clock() + wait
            while request is not None and self.core.waiting_for(request) \
                    and self._dealer is not None and self._clock() < deadline:
                if self._dealer.poll(max(1, int((deadline - self._clock()) * 1000))):
                    self._drain(self._dealer, "dealer")
        self.core.close("bye" if bye else "closed")
        self._pump()

    def save_witness(self) -> None:
        """Save the witness if its save was deferred (``defer_witness``): a round's, left
        until the owner has answered, or one due before the next frame."""
        round_saved = self.core.take_unsaved_witness()
        due, self._due = self._due, None
        witness = self.core.witness if round_saved or due else None  # the newest holds both
        if witness is not None and self.witnesses is not None:
            self.witnesses.save(witness)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def poll_all(conns: Sequence[Connection], timeout: float | None = 0.0
             ) -> list[tuple[Connection, list[Notice]]]:
    """:meth:`Connection.poll` for several connections driven by one thread (``mundus bot
    --seats N``): one wait for all their sockets and timers, then each connection's notices,
    for the connections that have any. Returns as soon as one of them has something to
    report."""
    clock = conns[0]._clock if conns else time.monotonic
    now = clock()
    deadline = None if timeout is None else now + timeout
    while True:
        ran = False
        for conn in conns:
            ran = conn._run_calls() or ran
        live = [conn for conn in conns if not conn.core.closed]
        if ran or not live:  # a call from another thread: let its caller look
            break
        wait = min(conn._timers(now) for conn in live)
        if any(conn._out for conn in conns):
            wait = 0.0
        elif deadline is not None:
            wait = min(wait, max(0.0, deadline - now))
        ready = dict(poller_for(live).poll(math.ceil(wait * 1000)))
        if ready:
            for conn in live:
                conn._ready(ready)
        now = clock()
        if any(conn._out or conn._calls for conn in conns) or (
                deadline is not None and now >= deadline):
            break
    out: list[tuple[Connection, list[Notice]]] = []
    for conn in conns:
        if conn._out:
            out.append((conn, conn._out))
            conn._out = []
    return out


_pollers = threading.local()  # this thread's last poll_all sockets and their poller


def poller_for(conns: Sequence[Connection]) -> zmq.Poller:
    """A poller for all the sockets of ``conns``, made again only when they changed (a
    reconnect replaces a connection's sockets): registering them all costs more than a poll."""
    sockets = tuple(sock for conn in conns for sock in conn._sockets())
    last = getattr(_pollers, "last", None)
    if last is not None and last[0] == sockets:  # sockets compare by identity
        return last[1]  # type: ignore[no-any-return]
    poller = zmq.Poller()
    for sock in sockets:
        poller.register(sock, zmq.POLLIN)
    _pollers.last = (sockets, poller)
    return poller
