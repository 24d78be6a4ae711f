"""A client's connection to a mundus-net host (docs/protocol.md): written once, used by the
network bots and the terminal client.

The core is poll-driven and single-threaded: :meth:`Connection.poll` waits for the sockets for
at most ``timeout`` seconds, handles everything that arrived (and the timers: pings, host
silence, snapshot retries, reconnects) and returns the :class:`Notice` objects that describe
what changed. Nothing happens between two calls, so a plain loop can drive it; a UI with its own
event loop uses :mod:`mundus_net.client.background` instead, which runs the same loop in a
thread.

What the connection does by itself:

* keeps the public state with the Clone pattern (§5): a snapshot (the whole state) on a join
  or a gap, then updates in ``seq`` order, each merging the state keys that changed;
  buffered updates at or below the snapshot's ``seq`` dropped, so every public event is
  delivered exactly once, in order;
* keeps this seat's private state and its pending decision (``legal`` decoded into engine
  decisions);
* commits offers (fresh nonce, SHA-256 commitment), reveals them when asked, and checks every
  seat's reveal against its commitment and against the engine's revealed offer (§7);
* pings the host every heartbeat, and after 5 heartbeats of host silence reconnects with
  fresh sockets and the seat token (§11).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import zmq

from mundus_net.engine.decisions import Decision, Offer
from mundus_net.engine.deck import CardDef, Deck, default_deck
from mundus_net.engine.game import Pending, Result
from mundus_net.engine.view import StateView
from mundus_net.protocol import commitment, fairdeal
from mundus_net.protocol.codec import DECISION_KINDS, decision_from_wire, decision_to_wire
from mundus_net.protocol.errors import ProtocolError
from mundus_net.protocol.messages import (
    DEFAULT_HEARTBEAT_MS,
    MAX_HOST_FRAME,
    decode_host,
    encode,
)
from mundus_net.protocol.security import fetch_key, make_client, parse_key, require_curve

LOST_AFTER = 5  # heartbeats of host silence before the host counts as gone (§11)
SNAPSHOT_RETRY = 3  # heartbeats without a snapshot reply before asking again
# A private message names the public update it goes with; that update travels on the other
# socket and normally arrives within a millisecond. If it has not come after this long, it
# was lost: ask for a snapshot instead of waiting for the next heartbeat.
SYNC_GRACE_S = 0.25
SECRET_PHASES = {"commit": "offer", "reveal": "offer"}
ANSWERS = frozenset({"decide", "commit", "reveal"})  # the requests that answer a pending id
# Plain ints: pyzmq's enum flags make every `&` a slow Python-level call.
_POLLIN = int(zmq.POLLIN)
_EVENTS = int(zmq.EVENTS)
_NOBLOCK = int(zmq.NOBLOCK)
ANSWER_RETRY = 2  # heartbeats without ok/error for an answer: it was dropped, answer again
RATE_HOLD_S = 1.0  # after rate_limited the host drops everything for a second (§10)


class ClientError(Exception):
    """Misuse of the connection on this side (nothing was sent)."""


class HostError(Exception):
    """The host refused a request (§10)."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.rule = rule


class ConnectTimeout(Exception):
    """The host did not answer in time."""


# -- what the connection hands back ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Welcome:
    seat: int | None
    token: str | None
    game: str
    name: str
    players: int
    names: tuple[str, ...]
    options: dict[str, Any]
    deck: Deck
    pub_port: int
    heartbeat_ms: int
    host_key: str | None = None  # the CURVE key the host proved it holds (None: insecure)
    sign_key: str | None = None  # the Ed25519 key that signs the host's records (hex)
    seed_commitment: bytes | None = None  # the host's commitment to its seed (§15)


@dataclass(frozen=True, slots=True)
class PendingDecision:
    """This seat's pending decision as the host sent it (§6)."""

    id: int
    kind: str  # an engine phase, or commit / reveal
    detail: dict[str, Any]
    legal: tuple[Decision, ...]
    deadline: float | None  # time.monotonic() value, or None
    seq: int  # the public update it goes with

    @property
    def phase(self) -> str:
        """The engine phase: commit and reveal are the offer step."""
        return SECRET_PHASES.get(self.kind, self.kind)


@dataclass(frozen=True, slots=True)
class OfferSecret:
    """What opens this seat's commitment; keep it to reveal after a restart."""

    round: int
    offer: tuple[int, ...]
    nonce: bytes
    commitment: bytes

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "offer": list(self.offer), "nonce": self.nonce.hex(),
                "commitment": self.commitment.hex()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OfferSecret:
        return cls(int(data["round"]), tuple(int(c) for c in data["offer"]),
                   bytes.fromhex(data["nonce"]), bytes.fromhex(data["commitment"]))


