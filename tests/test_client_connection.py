"""The client's ZeroMQ shell (client/connection.py) against a tiny scripted host on 127.0.0.1:
what only real sockets show. A late join, gaps and a lost last update end with the host's
state; host silence ends in fresh sockets and the seat back; the connection keeps time by its
injected clock; a refused hello raises; the thread and asyncio wrappers; poll_all's poller.

Every protocol decision (ordering, retries, grace periods, commit-reveal and fair-deal checks)
is the core's, tested on a fake clock against the real host table in
tests/test_client_core.py. These tests assert outcomes, never how often something happened,
and every wait ends by WAIT."""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from collections.abc import Callable, Collection
from typing import Any

import pytest
import zmq

from mundus_net.client.background import AsyncConnection, ConnectionThread
from mundus_net.client.connection import Connection, HostError, poller_for
from mundus_net.client.core import ClientSettings
from mundus_net.client.notices import Joined, Lost, Notice, PublicEvents
from mundus_net.engine.deck import default_deck
from mundus_net.protocol.messages import decode_client, encode

TOKEN = "ab" * 16
GAME = "g-test"
WAIT = 60.0  # every wait in these tests ends by then (generous: a loaded machine is no failure)


def wire_deck() -> list[dict[str, Any]]:
    return [{"id": c.id, "name": c.name, "kind": c.kind, "players": c.players, "icon": c.icon,
             "income": c.income, "caravel": c.caravel, "merchant_class": c.merchant_class,
             "capacity": c.capacity, "power": c.power} for c in default_deck().cards]


class FakeHost:
    """A scripted host: ROUTER + PUB on free 127.0.0.1 ports, run in a thread. The test acts
    on it through :meth:`do` (its sockets belong to its thread)."""

    def __init__(self, heartbeat_ms: int = 50) -> None:
        ctx: zmq.Context[Any] = zmq.Context.instance()
        self.router = ctx.socket(zmq.ROUTER)
        self.router.setsockopt(zmq.LINGER, 0)
        self.port = self.router.bind_to_random_port("tcp://127.0.0.1")
        self.pub = ctx.socket(zmq.PUB)
        self.pub.setsockopt(zmq.LINGER, 0)
        self.pub_port = self.pub.bind_to_random_port("tcp://127.0.0.1")
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.heartbeat_s = heartbeat_ms / 1000
        self.heartbeat_ms = heartbeat_ms
        self.seq = 0
        self.events: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {"round": 1, "phase": "announce", "result": None}
        self.private: dict[str, Any] = {"seat": 0, "hand": [1, 2, 3], "stored": [],
                                        "my_offer": None, "pending": None}
        self.received: list[dict[str, Any]] = []
        self.client: bytes | None = None
        self.silent = False  # ignore everything and send nothing (a host gone quiet)
        self.full = False
        self.taken_at_once = False  # another client takes the seat over right after welcome
        self._calls: collections.deque[Callable[[], None]] = collections.deque()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    # -- run in the host thread ------------------------------------------------------------

    def _run(self) -> None:
        next_beat = time.monotonic()
        while not self._stop.is_set():
            while self._calls:
                self._calls.popleft()()
            if self.router.poll(5):
                identity, frame = self.router.recv_multipart()
                if not self.silent:
                    self._handle(identity, decode_client(frame))
            now = time.monotonic()
            if now >= next_beat and not self.silent:
                next_beat = now + self.heartbeat_s
                self.pub.send(encode({"t": "heartbeat", "seq": self.seq}))
                if self.client is not None:
                    self.send({"t": "ping"})
        self.router.close()
        self.pub.close()

    def send(self, message: dict[str, Any]) -> None:
        assert self.client is not None
        self.router.send_multipart([self.client, encode(message)])

    def _handle(self, identity: bytes, m: dict[str, Any]) -> None:
        self.received.append(m)
        t = m["t"]
        if t == "hello":
            if self.full:
                self.router.send_multipart([identity, encode(
                    {"t": "error", "code": "table_full", "message": "no free seat",
                     "rule": None, "id": m["id"]})])
                return
            self.client = identity
            self.send({"t": "welcome", "seat": 0, "token": TOKEN, "game": GAME, "name": "t",
                       "players": 4, "names": ["a", "", "", ""],
                       "options": {"promo": False}, "deck": wire_deck(),
                       "pub_port": self.pub_port, "heartbeat_ms": self.heartbeat_ms})
            if self.taken_at_once:
                self.send({"t": "taken_over", "seat": 0,
                           "message": "another client took seat 0 (a) over with its token"})
            return
        self.client = identity
        if t == "snapshot":
            self.send({"t": "snapshot", "seq": self.seq, "state": self.state,
                       "events": self.events, "private": self.private, "id": m["id"]})
        elif t == "ping":
            self.send({"t": "pong", "id": m["id"]})
        else:
            self.send({"t": "ok", "id": m["id"]})

    def publish_each(self, *numbers: int, lost: Collection[int] = ()) -> None:
        """One update per number, each with one event (:func:`ev`); those in ``lost`` are
        lost on the way."""
        for n in numbers:
            self.publish([ev(n)], drop=n in lost)

    def publish(self, events: list[dict[str, Any]], drop: bool = False) -> None:
        """One update; ``drop`` loses it on the way (the client never sees it)."""
        self.seq += 1
        self.events.extend(events)
        if not drop:
            # §5: the changed state keys; this host does not keep track, so it sends them all
            self.pub.send(encode({"t": "update", "seq": self.seq, "events": events,
                                  "changed": self.state}))

    # -- called from the test ---------------------------------------------------------------

    def do(self, fn: Callable[[], None]) -> None:
        done = threading.Event()

        def call() -> None:
            fn()
            done.set()

        self._calls.append(call)
        assert done.wait(WAIT)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(WAIT)


