"""The host's ZeroMQ loop: a :class:`~host.table.Table` behind a ROUTER and a PUB socket
(docs/protocol.md §1, §10, §11).

One thread owns the sockets and the table. Each turn of the loop reads the client messages
that arrived (rate-limited per connection, decoded and checked by ``protocol``, answered by
the table), lets the table advance (deadlines, liveness, host bots a few decisions at a time
so that the host stays responsive during a bot game), sends heartbeats, then publishes the
table's updates and private messages. No input can stop the loop: a message that makes the
handling code fail is logged to stderr and answered with an ``internal`` error.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import resource
import sys
import threading
import time
import traceback
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import msgpack
import zmq
from zmq.utils.monitor import parse_monitor_message

from mundus_net.host.gamelog import LogFailure
from mundus_net.host.guard import (
    ConnectionGuard,
    KeyedLimiter,
    TokenBucket,
    cut,
    peer_address,
    unsent_bytes,
)
from mundus_net.host.keys import HostKeys, KeyPort, key_port_socket
from mundus_net.host.publisher import Publisher, publisher_socket
from mundus_net.host.table import MAX_SPECTATORS, Message, Table, error_message
from mundus_net.protocol.errors import ProtocolError
from mundus_net.protocol.messages import MAX_CLIENT_FRAME, decode_client, encode, encode_sharing
from mundus_net.protocol.security import (
    KEY_PORT_OFFSET,
    KeyAnnouncement,
    make_server,
    require_curve,
)

__all__ = [
    "BOT_BUDGET", "BURST", "CLOSE_WAIT_S", "EVENTS_TURN_S", "IDLE_POLL_S", "LINGER_AFTER_END",
    "RATE", "READ_BUDGET", "ROUTER_MAX_FRAME", "ROUTER_RCVHWM", "ROUTER_SNDHWM",
    "SPARE_CONNECTIONS", "STRANGER_BURST", "STRANGER_RATE", "UNREAD_LIMIT", "Host", "RateLimiter",
    "connection_limit", "request_id"
]

T = TypeVar("T")

RATE = 100.0  # messages per second a connection may keep up
BURST = 200.0  # messages a connection may send at once
# Connections that have not said hello share one budget for their other messages (an honest
# client sends nothing but its hello before its welcome): a flood of pings from connections
# that never join costs the game's thread a read each, not an answer each (issue 38).
STRANGER_RATE = 100.0
STRANGER_BURST = 200.0
BOT_BUDGET = 40  # host-bot decisions per loop turn: the sockets are served in between
READ_BUDGET = 2000  # client messages per loop turn
IDLE_POLL_S = 0.05
EVENTS_TURN_S = 0.005  # the most of a turn spent on connections opened and closed
UNREAD_LIMIT = 256 * 1024  # bytes a peer may leave unread and still be sent a snapshot
CLOSE_WAIT_S = 5.0  # the most wait() gives the thread to close its sockets once finished
LINGER_AFTER_END = 10.0  # seconds the host stays after the game, while anyone is connected
ROUTER_MAX_FRAME = 2 * MAX_CLIENT_FRAME  # a larger frame closes its connection
ROUTER_SNDHWM = 100  # replies and private messages queued for one peer (one that reads
ROUTER_RCVHWM = 20  # keeps far below); messages queued from one peer before it is read
SPARE_CONNECTIONS = 40  # beyond the seats and the spectators: clients coming back, key tries
_WATCHED = int(zmq.EVENT_ACCEPTED) | int(zmq.EVENT_DISCONNECTED) | int(zmq.EVENT_CLOSED)
_SRCFD = int(zmq.SRCFD)
# Plain ints: pyzmq's enum flags make every `|` and `&` a slow Python-level call.
_NOBLOCK = int(zmq.NOBLOCK)
_SNDMORE_NOBLOCK = int(zmq.SNDMORE) | _NOBLOCK
_POLLIN = int(zmq.POLLIN)
_EVENTS = int(zmq.EVENTS)
# After sending a reply whose change is still to be made (Table.answer), give up the CPU for a
# moment: ZeroMQ's I/O thread writes the reply out, and on a busy machine it would otherwise
# wait (up to a scheduler time slice) until this thread blocks, after the engine, the host
# bots and the flush. None where the OS has no sched_yield.
_YIELD: Callable[[], None] | None = getattr(os, "sched_yield", None)


class RateLimiter(KeyedLimiter):
    """A token bucket per connection (host/guard.py); at most one warning per
    ``warn_every`` seconds."""

    def __init__(self, rate: float = RATE, burst: float = BURST, warn_every: float = 1.0) -> None:
        super().__init__(rate, burst, warn_every=warn_every)


def connection_limit(players: int) -> int:
    """How many connections each of the host's sockets keeps at once: every seat and every
    spectator, and some to spare; less when the process may not open that many files (each
    connection is one, on each of the two sockets)."""
    wanted = players + MAX_SPECTATORS + SPARE_CONNECTIONS
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return wanted
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(8, min(wanted, (soft - 64) // 3))


def request_id(payload: bytes) -> int | None:
    """The request id of a message that failed validation, if one can be read, so that the
    error can echo it."""
    if len(payload) > ROUTER_MAX_FRAME:
        return None
    try:
        # unpackb bounds every declared length by the frame's size (checked above)
        message = msgpack.unpackb(payload, raw=False, strict_map_key=True)
    except Exception:  # anything goes wrong with garbage: there is simply no id
        return None
    if isinstance(message, dict):
        rid = message.get("id")
        if type(rid) is int and 0 <= rid < 2**31:
            return rid
    return None


class Host:
    """Serves one table. ``start()`` runs it in a background thread (tests, benchmarks, the
    CLI); ``run()`` runs it in the calling thread. Port 0 picks free ports (the PUB socket is
    always on the ROUTER's port + 1); ``port`` and ``pub_port`` tell which."""

    def __init__(self, table: Table, *, bind: str = "127.0.0.1", port: int = 0,
                 linger_after_end: float = LINGER_AFTER_END, bot_budget: int = BOT_BUDGET,
                 rate: float = RATE, burst: float = BURST,
                 log: Callable[[str], None] | None = None,
                 on_update: Callable[[Message], None] | None = None,
                 keys: HostKeys | None = None, insecure: bool = False,
                 error_file: Path | None = None) -> None:
        self.table = table
        # Where the tracebacks of internal errors go (the console has one line for each);
        # None: the console.
        self.error_file = error_file
        # Encryption (docs/security.md): both sockets are CURVE servers with ``keys`` (fresh
        # keys kept in memory if None); ``insecure`` turns it off. The key port, PORT+2,
        # tells anyone the public keys.
        self.insecure = insecure
        self.keys = keys if keys is not None or insecure else HostKeys.generate()
        self._key_port: KeyPort | None = None
        self.bind = bind
        self.port = port
        self.pub_port = 0
        self.linger_after_end = linger_after_end
        self.bot_budget = bot_budget
        self.limiter = RateLimiter(rate, burst)
        self.clock: Callable[[], float] = time.monotonic  # the limits' (tests inject theirs)
        self.strangers = TokenBucket(STRANGER_RATE, STRANGER_BURST, self.clock())
        self.strangers_dropped = 0  # messages of connections without a hello, dropped
        self.log = log or (lambda text: print(text, file=sys.stderr, flush=True))
        self.on_update = on_update
        self.finished = threading.Event()
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._calls: list[tuple[Callable[[Table], Any], concurrent.futures.Future[Any]]] = []
        self._calls_lock = threading.Lock()
        self._ctx: zmq.Context[Any] | None = None
        self._router: zmq.Socket[Any] | None = None
        self._publisher: Publisher | None = None
        self._router_monitor: zmq.Socket[Any] | None = None
        self.connections = ConnectionGuard(connection_limit(table.players))
        table.invite_guesses.log = table.seat_guard.log = self.log
        self._fd_of: dict[bytes, int] = {}  # ROUTER identity -> its connection
        self._packed: dict[str, tuple[object, bytes]] = {"state": (None, b""),
                                                         "events": (None, b"")}
        self._published_seq = table.seq  # the last update sent to subscribers

    # -- control ------------------------------------------------------------------------------

    @property
    def address(self) -> str:
        return f"tcp://{self.bind}:{self.port}"

    @property
    def public_key(self) -> str | None:
        """The CURVE public key clients connect with (Z85), None when insecure."""
        return None if self.keys is None or self.insecure else self.keys.public_key

    @property
    def key_port(self) -> int:
        return self.port + KEY_PORT_OFFSET

    @property
    def publisher(self) -> Publisher | None:
        """The thread that sends the public messages (None until the host opens)."""
        return self._publisher

    def open(self) -> None:
        """Bind the sockets (raises zmq.ZMQError if the port is taken)."""
        if self._router is not None:
            return
        if not self.insecure:
            require_curve()  # SecurityError with what to do
        ctx: zmq.Context[Any] = zmq.Context()
        try:
            router, pub, key_sock = self._bind(ctx)
        except BaseException:
            ctx.destroy(linger=0)
            raise
        self._ctx, self._router = ctx, router
        self._publisher = Publisher(ctx, pub, self.connections.limit, self.log)
        self._publisher.start()
        self.table.pub_port = self.pub_port
        if self.keys is not None and not self.insecure:
            self.table.host_key, self.table.sign_key = self.keys.public_key, self.keys.sign_key
            announcement = self.keys.announcement()
        else:
            announcement = KeyAnnouncement(None, None, insecure=True)
        self._key_port = KeyPort(key_sock, announcement)
        self._key_port.start()

    def _bind(self, ctx: zmq.Context[Any]
              ) -> tuple[zmq.Socket[Any], zmq.Socket[Any], zmq.Socket[Any]]:
        for _ in range(100):  # with port 0, retry until ports + 1 and + 2 are free too
            router = ctx.socket(zmq.ROUTER)
            router.setsockopt(zmq.LINGER, 200)
            # ZeroMQ closes a connection that sends a frame over MAXMSGSIZE; up to there the
            # decoder answers too_large and the connection stays (docs/protocol.md §10).
            router.setsockopt(zmq.MAXMSGSIZE, ROUTER_MAX_FRAME)
            router.setsockopt(zmq.ROUTER_MANDATORY, 0)  # unroutable replies are dropped
            router.setsockopt(zmq.SNDHWM, ROUTER_SNDHWM)
            router.setsockopt(zmq.RCVHWM, ROUTER_RCVHWM)
            pub = publisher_socket(ctx)
            if self.keys is not None and not self.insecure:
                for sock in (router, pub):
                    make_server(sock, self.keys.curve_public, self.keys.curve_secret)
            key_sock = key_port_socket(ctx)  # plain: it only tells the public keys
            try:
                if self.port == 0:
                    port = router.bind_to_random_port(f"tcp://{self.bind}", min_port=20000,
                                                      max_port=60000)
                else:
                    port = self.port
                    router.bind(f"tcp://{self.bind}:{port}")
                pub.bind(f"tcp://{self.bind}:{port + 1}")
                key_sock.bind(f"tcp://{self.bind}:{port + KEY_PORT_OFFSET}")
                self._router_monitor = router.get_monitor_socket(_WATCHED)
            except zmq.ZMQError:
                for sock in (router, pub, key_sock):
                    sock.close(linger=0)
                if self.port != 0:
                    raise
                continue
            self.port, self.pub_port = port, port + 1
            return router, pub, key_sock
        raise zmq.ZMQError(msg="no free ports found")

    def start(self) -> None:
        """Bind, then serve in a background thread."""
        self.open()
        self._thread = threading.Thread(target=self._serve, name="mundus-host", daemon=True)
        self._thread.start()

    def run(self) -> None:
        """Bind and serve in this thread until the game is over (and the linger is past) or
        :meth:`stop` is called."""
        self.open()
        self._serve()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the host to finish; True if it did. Its thread is waited for too: its
        sockets' last words (a stop's ``stopping`` update) leave before this returns, and
        a program that exits next does not cut them off."""
        if not self.finished.wait(timeout):
            return False
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(CLOSE_WAIT_S)
        return True

    def call(self, fn: Callable[[Table], T], timeout: float = 5.0) -> T:
        """Run ``fn(table)`` in the host's thread (the table is not thread-safe) and return
        its result."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._calls_lock:
            if self.finished.is_set():
                raise RuntimeError("the host has stopped")
            self._calls.append((fn, future))
        return future.result(timeout)

    # -- the loop -----------------------------------------------------------------------------

    def _serve(self) -> None:
        router, monitor = self._router, self._router_monitor
        assert router is not None and monitor is not None
        poller = zmq.Poller()
        poller.register(router, zmq.POLLIN)
        poller.register(monitor, zmq.POLLIN)
        heartbeat_s = self.table.heartbeat_ms / 1000
        next_heartbeat = time.monotonic()
        ended_at: float | None = None
        try:
            while not self._stop.is_set():
                more = self._guarded(lambda: self.table.advance(self.bot_budget), False)
                self._guarded(self._flush, None)
                now = time.monotonic()
                if now >= next_heartbeat:
                    self._guarded(self._heartbeat, None)
                    self.limiter.prune(now)
                    self._guarded(partial(self._sweep, now), None)
                    next_heartbeat = now + heartbeat_s
                self._run_calls()
                if self.table.over:
                    # Linger so that clients can fetch the end, and say how long (§9);
                    # nobody to wait for: go.
                    if ended_at is None:
                        ended_at = now
                        self._guarded(partial(self.table.output.announce_closing,
                                              self.linger_after_end), None)
                    if now - ended_at >= self.linger_after_end or not self.table.connections():
                        break
                wait = 0.0 if more else min(IDLE_POLL_S, max(0.0, next_heartbeat - now))
                ready = dict(poller.poll(int(wait * 1000)))
                if monitor in ready:
                    self._guarded(self._connection_events, None)
                # Always read before the next turn applies any deadline: an answer that came
                # in time is never timed out because the loop was busy.
                self._read(router)
        except LogFailure as exc:  # the disk is full, say: the caller says so
            self.error = exc
        except BaseException as exc:  # only a bug here; keep it for the caller to see
            self.error = exc
            self._internal("(the host stops)")
        finally:
            if isinstance(self.error, LogFailure):
                self._tell_log_failure(self.error)
            else:
                self._guarded(self._flush, None)
            self._close()
            self.finished.set()

    def _guarded(self, fn: Callable[[], T], fallback: T) -> T:
        """Run one piece of the loop; a bug is logged, not fatal."""
        try:
            return fn()
        except Exception:
            self._internal("(the host goes on)")
            return fallback

    def _internal(self, what: str) -> None:
        """Say in one line on the console that something failed with the exception being
        handled; its traceback goes to ``error_file`` (to the console when there is none,
        or it cannot be written)."""
        exc = sys.exc_info()[1]
        line = f"host: internal error {what}: {type(exc).__name__}: {exc}"
        details = traceback.format_exc()
        if self.error_file is not None:
            try:
                fd = os.open(self.error_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                with os.fdopen(fd, "a", encoding="utf-8") as out:
                    out.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n{details}\n")
                self.log(f"{line} (its traceback is in {self.error_file})")
                return
            except OSError:  # a full disk, say: the console has it all
                pass
        self.log(f"{line}\n{details}")

    def _tell_log_failure(self, failure: LogFailure) -> None:
        """Tell everyone the host stops because its game log cannot be written: an update
        with a ``stopping`` event and nothing else, following the last one sent (what the
        table made since is not in the log: none of it leaves)."""
        publisher = self._publisher
        if publisher is None:
            return
        full = "full" in str(failure).lower() or "space" in str(failure).lower()
        reason = "its disk is full" if full else "it cannot write its game log"
        self._published_seq += 1
        publisher.send(encode({"t": "update", "seq": self._published_seq, "changed": {},
                               "events": [{"kind": "stopping", "reason": reason}]}))

    def _read(self, router: zmq.Socket[Any]) -> None:
        # Everything that is ready, without blocking. EVENTS once: cheaper than a recv raising
        # Again at the end of every idle turn; per message, a recv of each frame is cheaper
        # than EVENTS and recv_multipart (each a getsockopt through pyzmq's enums): a flood
        # of small messages costs the game's thread less (issue 38).
        try:
            if not int(router.getsockopt(_EVENTS)) & _POLLIN:
                return
        except zmq.ZMQError as exc:
            self.log(f"host: receive failed: {exc}")
            return
        for _ in range(READ_BUDGET):
            try:
                parts = [router.recv(_NOBLOCK, copy=False)]
                while parts[-1].more:  # the rest of a message is there with its first frame
                    parts.append(router.recv(_NOBLOCK, copy=False))
            except zmq.Again:
                return
            except zmq.ZMQError as exc:
                self.log(f"host: receive failed: {exc}")
                return
            frames = [part.bytes for part in parts]
            if len(parts) > 1:  # the connection it came from: it is in use (host/guard.py)
                fd = int(parts[1].get(_SRCFD))
                if self._fd_of.get(frames[0]) != fd and fd >= 0:
                    self._fd_of[frames[0]] = fd
                    self.connections.heard(fd, frames[0], time.monotonic())
            try:
                self._message(frames)
            except Exception:  # never let one message stop the host
                self._internal("handling a message")
                if frames:
                    self._reply(frames[0], {"t": "error", "code": "internal", "rule": None,
                                            "message": "the host failed to handle this message"})

    def _message(self, frames: list[bytes]) -> None:
        identity = frames[0]
        now = self.clock()
        if not self.limiter.allow(identity, now):
            if self.limiter.warn(identity, now):
                self._reply(identity, error_message(ProtocolError(
                    "flood", f"more than {self.limiter.rate:g} messages a second; "
                                    "further messages are dropped for a second")))
            return
        if len(frames) != 2:
            self._reply(identity, error_message(ProtocolError(
                "malformed", f"a message is one frame, not {len(frames) - 1}")))
            return
        payload = frames[1]
        try:
            message = decode_client(payload)
        except ProtocolError as err:
            if not self._stranger_may(identity, now):
                return
            reply = error_message(err)
            rid = request_id(payload)
            if rid is not None:
                reply["id"] = rid
            self._reply(identity, reply)
            return
        if message["t"] != "hello" and not self._stranger_may(identity, now):
            return
        if message["t"] == "snapshot":
            # The policy is the table's (socket-free); the socket tells what it knows.
            refused = self.table.snapshot_refusal(message, self._unread(identity), now)
            if refused is not None:
                self._reply(identity, refused)
                return
        later = None
        try:
            source = self._source(identity) if message["t"] == "hello" else None
            reply, later = self.table.answer(identity, message, source)
        except Exception:
            self._internal(f"on a {message['t']!r} message")
            reply = {"t": "error", "code": "internal", "rule": None,
                     "message": "the host failed to handle this message"}
            if "id" in message:
                reply["id"] = message["id"]
        # The reply first: when the table could answer before changing anything (an answer
        # from the legal list), the change is made now, before anything else happens.
        self._reply(identity, reply)
        if later is not None:
            if _YIELD is not None:
                _YIELD()
            try:
                later()
            except Exception:  # already answered ok: log it; the host goes on
                self._internal(f"applying a {message['t']!r} message")

    def _stranger_may(self, identity: bytes, now: float) -> bool:
        """Whether a message from ``identity`` is answered: always when its connection has
        said hello (it is the table's), else within the budget all such connections share
        (STRANGER_RATE a second); beyond it the message is dropped unanswered."""
        if self.table.knows(identity) or self.strangers.take(now):
            return True
        self.strangers_dropped += 1
        return False

    def _reply(self, identity: bytes, message: Message) -> None:
        if message.get("t") == "snapshot":  # its history and state packed once per state
            self._send_to(identity, encode_sharing(message, self._packed))
            return
        self._send_to(identity, encode(message))

    # -- connections (host/guard.py) ----------------------------------------------------------

    def _connection_events(self) -> None:
        """The ROUTER's connections opened and closed (host/guard.py), for at most
        EVENTS_TURN_S of the game's thread a turn: a flood of connections beyond the cap
        (the host closes them, the peer's ZeroMQ opens them again) leaves the players'
        messages read in between (issue 38: 1,000 events at once held a turn 230 ms)."""
        monitor = self._router_monitor
        assert monitor is not None
        now = time.monotonic()
        until = now + EVENTS_TURN_S
        joined = set(self.table.connections())
        for n in range(1000):
            if n % 16 == 15 and time.monotonic() > until:
                return  # the rest next turn: the loop comes back at once
            try:
                frames = monitor.recv_multipart(_NOBLOCK)
            except zmq.Again:
                return
            event = parse_monitor_message(frames)
            fd = int(event["value"])
            if event["event"] == zmq.EVENT_ACCEPTED:
                for peer in self.connections.accepted(fd, now, peer_address(fd),
                                                      joined.__contains__):
                    self._cut(peer.fd, peer)
            else:
                self.connections.gone(fd)

    def _source(self, identity: bytes) -> str | None:
        """The address of the peer that sent as ``identity`` (invite guesses are counted per
        source, host/guard.py), None when not known."""
        fd = self._fd_of.get(identity)
        if fd is None:
            return None
        peer = self.connections.peers.get(fd)
        address = peer.address if peer is not None and peer.address is not None \
            else peer_address(fd)
        return None if address is None else address[0]

    def _unread(self, identity: bytes) -> bool:
        """Whether the peer has left more than UNREAD_LIMIT bytes unread on its connection:
        it gets no snapshot until it reads (each holds the whole history, and what is sent
        to a peer that does not read piles up in the host)."""
        fd = self._fd_of.get(identity)
        unsent = None if fd is None else unsent_bytes(fd)
        return unsent is not None and unsent > UNREAD_LIMIT

    def _sweep(self, now: float) -> None:
        """Close the connections that have not joined the table (said hello) in time, or
        that it has forgotten (silent spectators); forget the identities of closed ones."""
        joined = set(self.table.connections())
        for peer in self.connections.sweep(now, joined.__contains__):
            self._cut(peer.fd, peer)
        if len(self._fd_of) > 2 * self.connections.limit:
            live = {peer.fd for peer in self.connections.peers.values()}
            self._fd_of = {i: fd for i, fd in self._fd_of.items() if fd in live}

    def _cut(self, fd: int, peer: Any) -> None:
        # Most connections cut never sent a message (a flood of idle ones beyond the cap):
        # their descriptor has no identity to forget, and the map is not rebuilt for them.
        if cut(peer) and fd in self._fd_of.values():
            self._fd_of = {i: f for i, f in self._fd_of.items() if f != fd}

    def _send_to(self, identity: bytes, payload: bytes) -> None:
        router = self._router
        assert router is not None
        # A peer that is gone or not reading loses the reply: replies are not retried.
        try:
            router.send(identity, _SNDMORE_NOBLOCK)
            router.send(payload, _NOBLOCK)
        except zmq.ZMQError:
            pass

    def _flush(self) -> None:
        publisher = self._publisher
        assert publisher is not None
        updates, privates = self.table.drain()
        if not updates and not privates:
            return
        # Encode everything, then send it in one burst: the private messages first, so that
        # the seat asked to decide next is woken before every subscriber is (docs/protocol.md
        # §6: a client waits for the update a private message names).
        packed = [encode(update) for update in updates]
        personal = [(conn, encode(message)) for conn, message in privates]
        for conn, payload in personal:
            self._send_to(conn, payload)
        for payload in packed:
            # A subscriber that lags behind catches up with a snapshot (§5).
            publisher.send(payload)
        if updates:
            self._published_seq = int(updates[-1]["seq"])
        if self.on_update is not None:
            for update in updates:
                self.on_update(update)

    def _heartbeat(self) -> None:
        publisher = self._publisher
        assert publisher is not None
        publisher.send(encode({"t": "heartbeat", "seq": self.table.seq}))
        ping = encode({"t": "ping"})
        for conn in self.table.connections():
            self._send_to(conn, ping)

    def _run_calls(self) -> None:
        if not self._calls:  # read without the lock: a call queued now runs next turn
            return
        with self._calls_lock:
            calls, self._calls = self._calls, []
        for fn, future in calls:
            try:
                future.set_result(fn(self.table))
            except Exception as exc:
                future.set_exception(exc)
        if calls:
            self.table.output.touch()  # the call may have changed the table: the next flush looks

    def _close(self) -> None:
        with self._calls_lock:
            calls, self._calls = self._calls, []
            self.finished.set()  # under the lock: no call can be queued after this
        for _, future in calls:
            future.set_exception(RuntimeError("the host has stopped"))
        if self._key_port is not None:
            self._key_port.stop()  # it closes its socket in its own thread
        if self._publisher is not None:
            self._publisher.stop()  # it publishes what it was given, then closes its socket
        if self._router is not None:
            with contextlib.suppress(zmq.ZMQError):
                self._router.disable_monitor()
        for sock in (self._router_monitor, self._router):
            if sock is not None:
                sock.close(linger=200 if sock is self._router else 0)
        if self._ctx is not None:
            self._ctx.term()
        self._router = self._router_monitor = None
        self._publisher = None
        self._ctx = None