class Notice:
    """Something that happened, returned by :meth:`Connection.poll`."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Joined(Notice):
    welcome: Welcome
    resumed: bool  # True after a reconnect with the token


@dataclass(frozen=True, slots=True)
class Synced(Notice):
    """A snapshot was applied (after a join, a reconnect or a gap)."""

    seq: int


@dataclass(frozen=True, slots=True)
class PublicEvents(Notice):
    """New public events (each delivered once, in order) and the state they led to."""

    seq: int
    events: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class PrivateUpdate(Notice):
    events: tuple[dict[str, Any], ...]
    pending: PendingDecision | None


@dataclass(frozen=True, slots=True)
class Accepted(Notice):
    request: str  # decide, commit, reveal, chat, bye
    id: int


@dataclass(frozen=True, slots=True)
class Refused(Notice):
    """An ``error`` from the host (§10); ``request`` is the request type it answers."""

    code: str
    message: str
    rule: str | None
    request: str | None
    id: int | None


@dataclass(frozen=True, slots=True)
class Pong(Notice):
    """The answer to :meth:`Connection.ping`."""

    id: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Mismatch(Notice):
    """A seat's reveal does not open its commitment, or differs from the offer the host
    revealed: the host (or that seat) cheated. ``seat`` -1 is the host's own seed
    commitment or the deal (§15)."""

    round: int
    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class Problem(Notice):
    """A local difficulty worth telling the user (e.g. a lost secret after a restart)."""

    message: str


@dataclass(frozen=True, slots=True)
class Lost(Notice):
    reason: str


@dataclass(frozen=True, slots=True)
class GameOver(Notice):
    result: Result


@dataclass(frozen=True, slots=True)
class Closed(Notice):
    reason: str


# -- helpers ----------------------------------------------------------------------------------


def deck_from_wire(cards: Sequence[dict[str, Any]]) -> Deck:
    """The welcome's deck; the default deck object itself when the cards are the default's."""
    defs = []
    for c in cards:
        defs.append(CardDef(
            id=str(c["id"]), kind=str(c["kind"]), name=str(c["name"]), players=int(c["players"]),
            icon=c.get("icon"), income=int(c["income"]), group=str(c.get("group", "base")),
            caravel=int(c.get("caravel", 0)), merchant_class=int(c.get("merchant_class", 0)),
            capacity=int(c.get("capacity", 0)), power=str(c.get("power") or "")))
    default = default_deck()
    # The wire form does not carry the card group; compare without it.
    def key(d: CardDef) -> tuple[Any, ...]:
        return (d.id, d.kind, d.name, d.players, d.icon, d.income, d.caravel,
                d.merchant_class, d.capacity, d.power)
    if [key(d) for d in defs] == [key(d) for d in default.cards]:
        return default
    return Deck(name="host", cards=tuple(defs))


def _pub_address(address: str, port: int) -> str:
    scheme, sep, rest = address.partition("://")
    if not sep:
        raise ValueError(f"{address!r} is not tcp://HOST:PORT")
    host = rest.rsplit(":", 1)[0]
    return f"{scheme}://{host}:{port}"


def _seat_map(value: Any) -> dict[int, Any]:
    if not isinstance(value, dict):
        return {}
    out: dict[int, Any] = {}
    for k, v in value.items():
        try:
            out[int(k)] = v
        except (TypeError, ValueError):
            continue
    return out


def _result(raw: Any) -> Result | None:
    if not isinstance(raw, dict):
        return None
    return Result(tuple(raw["winners"]), str(raw["reason"]), tuple(raw["doubloons"]),
                  tuple(raw["places"]), int(raw["rounds"]))


@dataclass
class _Commitments:
    """One offer step's commitments and the engine's revealed offers, for verification."""

    hashes: dict[int, bytes] = field(default_factory=dict)
    round: int = 0
    reveals: dict[int, tuple[int, ...]] | None = None  # reveals that open their commitment
    revealed: dict[int, tuple[int, ...]] | None = None  # the engine's reveal event
    violations: set[int] = field(default_factory=set)
    compared: bool = False


# -- the connection ---------------------------------------------------------------------------


class Connection:
    """One client's link to one host table. Not thread-safe: use it from one thread (other
    threads may only call :meth:`call_soon`)."""

    def __init__(self, address: str, name: str, role: str = "player", token: str | None = None,
                 bot: bool = False, *, secret: OfferSecret | None = None,
                 context: zmq.Context[Any] | None = None,
                 on_mismatch: Callable[[Mismatch], None] | None = None,
                 on_secret: Callable[[OfferSecret | None], None] | None = None,
                 tap: Callable[[str, dict[str, Any]], None] | None = None,
                 server_key: str | None = None, insecure: bool = False,
                 contribute: bool = True, wakeable: bool = True,
                 public_from: Connection | None = None) -> None:
        if role not in ("player", "spectator"):
            raise ValueError("role is player or spectator")
        # Encryption (docs/security.md): CURVE with the host key ``server_key`` (Z85); without
        # one, connect() asks the host's key port and trusts the answer for this connection
        # (trust on first use, without memory: the commands keep known hosts). ``insecure``:
        # plain sockets, for a host run with --insecure.
        self.insecure = insecure
        self.server_key = None if server_key is None else parse_key(server_key)
        self.contribute = contribute and role == "player"  # a share of the seed (§15)
        self.contribution: bytes | None = None
        self.address = address
        self.name = name
        self.role = role
        self.bot = bot
        self.token = token
        self.secret = secret  # the open commitment of this seat, if any
        self.on_mismatch = on_mismatch
        self.on_secret = on_secret  # called when the secret changes (to save it)
        self.tap = tap  # sees every message received: ("dealer" | "sub", message); for tests
        # Whether other threads may wake a blocking poll (call_soon): a private inproc pipe
        # polled with the sockets. A single-threaded user (mundus bot) goes without it: every
        # socket in the poll costs system calls on every turn.
        self.wakeable = wakeable
        self._ctx = context or zmq.Context.instance()
        # Several seats played from one thread (mundus bot --seats N) need the public
        # messages once: a connection made with ``public_from`` opens no SUB socket and is
        # handed every public message ``public_from`` receives, which it handles as its own
        # (sequence numbers, gaps and snapshots included).
        self._public_from: Connection | None = public_from
        self._followers: list[Connection] = []
        if public_from is not None:
            if public_from.address != address or public_from._public_from is not None:
                raise ValueError("public_from is a connection to the same table with its own "
                                 "SUB socket")
            public_from._followers.append(self)

        self.welcome: Welcome | None = None
        self.seat: int | None = None
        self.game_id: str | None = None
        self.deck: Deck | None = None
        self.heartbeat_s = DEFAULT_HEARTBEAT_MS / 1000

        self.seq = 0  # the last public update applied
        self.state: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []  # every public event, in order
        self.private: dict[str, Any] = {}
        self.pending: PendingDecision | None = None
        self.result: Result | None = None
        self.mismatches: list[Mismatch] = []
        self.closed = False
        self.connected = False  # welcomed and not lost
        self.synced = False  # the public state is complete up to self.seq

        self._dealer: zmq.Socket[Any] | None = None
        self._sub: zmq.Socket[Any] | None = None
        self._poller = zmq.Poller()
        self._wake_rx: zmq.Socket[Any] | None = None
        self._wake_tx: zmq.Socket[Any] | None = None
        self._wake_lock = threading.Lock()
        self._calls: deque[Callable[[], None]] = deque()
        self._out: list[Notice] = []
        self._ids = itertools.count(1)
        self._requests: dict[int, tuple[str, int | None]] = {}
        self._buffer: dict[int, dict[str, Any]] = {}
        self._snapshot_asked: float | None = None  # when, while a snapshot is awaited
        self._behind_since: float | None = None  # a private message is ahead of self.seq
        self._answered: int | None = None  # the pending id answered last
        self._answer_request: tuple[int, float] | None = None  # (request id, sent at)
        self._hold_until = 0.0  # rate-limited: send nothing before this
        self._rejoined_at = -1e18  # the last hello after a not_joined (at most one a heartbeat)
        self._warned_secret: int | None = None
        self._ping_sent: dict[int, float] = {}
        self.latency: float | None = None  # seconds of the last ping -> pong
        # The last legal list: (pending id, the list as received, decoded). An equal list
        # under a new id (commit, then reveal) is not decoded again.
        self._legal_cache: tuple[int, Sequence[Any], tuple[Decision, ...]] | None = None
        self._offer_steps: dict[int, _Commitments] = {}  # the latest offer step only
        self._last_heard = 0.0
        self._last_sent = 0.0
        self._over_reported = False
        self._fair: dict[str, Any] | None = None  # the fair_deal event (§15)
        self._frozen: dict[str, tuple[Any, Any]] = {}  # StateView's conversions, reused

    # -- joining ------------------------------------------------------------------------------

    def connect(self, timeout: float = 10.0) -> Welcome:
        """Say hello and wait until welcomed and synced. Raises :class:`HostError` when the
        host refuses (table full, bad token...) and :class:`ConnectTimeout`. Notices seen
        meanwhile are returned by the next :meth:`poll`."""
        if self.closed:
            raise ClientError("the connection is closed")
        deadline = time.monotonic() + timeout
        if not self.insecure and self.server_key is None:
            announced = fetch_key(self.address, min(timeout, 5.0), self._ctx)
            if announced is None:
                raise ConnectTimeout(f"no answer from the key port of {self.address} "
                                     "(PORT+2): pass the host's key, or check the address")
            if announced.insecure or announced.key is None:
                raise ClientError(f"{self.address} runs without encryption (--insecure): "
                                  "connect with insecure=True to accept that")
            self.server_key = announced.key
        self._open()
        queued: list[Notice] = []
        while not (self.connected and self.synced):
            left = deadline - time.monotonic()
            if left <= 0:
                raise ConnectTimeout(f"no answer from {self.address} in {timeout:g} s")
            for notice in self.poll(left):
                if isinstance(notice, Refused) and notice.request == "hello":
                    self._close_sockets()
                    raise HostError(notice.code, notice.message, notice.rule)
                queued.append(notice)
        self._out[:0] = queued
        assert self.welcome is not None
        return self.welcome

    def _open(self) -> None:
        """Fresh sockets and a hello (also how a reconnect starts)."""
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
        self.connected = False
        self.synced = False
        self._snapshot_asked = None
        self._behind_since = None
        self._answered = None  # an answer lost with the old sockets must be sent again
        self._requests.clear()
        hello: dict[str, Any] = {"t": "hello", "name": self.name, "role": self.role}
        if self.token is not None:
            hello["token"] = self.token
        if self.bot:
            hello["bot"] = True
        if self.contribute:
            hello["contribute"] = True
        now = time.monotonic()
        self._send(hello, now)
        self._last_heard = now

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

    # -- the loop -----------------------------------------------------------------------------

    def poll(self, timeout: float | None = 0.0) -> list[Notice]:
        """Handle what arrives within ``timeout`` seconds (None: until something happens)
        and return what changed. Returns early once there is something to report, or after
        running functions handed over by :meth:`call_soon`."""
        now = time.monotonic()
        deadline = None if timeout is None else now + timeout
        while True:
            if self._run_calls() or self.closed:  # a call from another thread: let its
                break                             # caller look
            wait = self._timers(now)
            if self._out:
                wait = 0.0
            elif deadline is not None:
                wait = min(wait, max(0.0, deadline - now))
            ready = dict(self._poller.poll(math.ceil(wait * 1000)))
            if ready:
                self._ready(ready)
            now = time.monotonic()
            if self._out or self._calls or (deadline is not None and now >= deadline):
                break
        out, self._out = self._out, []
        return out

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
        # A handler may replace the sockets; EVENTS is cheaper than a recv raising Again.
        while (sock is self._dealer or sock is self._sub) and \
                int(sock.getsockopt(_EVENTS)) & _POLLIN:
            frame = sock.recv(_NOBLOCK)
            self._last_heard = time.monotonic()
            try:
                message = decode_host(frame)
            except ProtocolError as exc:
                self._out.append(Problem(f"unreadable message from the host: {exc}"))
                continue
            if self.tap is not None:
                self.tap(source, message)
            if source == "dealer":
                self._handle(self._on_dealer, message)
            else:
                self._handle(self._on_sub, message)
                for follower in self._followers:
                    if not follower.closed:
                        follower._handle(follower._on_sub, message)

    def _handle(self, handler: Callable[[dict[str, Any]], None], message: dict[str, Any]
                ) -> None:
        try:
            handler(message)
        except (KeyError, TypeError, ValueError, ProtocolError) as exc:
            # A host that sends nonsense must not crash the client.
            self._out.append(Problem(f"bad {message.get('t')!r} from the host: {exc!r}"))

    def _timers(self, now: float) -> float:
        """Run what is due; return the seconds until the next timer."""
        hb = self.heartbeat_s
        if self._dealer is None:
            return hb
        if now - self._last_heard > LOST_AFTER * hb:
            if self.connected:
                self._out.append(Lost(f"no word from the host for {LOST_AFTER} heartbeats"))
            self._open()  # fresh sockets and a hello with the token
            return hb
        if self.connected and now - self._last_sent >= hb and now >= self._hold_until:
            ping: dict[str, Any] = {"t": "ping"}
            if self.token is not None:
                ping["token"] = self.token
            self._send(ping, now)
        if self._answer_request is not None and now - self._answer_request[1] > \
                ANSWER_RETRY * hb:
            if self._answer_request[0] in self._requests:  # no reply: the host never saw it
                self._answered = None
                self._out.append(Problem("no reply to an answer; the decision is open again"))
            self._answer_request = None
        if self.connected:
            self._auto_answer()
            if self._snapshot_asked is not None and now - self._snapshot_asked > \
                    SNAPSHOT_RETRY * hb:
                self._ask_snapshot(now)
            if (self._behind_since is not None and self._snapshot_asked is None
                    and now - self._behind_since > SYNC_GRACE_S):
                self._ask_snapshot(now)
        next_due = min(hb - (now - self._last_sent), LOST_AFTER * hb - (now - self._last_heard))
        if self._behind_since is not None and self._snapshot_asked is None:
            next_due = min(next_due, SYNC_GRACE_S - (now - self._behind_since))
        return max(0.001, next_due)

    def call_soon(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` in the polling thread at its next turn (thread-safe; wakes a blocking
        poll when the connection is ``wakeable``)."""
        self._calls.append(fn)
        with self._wake_lock:
            if self._wake_tx is not None and not self.closed:
                self._wake_tx.send(b"", zmq.NOBLOCK)

    def _send(self, message: dict[str, Any], now: float | None = None) -> int:
        if self._dealer is None:
            raise ClientError("not connected")
        request_id = next(self._ids) & 0x7FFFFFFF
        self._requests[request_id] = (message["t"], message.get("pending"))
        if message["t"] == "ping":
            self._ping_sent[request_id] = time.perf_counter()
            self._ping_sent.pop(request_id - 16, None)  # unanswered pings are forgotten
        if len(self._requests) > 1000:  # replies to pings may never come; forget old ones
            for old in list(self._requests)[:500]:
                del self._requests[old]
        message["id"] = request_id
        with contextlib.suppress(zmq.Again):  # host unreachable now: liveness will notice
            self._dealer.send(encode(message), _NOBLOCK)
        self._last_sent = time.monotonic() if now is None else now
        return request_id

    # -- messages from the host ----------------------------------------------------------------

    def _on_dealer(self, m: dict[str, Any]) -> None:
        t = m["t"]
        if t == "private":
            self._on_private(m)
        elif t == "ok":
            request = self._requests.pop(m.get("id", -1), None)
            if request is not None and request[0] not in ("ping", "snapshot"):
                self._out.append(Accepted(request[0], m["id"]))
                p = self.pending
                if request[0] in ANSWERS and p is not None and p.id == request[1]:
                    # §6: the answered decision is gone; the host sends no private message
                    # only to say so.
                    self.pending = None
                    self._out.append(PrivateUpdate((), None))
                    self._check_behind()
        elif t == "error":
            request = self._requests.pop(m.get("id", -1), None)
            kind, pending_id = request if request is not None else (None, None)
            code = m.get("code")
            if code == "rate_limited":
                # The host names no request and drops what follows for a second: hold, then
                # answer the pending decision again (its answer may be among the dropped).
                self._hold_until = time.monotonic() + RATE_HOLD_S
                self._answered = None
            elif pending_id is not None and pending_id == self._answered and code != "stale":
                self._answered = None  # the answer did not count: the decision is open again
            now = time.monotonic()
            if code == "not_joined" and request is not None and kind not in ("hello", "bye") \
                    and now - self._rejoined_at >= self.heartbeat_s:
                # The host does not know these sockets: it restarted (and resumed its game
                # from its log) or forgot them. Say hello again, with the token (§11).
                self._rejoined_at = now
                self._out.append(Lost("the host does not know this connection (restarted?)"))
                self._open()
                return
            self._out.append(Refused(str(m.get("code")), str(m.get("message", "")),
                                     m.get("rule"), kind, m.get("id")))
            if kind == "hello":  # no seat (table full, bad token...): nothing more to do
                self.close(bye=False)
        elif t == "welcome":
            self._on_welcome(m)
        elif t == "snapshot":
            self._on_snapshot(m)
        elif t == "pong":
            request = self._requests.pop(m.get("id", -1), None)
            if request is not None:
                self.latency = time.perf_counter() - self._ping_sent.pop(m["id"], 0.0)
                if request[0] == "ping!":
                    self._out.append(Pong(m["id"], self.latency))
        # a host's ping: only a sign of life

    def _on_welcome(self, m: dict[str, Any]) -> None:
        resumed = self.welcome is not None
        deck = self.deck if self.deck is not None and resumed else deck_from_wire(m["deck"])
        welcome = Welcome(
            seat=m.get("seat"), token=m.get("token"), game=str(m["game"]), name=str(m["name"]),
            players=int(m["players"]), names=tuple(m.get("names") or ()),
            options=dict(m.get("options") or {}), deck=deck, pub_port=int(m["pub_port"]),
            heartbeat_ms=int(m.get("heartbeat_ms") or DEFAULT_HEARTBEAT_MS),
            host_key=m.get("host_key") if isinstance(m.get("host_key"), str) else None,
            sign_key=m.get("sign_key") if isinstance(m.get("sign_key"), str) else None,
            seed_commitment=bytes(m["seed_commitment"])
            if isinstance(m.get("seed_commitment"), bytes) else None)
        if resumed and self.game_id is not None and welcome.game != self.game_id:
            # A new game behind the same address: start from nothing.
            self.seq, self.state, self.events, self._buffer = 0, {}, [], {}
            self.secret = None
        self.welcome = welcome
        self.seat = welcome.seat
        if welcome.token is not None:
            self.token = welcome.token
        self.game_id = welcome.game
        self.deck = deck
        self.heartbeat_s = max(0.01, welcome.heartbeat_ms / 1000)
        self.connected = True
        if self._public_from is None:
            self._subscribe(welcome.pub_port)
        self._out.append(Joined(welcome, resumed))
        if m.get("contribute") and self.contribute and self.token is not None:
            # §15: the host committed to its seed (the welcome says to what) before this
            # random share of the seed is sent.
            self.contribution = os.urandom(fairdeal.CONTRIBUTION_BYTES)
            self._send({"t": "contribute", "token": self.token, "value": self.contribution})
        # A late join (or a rejoin) starts from a snapshot; updates that arrive before it
        # are buffered (§5).
        self._ask_snapshot(time.monotonic())

    def _subscribe(self, pub_port: int) -> None:
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

    def _ask_snapshot(self, now: float) -> None:
        message: dict[str, Any] = {"t": "snapshot"}
        if self.token is not None:
            message["token"] = self.token
        self._send(message, now)
        self._snapshot_asked = now

    def _on_sub(self, m: dict[str, Any]) -> None:
        t = m["t"]
        if t == "update":
            seq = int(m["seq"])
            if self._snapshot_asked is not None or not self.synced:
                self._buffer[seq] = m
            elif seq <= self.seq:
                return  # already applied
            elif seq == self.seq + 1:
                self._apply_update(m)
                self._apply_buffered()
            else:  # a gap: something was missed
                self._buffer[seq] = m
                self._ask_snapshot(time.monotonic())
        elif t == "heartbeat" and self.synced and self._snapshot_asked is None \
                and int(m["seq"]) > self.seq and int(m["seq"]) not in self._buffer:
            self._ask_snapshot(time.monotonic())  # the last update was lost

    def _apply_update(self, m: dict[str, Any]) -> None:
        changed = m["changed"]
        if not isinstance(changed, dict):
            raise TypeError("an update's 'changed' is a map")
        self.seq = int(m["seq"])
        # §5: the keys that changed replace ours; the others keep their values. A new map,
        # so that a state handed out before stays as it was.
        self.state = {**self.state, **changed}
        events = list(m.get("events") or ())
        self.events.extend(events)
        self._after_public(events)

    def _apply_buffered(self) -> None:
        for seq in sorted(self._buffer):
            if seq <= self.seq:
                del self._buffer[seq]
            elif seq == self.seq + 1:
                self._apply_update(self._buffer.pop(seq))
            else:
                self._ask_snapshot(time.monotonic())  # still a hole
                return

    def _on_snapshot(self, m: dict[str, Any]) -> None:
        seq = int(m["seq"])
        if self.synced and seq <= self.seq:
            return  # an older or repeated snapshot (a retried request): nothing new in it
        events = list(m.get("events") or ())
        known = len(self.events)
        if known > len(events) or (known and events[known - 1] != self.events[-1]):
            # The host's history is shorter than ours, or another one (a restarted host, which
            # does not tell chats, comings and goings from before its restart): start over.
            self.events = []
        new = events[len(self.events):]
        self.events = events
        self.seq = seq
        self.state = m["state"]
        self._snapshot_asked = None
        self.synced = True
        if m.get("private") is not None:
            self._set_private(m["private"], seq, ())
        self._out.append(Synced(seq))
        self._after_public(new)
        self._apply_buffered()
        self._check_behind()

    def _after_public(self, events: list[dict[str, Any]]) -> None:
        if events:
            self._out.append(PublicEvents(self.seq, tuple(events)))
        for event in events:
            self._watch_offers(event)
        self._check_behind()
        if not self._over_reported:
            result = _result(self.state.get("result"))
            if result is not None:
                self.result = result
                self._over_reported = True
                self._out.append(GameOver(result))

    def _on_private(self, m: dict[str, Any]) -> None:
        events = tuple(m.get("events") or ())
        self._set_private(m, int(m.get("seq", 0)), events)

    def _set_private(self, m: dict[str, Any], seq: int, events: tuple[dict[str, Any], ...]
                     ) -> None:
        self.private = {k: v for k, v in m.items() if k not in ("v", "t", "id", "events",
                                                               "pending", "seq")}
        if self.private.get("seat") is not None:
            self.seat = int(self.private["seat"])
        raw = m.get("pending")
        pending = None
        if raw is not None:
            deadline = raw.get("deadline_ms")
            pending = PendingDecision(
                id=int(raw["id"]), kind=str(raw["kind"]), detail=dict(raw.get("detail") or {}),
                legal=self._decode_legal(int(raw["id"]), raw.get("legal") or ()),
                deadline=None if deadline is None else time.monotonic() + deadline / 1000,
                seq=seq)
        self.pending = pending
        self._out.append(PrivateUpdate(events, pending))
        self._check_behind()
        self._auto_answer()

    def _auto_answer(self) -> None:
        """Reveals, and commitments made before a restart, need no one's decision."""
        p = self.pending
        if p is None or self._answered == p.id or time.monotonic() < self._hold_until:
            return
        secret = self.secret
        held = secret is not None and secret.round == self._round_of(p)
        if p.kind == "reveal":
            if secret is not None and held:
                self._answer(p.id, {"t": "reveal", "offer": list(secret.offer),
                                    "nonce": secret.nonce})
            elif self._warned_secret != p.id:
                self._warned_secret = p.id
                self._out.append(Problem("the host asks for a reveal but this client does not "
                                         "hold the offer's secret; the host will play the "
                                         "default offer"))
        elif p.kind == "commit" and secret is not None and held:
            # Committed in this offer step already (then restarted or reconnected): send the
            # same commitment again rather than a new one the saved secret would not open.
            self._answer(p.id, {"t": "commit", "commitment": secret.commitment})

    def _answer(self, pending_id: int, message: dict[str, Any]) -> int:
        """Send an answer to pending decision ``pending_id`` and remember it is answered."""
        message["token"] = self._token()
        message["pending"] = pending_id
        self._answered = pending_id
        request = self._send(message)
        self._answer_request = (request, self._last_sent)
        return request

    def _decode_legal(self, pending_id: int, raw: Sequence[Any]) -> tuple[Decision, ...]:
        cached = self._legal_cache
        if cached is not None and (cached[0] == pending_id or cached[1] == raw):
            self._legal_cache = (pending_id, cached[1], cached[2])
            return cached[2]
        legal = tuple(_decision(d) for d in raw)
        self._legal_cache = (pending_id, raw, legal)
        return legal

    def _check_behind(self) -> None:
        behind = self.pending is not None and self.pending.seq > self.seq
        if not behind:
            self._behind_since = None
        elif self._behind_since is None:
            self._behind_since = time.monotonic()

    # -- commit-reveal checks ------------------------------------------------------------------

    def _watch_offers(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        if kind in ("fair_deal", "seed_reveal"):
            self._watch_deal(event)
            return
        if kind == "commitments":
            rnd = int(event["round"])
            self._offer_steps = {rnd: _Commitments(hashes={
                s: bytes(h) for s, h in _seat_map(event.get("commitments")).items()})}
            return
        step = next(reversed(self._offer_steps.values()), None) if self._offer_steps else None
        if step is None:
            return  # joined after the commitments: nothing to check against
        if kind == "violation":
            step.violations.add(int(event["seat"]))
        elif kind == "reveal":  # the engine's reveal of the offers
            step.revealed = {s: tuple(sorted(o)) for s, o in
                             _seat_map(event.get("offers")).items()}
            self._compare(step)
        elif kind == "reveals":
            rnd = int(event["round"])
            if rnd in self._offer_steps:
                self._verify(rnd, step, _seat_map(event.get("reveals")))
            if self.secret is not None and self.secret.round <= rnd:
                self._set_secret(None)

    def _watch_deal(self, event: dict[str, Any]) -> None:
        """§15: the seed commitment is the one this client saw before it contributed, its
        contribution is in the deal, and at the end the revealed seed opens the commitment
        and gives the engine seed."""
        promised = self.welcome.seed_commitment if self.welcome is not None else None
        if event["kind"] == "fair_deal":
            self._fair = event
            if promised is not None and bytes(event["commitment"]) != promised:
                self._mismatch(0, -1, "the host's seed commitment is not the one it told "
                                      "when this client joined")
            mine = _seat_map(event.get("contributions")).get(self.seat or 0)
            if self.contribution is not None and (mine is None or bytes(mine)
                                                  != self.contribution):
                self._mismatch(0, -1, "this client's contribution to the seed is not in the "
                                      "deal")
            return
        fair = self._fair
        if fair is None or self.game_id is None:
            return  # joined without seeing the deal: nothing to check against
        host_seed = bytes(event["host_seed"])
        if not fairdeal.check_commitment(bytes(fair["commitment"]), self.game_id, host_seed):
            self._mismatch(0, -1, "the revealed host seed does not open its commitment")
            return
        values = _seat_map(fair.get("contributions"))
        try:
            seed = fairdeal.engine_seed(self.game_id, host_seed,
                                        [bytes(values[s]) for s in range(len(values))],
                                        bool(fair.get("mixed", True)))
        except (KeyError, ValueError):
            seed = None
        if seed != event.get("seed"):
            self._mismatch(0, -1, "the game's seed is not the one the host seed and the "
                                  "contributions give")

    def _verify(self, rnd: int, step: _Commitments, reveals: dict[int, Any]) -> None:
        """Every published reveal must open its seat's commitment (§7, step 5)."""
        assert self.game_id is not None
        step.round = rnd
        step.reveals = {}
        for seat, digest in sorted(step.hashes.items()):
            reveal = reveals.get(seat)
            if reveal is None:
                if seat not in step.violations:
                    self._mismatch(rnd, seat, "committed, but no reveal was published")
                continue
            offer = tuple(sorted(reveal["offer"]))
            if commitment.verify(digest, self.game_id, rnd, seat, offer, bytes(reveal["nonce"])):
                step.reveals[seat] = offer
            elif seat not in step.violations:  # a broken reveal the host did not flag
                self._mismatch(rnd, seat, f"the reveal {list(offer)} does not open the "
                                          "commitment")
        for seat in sorted(set(reveals) - set(step.hashes)):
            self._mismatch(rnd, seat, "a reveal without a commitment")
        self._compare(step)

    def _compare(self, step: _Commitments) -> None:
        """The offers the engine revealed must be the ones committed to."""
        if step.reveals is None or step.revealed is None or step.compared:
            return
        step.compared = True
        for seat, offer in sorted(step.reveals.items()):
            shown = step.revealed.get(seat)
            if seat not in step.violations and shown is not None and shown != offer:
                self._mismatch(step.round, seat, f"the host revealed {list(shown)} but the "
                                                 f"commitment opens to {list(offer)}")

    def _mismatch(self, rnd: int, seat: int, reason: str) -> None:
        notice = Mismatch(rnd, seat, reason)
        self.mismatches.append(notice)
        self._out.append(notice)
        if self.on_mismatch is not None:
            self.on_mismatch(notice)

    def _set_secret(self, secret: OfferSecret | None) -> None:
        self.secret = secret
        if self.on_secret is not None:
            self.on_secret(secret)

    # -- acting -------------------------------------------------------------------------------

    @property
    def ready(self) -> PendingDecision | None:
        """The pending decision if it waits for an answer from this side and the public state
        has caught up with it (what a bot should decide on), else None. Reveals are answered
        automatically and never returned."""
        p = self.pending
        if p is None or p.id == self._answered or p.kind == "reveal" or p.seq > self.seq \
                or not self.synced or not self.connected or time.monotonic() < self._hold_until:
            return None
        return p

    def decide(self, decision: Decision) -> int:
        """Answer the pending decision; an :class:`Offer` in the offer step is committed
        (§7). Returns the request id (the reply is an Accepted or Refused notice)."""
        p = self._open_pending()
        if p.kind == "commit":
            if not isinstance(decision, Offer):
                raise ClientError(f"the offer step needs an Offer, not {decision!r}")
            return self.offer(decision.cards)
        if isinstance(decision, Offer):
            raise ClientError(f"no offer is pending (the host waits for {p.kind})")
        return self._answer(p.id, {"t": "decide", "decision": decision_to_wire(decision)})

    def offer(self, cards: Sequence[int]) -> int:
        """Commit to an offer: a fresh nonce, the commitment sent now, the reveal when the
        host asks for it."""
        p = self._open_pending()
        if p.kind != "commit":
            raise ClientError(f"no offer is pending (the host waits for {p.kind})")
        if self.game_id is None or self.seat is None:
            raise ClientError("not seated")
        rnd = self._round_of(p)
        offer = tuple(sorted(cards))
        nonce = commitment.new_nonce()
        digest = commitment.commit(self.game_id, rnd, self.seat, offer, nonce)
        # Saved before it is sent: a client restarted after committing can still reveal.
        self._set_secret(OfferSecret(rnd, offer, nonce, digest))
        return self._answer(p.id, {"t": "commit", "commitment": digest})

    def _round_of(self, p: PendingDecision) -> int:
        return int(p.detail.get("round", self.state.get("round", 0)))

    def ping(self) -> int:
        """Measure the round trip to the host now: a :class:`Pong` notice comes back (the
        heartbeat pings update :attr:`latency` too)."""
        message: dict[str, Any] = {"t": "ping"}
        if self.token is not None:
            message["token"] = self.token
        request = self._send(message)
        self._requests[request] = ("ping!", None)
        return request

    def chat(self, text: str) -> int:
        return self._send({"t": "chat", "token": self._token(), "text": text})

    def _open_pending(self) -> PendingDecision:
        p = self.pending
        if p is None:
            raise ClientError("nothing is pending for this seat")
        if p.id == self._answered:
            raise ClientError(f"pending decision {p.id} is already answered")
        return p

    def _token(self) -> str:
        if self.token is None:
            raise ClientError("spectators may not act")
        return self.token

    def request_snapshot(self) -> None:
        """Ask for a fresh snapshot (the Clone pattern does this by itself on gaps)."""
        self._ask_snapshot(time.monotonic())

    # -- reading ------------------------------------------------------------------------------

    def view(self) -> StateView:
        """The table as this seat sees it, with the PlayerView reading API (for bots)."""
        if self.deck is None:
            raise ClientError("not joined yet")
        data = dict(self.state)
        data.update(self.private)
        data["seat"] = self.seat
        p = self.pending
        pending = None
        if p is not None and self.seat is not None:
            pending = Pending(p.phase, (self.seat,), _freeze_detail(p.detail))
            data["phase"] = p.phase
        return StateView(data, self.deck, list(p.legal) if p is not None else None, pending,
                         self._frozen)

    # -- leaving ------------------------------------------------------------------------------

    def close(self, bye: bool = True, wait: float = 0.5) -> None:
        """Leave: say bye (the seat stays, marked away) and close the sockets."""
        if self.closed:
            return
        if bye and self._dealer is not None and self.connected:
            message: dict[str, Any] = {"t": "bye"}
            if self.token is not None:
                message["token"] = self.token
            request = self._send(message)
            deadline = time.monotonic() + wait
            while request in self._requests and time.monotonic() < deadline:
                if self._dealer.poll(max(1, int((deadline - time.monotonic()) * 1000))):
                    self._drain(self._dealer, "dealer")
        self.closed = True
        self.connected = False
        self._close_sockets()
        with self._wake_lock:
            for sock in (self._wake_rx, self._wake_tx):
                if sock is not None:
                    sock.close(linger=0)
            self._wake_rx = self._wake_tx = None
        self._out.append(Closed("bye" if bye else "closed"))

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
    now = time.monotonic()
    deadline = None if timeout is None else now + timeout
    while True:
        ran = False
        for conn in conns:
            ran = conn._run_calls() or ran
        live = [conn for conn in conns if not conn.closed]
        if ran or not live:  # a call from another thread: let its caller look
            break
        wait = min(conn._timers(now) for conn in live)
        if any(conn._out for conn in conns):
            wait = 0.0
        elif deadline is not None:
            wait = min(wait, max(0.0, deadline - now))
        ready = dict(_poller_for(live).poll(math.ceil(wait * 1000)))
        if ready:
            for conn in live:
                conn._ready(ready)
        now = time.monotonic()
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


def _poller_for(conns: Sequence[Connection]) -> zmq.Poller:
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


_FIELDS: dict[str, tuple[Any, tuple[str, ...]]] = {
    kind: (cls, cls._fields) for kind, cls in DECISION_KINDS.items()}


def _decision(raw: Any) -> Decision:
    """A legal decision from the host. The fast path trusts the host's shapes (the engine's
    own values, lists sorted): decoding the legal lists was most of a network bot's time.
    Anything odd goes through the validating decoder."""
    try:
        cls, fields = _FIELDS[raw["kind"]]
        if len(raw) == len(fields) + 1:
            args = [raw[f] for f in fields]
            for i, value in enumerate(args):
                if type(value) is list:
                    args[i] = tuple(value)
                elif value is not None and type(value) is not int and type(value) is not str:
                    raise TypeError(fields[i])
            return cls(*args)  # type: ignore[no-any-return]
    except (KeyError, TypeError):
        pass
    return decision_from_wire(raw)


def _freeze_detail(value: Any) -> Any:
    """Wire lists back to tuples (bots may hash what they read)."""
    if isinstance(value, list):
        return tuple(_freeze_detail(v) for v in value)
    if isinstance(value, dict):
        return {k: _freeze_detail(v) for k, v in value.items()}
    return value