@pytest.fixture
def host() -> Any:
    h = FakeHost()
    yield h
    h.close()


def poll_until(conn: Connection, done: Callable[[], bool],
               into: list[Notice] | None = None) -> None:
    deadline = time.monotonic() + WAIT
    while not done():
        assert time.monotonic() < deadline, "timed out"
        notices = conn.poll(0.05)
        if into is not None:
            into.extend(notices)


def delivered(notices: list[Notice]) -> list[dict[str, Any]]:
    return [e for n in notices if isinstance(n, PublicEvents) for e in n.events]


def ev(n: int) -> dict[str, Any]:
    return {"kind": "test", "n": n}


@pytest.mark.network
def test_a_late_join_gaps_and_a_lost_last_update_end_with_the_hosts_state(
        host: FakeHost) -> None:
    host.do(lambda: host.publish_each(1, 2, 3))
    conn = Connection(host.address, ClientSettings("ana"), insecure=True)
    notices: list[Notice] = []
    try:
        conn.connect(WAIT)  # a late join starts from a snapshot
        notices.extend(conn.poll(0))
        assert conn.core.seq == 3 and conn.core.synced
        host.do(lambda: host.publish_each(4))
        poll_until(conn, lambda: conn.core.seq == 4, notices)
        # Update 5 is lost on the way: 6 shows the gap.
        host.do(lambda: host.publish_each(5, 6, lost={5}))
        poll_until(conn, lambda: conn.core.seq == 6, notices)
        # The last update of a burst is lost: the heartbeat's seq shows it.
        host.do(lambda: host.publish([ev(7), ev(8)], drop=True))
        poll_until(conn, lambda: conn.core.seq == 7, notices)
        assert delivered(notices) == [ev(i) for i in range(1, 9)]  # each once, in order
        assert conn.core.events == host.events and conn.core.state == host.state
        assert conn.core.private["hand"] == host.private["hand"]
    finally:
        conn.close()


@pytest.mark.network
def test_host_silence_reconnects_with_the_token(host: FakeHost) -> None:
    conn = Connection(host.address, ClientSettings("ana"), insecure=True)
    notices: list[Notice] = []
    try:
        conn.connect(WAIT)
        assert conn.core.token == TOKEN
        host.do(lambda: host.publish_each(1, 2))
        poll_until(conn, lambda: conn.core.seq == 2, notices)
        host.silent = True
        poll_until(conn, lambda: any(isinstance(n, Lost) for n in notices), notices)
        host.do(lambda: host.publish_each(3))  # published while the client is away
        host.silent = False
        core = conn.core
        poll_until(conn, lambda: core.connected and core.synced and core.seq == 3, notices)
        hellos = [m for m in host.received if m["t"] == "hello"]
        assert hellos[-1].get("token") == TOKEN
        assert any(isinstance(n, Joined) and n.resumed for n in notices)
        assert delivered(notices) == [ev(1), ev(2), ev(3)]
        # Back to heartbeats: the pings carry the seat token.
        poll_until(conn, lambda: any(m["t"] == "ping" and m.get("token") == TOKEN
                                     for m in list(host.received)), notices)
    finally:
        conn.close()
    assert any(m["t"] == "bye" for m in host.received)


@pytest.mark.network
def test_the_connection_keeps_time_by_its_injected_clock(host: FakeHost) -> None:
    """The clock jumps ten seconds (200 of the host's heartbeats): as far as the connection
    can tell, the host was silent, so it reconnects; the host itself never stopped."""
    offset = [0.0]

    def clock() -> float:
        return time.monotonic() + offset[0]

    conn = Connection(host.address, ClientSettings("ana"), insecure=True, clock=clock)
    notices: list[Notice] = []
    try:
        conn.connect(WAIT)
        offset[0] = 10.0
        poll_until(conn, lambda: any(isinstance(n, Joined) and n.resumed for n in notices),
                   notices)
        told = [n for n in notices if isinstance(n, Lost)
                or (isinstance(n, Joined) and n.resumed)]
        assert isinstance(told[0], Lost) and isinstance(told[-1], Joined)
        hellos = [m for m in host.received if m["t"] == "hello"]
        assert len(hellos) >= 2 and hellos[-1].get("token") == TOKEN
        assert conn.core.seat == 0
    finally:
        conn.close()


@pytest.mark.network
def test_refused_hello_raises(host: FakeHost) -> None:
    host.full = True
    conn = Connection(host.address, ClientSettings("ana"), insecure=True)
    with pytest.raises(HostError) as info:
        conn.connect(WAIT)
    assert info.value.code == "table_full"
    assert conn.core.closed


@pytest.mark.network
def test_a_seat_taken_over_while_joining_is_said_at_once_not_waited_for(host: FakeHost) -> None:
    """Issue 38, item 3: a --take-over client whose seat is taken again before it is synced
    says so and stops, instead of polling a closed link until its timeout ("no answer")."""
    host.taken_at_once = True
    conn = Connection(host.address, ClientSettings("ana", take_over=True), insecure=True)
    with pytest.raises(HostError) as info:
        conn.connect(WAIT)
    assert info.value.code == "taken_over" and "took seat 0" in info.value.message
    assert conn.core.closed


@pytest.mark.network
def test_thread_and_asyncio_wrappers(host: FakeHost) -> None:
    runner = ConnectionThread(Connection(host.address, ClientSettings("ana"), insecure=True))
    try:
        assert runner.start(WAIT).seat == 0
        host.do(lambda: host.publish([ev(1)]))
        deadline = time.monotonic() + WAIT
        while True:
            notice = runner.notices.get(timeout=WAIT)
            if isinstance(notice, PublicEvents):
                assert notice.events == (ev(1),)
                break
            assert time.monotonic() < deadline
        assert runner.submit(lambda c: c.core.seq).result(WAIT) == 1
        assert runner.chat("hola").result(WAIT) > 0
    finally:
        runner.stop()

    async def session() -> list[str]:
        conn = AsyncConnection(Connection(host.address, ClientSettings("bea"), insecure=True))
        welcome = await conn.connect(WAIT)
        assert welcome.token == TOKEN
        host.do(lambda: host.publish([ev(2)]))
        kinds: list[str] = []
        async for notice in conn.notices():
            kinds.append(type(notice).__name__)
            if isinstance(notice, PublicEvents):
                break
        await conn.chat("hola")
        assert (await conn.view()).seat == 0
        await conn.close()
        return kinds

    assert "PublicEvents" in asyncio.run(asyncio.wait_for(session(), WAIT))
    assert sum(m["t"] == "chat" for m in host.received) == 2


class _Sockets:
    """What poller_for reads of a connection."""

    def __init__(self, *sockets: zmq.Socket[Any]) -> None:
        self.sockets = list(sockets)

    def _sockets(self) -> list[zmq.Socket[Any]]:
        return self.sockets


@pytest.mark.network
def test_poll_all_keeps_its_poller_until_a_connection_replaces_a_socket() -> None:
    ctx: zmq.Context[Any] = zmq.Context.instance()
    made = [ctx.socket(zmq.DEALER) for _ in range(3)]
    try:
        one, two = _Sockets(made[0]), _Sockets(made[1])
        poller = poller_for([one, two])  # type: ignore[list-item]
        assert poller_for([one, two]) is poller  # type: ignore[list-item]
        two.sockets = [made[2]]  # a reconnect: fresh sockets
        fresh = poller_for([one, two])  # type: ignore[list-item]
        assert fresh is not poller
        assert [sock for sock, _ in fresh.sockets] == [made[0], made[2]]
    finally:
        for sock in made:
            sock.close(linger=0)
