"""The client connection (client/connection.py) against a tiny scripted host on 127.0.0.1:
the Clone pattern (late join, gaps, lost last update), commit-reveal with a forged reveal,
reconnecting after host silence, and the thread and asyncio wrappers."""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from collections.abc import Callable
from typing import Any

import msgpack
import pytest
import zmq

from mundus_net.client.background import AsyncConnection, ConnectionThread
from mundus_net.client.connection import (
    Connection,
    HostError,
    Joined,
    Lost,
    Mismatch,
    Notice,
    OfferSecret,
    Pong,
    PublicEvents,
    Synced,
    _poller_for,
)
from mundus_net.engine.decisions import Offer
from mundus_net.engine.deck import default_deck
from mundus_net.protocol import commitment
from mundus_net.protocol.messages import PROTOCOL_VERSION, decode_client, encode

TOKEN = "ab" * 16
GAME = "g-test"
WAIT = 5.0  # every wait in these tests ends by then


def wire_deck() -> list[dict[str, Any]]:
    return [{"id": c.id, "name": c.name, "kind": c.kind, "players": c.players, "icon": c.icon,
             "income": c.income, "caravel": c.caravel, "merchant_class": c.merchant_class,
             "capacity": c.capacity, "power": c.power} for c in default_deck().cards]


class FakeHost:
    """A scripted host: ROUTER + PUB on free 127.0.0.1 ports, run in a thread. The test acts
    on it through :meth:`do` (its sockets belong to its thread)."""

    def __init__(self, heartbeat_ms: int = 50) -> None:
        ctx = zmq.Context.instance()
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
        self.on_snapshot: Callable[[], None] | None = None  # runs before a snapshot reply
        self.on_message: Callable[[dict[str, Any]], None] | None = None
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
            return
        self.client = identity
        if t == "snapshot":
            if self.on_snapshot is not None:
                self.on_snapshot()
            self.send({"t": "snapshot", "seq": self.seq, "state": self.state,
                       "events": self.events, "private": self.private, "id": m["id"]})
        elif t == "ping":
            self.send({"t": "pong", "id": m["id"]})
        else:
            self.send({"t": "ok", "id": m["id"]})
            if self.on_message is not None:
                self.on_message(m)

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


def test_late_join_gap_and_lost_last_update_miss_and_repeat_nothing(host: FakeHost) -> None:
    host.do(lambda: [host.publish([ev(i)]) for i in (1, 2, 3)])
    conn = Connection(host.address, "ana", insecure=True)
    notices: list[Notice] = []
    try:
        conn.connect(WAIT)  # a late join starts from a snapshot
        notices.extend(conn.poll(0))
        assert conn.seq == 3 and conn.synced
        # Update 5 is lost; 6 shows the gap. The host publishes 7 between taking the
        # snapshot (seq 6) and answering, so the client holds 6 and 7 in its buffer: 6 must be
        # dropped (the snapshot has it) and 7 applied after the snapshot.
        host.do(lambda: host.publish([ev(4)]))
        poll_until(conn, lambda: conn.seq == 4, notices)
        asked_before = sum(m["t"] == "snapshot" for m in host.received)

        def late_snapshot() -> None:
            host.on_snapshot = None
            snap = (host.seq, list(host.events))
            host.publish([ev(7)])
            time.sleep(0.05)  # let update 7 reach the client's buffer first
            host.seq, host.events = snap[0], snap[1]
            host.send({"t": "snapshot", "seq": snap[0], "state": host.state,
                       "events": snap[1], "private": host.private})
            host.seq, host.events = 7, [*snap[1], ev(7)]

        host.on_snapshot = late_snapshot
        host.do(lambda: (host.publish([ev(5)], drop=True), host.publish([ev(6)])))
        poll_until(conn, lambda: conn.seq == 7, notices)
        assert sum(m["t"] == "snapshot" for m in host.received) > asked_before
        # The last update of a burst is lost: the heartbeat's seq shows it.
        host.do(lambda: host.publish([ev(8), ev(9)], drop=True))
        poll_until(conn, lambda: conn.seq == 8, notices)
        assert delivered(notices) == [ev(i) for i in range(1, 10)]
        assert conn.events == host.events
        assert any(isinstance(n, Synced) for n in notices)
    finally:
        conn.close()


def subscribed(conn: Connection, notices: list[Notice]) -> list[int]:
    """Poll until the connection's SUB socket has received a heartbeat: its subscription has
    reached the host's PUB, so nothing published from now on is lost on the way (ZeroMQ's
    slow joiner). Returns the seqs of the heartbeats it receives from now on."""
    beats: list[int] = []

    def tap(source: str, message: dict[str, Any]) -> None:
        if source == "sub" and message["t"] == "heartbeat":
            beats.append(int(message["seq"]))

    conn.tap = tap
    poll_until(conn, lambda: bool(beats), notices)
    return beats


def settled(conn: Connection, notices: list[Notice]) -> None:
    """Poll until a ping comes back: the host has handled everything sent before it."""
    request = conn.ping()
    poll_until(conn, lambda: any(isinstance(n, Pong) and n.id == request for n in notices),
               notices)


def test_updates_in_order_apply_without_snapshots(host: FakeHost) -> None:
    conn = Connection(host.address, "ana", insecure=True)
    notices: list[Notice] = []
    try:
        conn.connect(WAIT)
        beats = subscribed(conn, notices)
        asked = sum(m["t"] == "snapshot" for m in host.received)
        host.do(lambda: [host.publish([ev(i)]) for i in range(1, 51)])
        poll_until(conn, lambda: conn.seq == 50, notices)
        assert delivered(notices) == [ev(i) for i in range(1, 51)]
        # A heartbeat after the updates (it would show a lost one), then a ping round trip:
        # any snapshot the client asked for by then has reached the host.
        poll_until(conn, lambda: bool(beats) and beats[-1] == 50, notices)
        settled(conn, notices)
        assert sum(m["t"] == "snapshot" for m in host.received) == asked
        assert conn.state == host.state
        assert conn.welcome is not None and conn.deck is default_deck()
    finally:
        conn.close()


def _offer_step(host: FakeHost, conn: Connection, forge: Callable[[dict[str, Any]], None],
                ) -> dict[str, Any]:
    """Seat 0 (the client) commits and reveals; seats 1 and 2 are played by the host, which
    publishes what ``forge`` makes of the honest reveals."""
    got: dict[str, Any] = {}
    others = {1: ((3, 4), commitment.new_nonce()), 2: ((5, 5), commitment.new_nonce())}

    def on_message(m: dict[str, Any]) -> None:
        got[m["t"]] = m
        if m["t"] == "commit":
            hashes = {"0": m["commitment"]}
            for seat, (offer, nonce) in others.items():
                hashes[str(seat)] = commitment.commit(GAME, 1, seat, offer, nonce)
            got["hashes"] = hashes
            host.publish([{"kind": "committed", "seat": 0},
                          {"kind": "commitments", "round": 1, "commitments": hashes}])
            host.private = {**host.private, "pending": {
                "id": 8, "kind": "reveal", "detail": {"round": 1}, "legal": [],
                "deadline_ms": None}}
            host.send({"t": "private", "seq": host.seq, **host.private, "events": []})
        elif m["t"] == "reveal":
            reveals = {"0": {"offer": m["offer"], "nonce": m["nonce"]}}
            for seat, (offer, nonce) in others.items():
                reveals[str(seat)] = {"offer": list(offer), "nonce": nonce}
            engine = {"0": m["offer"], "1": [3, 4], "2": [5, 5], "3": []}
            forged = {"reveals": reveals, "engine": engine}
            forge(forged)
            host.private = {**host.private, "pending": None}
            host.publish([{"kind": "reveal", "offers": forged["engine"], "scores": [0] * 4},
                          {"kind": "reveals", "round": 1, "reveals": forged["reveals"]}])

    def start() -> None:
        host.on_message = on_message
        host.state = {**host.state, "phase": "offer"}
        host.publish([{"kind": "announce", "n": 2}])
        host.private = {**host.private, "pending": {
            "id": 7, "kind": "commit", "detail": {"n": 2, "least": 2, "most": 2, "round": 1},
            "legal": [{"kind": "offer", "cards": [1, 2]}, {"kind": "offer", "cards": [1, 3]}],
            "deadline_ms": None}}
        host.send({"t": "private", "seq": host.seq, **host.private, "events": []})

    host.do(start)
    poll_until(conn, lambda: conn.ready is not None)
    pending = conn.ready
    assert pending is not None and pending.kind == "commit" and pending.phase == "offer"
    assert Offer((1, 2)) in pending.legal
    view = conn.view()
    assert view.phase == "offer" and view.hand == (1, 2, 3) and view.seat == 0
    conn.decide(Offer((1, 2)))
    poll_until(conn, lambda: "reveal" in got and conn.seq >= 3)
    conn.poll(0.05)
    return got


def test_commit_reveal_catches_forged_reveals(host: FakeHost) -> None:
    seen: list[Mismatch] = []
    conn = Connection(host.address, "ana", insecure=True, on_mismatch=seen.append)
    try:
        conn.connect(WAIT)

        def forge(published: dict[str, Any]) -> None:
            published["reveals"]["1"]["offer"] = [3, 5]  # does not open seat 1's commitment
            published["engine"]["2"] = [5, 6]  # the host shows another offer than committed

        got = _offer_step(host, conn, forge)
        # The client's own reveal opens its commitment, as the host checks it.
        assert commitment.verify(got["commit"]["commitment"], GAME, 1, 0,
                                 got["reveal"]["offer"], got["reveal"]["nonce"])
        assert got["reveal"]["offer"] == [1, 2]
        poll_until(conn, lambda: len(conn.mismatches) >= 2)
        assert sorted(m.seat for m in conn.mismatches) == [1, 2]
        assert seen == conn.mismatches
        assert conn.secret is None  # the offer step is over
    finally:
        conn.close()


def test_honest_reveals_give_no_mismatch(host: FakeHost) -> None:
    conn = Connection(host.address, "ana", insecure=True)
    try:
        conn.connect(WAIT)
        _offer_step(host, conn, lambda published: None)
        poll_until(conn, lambda: conn.seq >= 3 and conn.secret is None)
        assert conn.mismatches == []
    finally:
        conn.close()


def test_restarted_client_recommits_its_saved_secret(host: FakeHost) -> None:
    nonce = commitment.new_nonce()
    saved = OfferSecret(1, (1, 3), nonce, commitment.commit(GAME, 1, 0, (1, 3), nonce))
    conn = Connection(host.address, "ana", insecure=True, token=TOKEN, secret=saved)
    got: list[dict[str, Any]] = []
    try:
        conn.connect(WAIT)

        def start() -> None:
            host.on_message = got.append
            host.private = {**host.private, "pending": {
                "id": 7, "kind": "commit", "detail": {"n": 2, "least": 2, "most": 2,
                                                      "round": 1},
                "legal": [{"kind": "offer", "cards": [1, 3]}], "deadline_ms": None}}
            host.send({"t": "private", "seq": host.seq, **host.private, "events": []})

        host.do(start)
        poll_until(conn, lambda: any(m["t"] == "commit" for m in got))
        assert got[0]["commitment"] == saved.commitment and conn.ready is None
        hello = next(m for m in host.received if m["t"] == "hello")
        assert hello["token"] == TOKEN
    finally:
        conn.close()


def test_host_silence_reconnects_with_the_token(host: FakeHost) -> None:
    conn = Connection(host.address, "ana", insecure=True)
    notices: list[Notice] = []
    try:
        conn.connect(WAIT)
        assert conn.token == TOKEN
        host.do(lambda: [host.publish([ev(i)]) for i in (1, 2)])
        poll_until(conn, lambda: conn.seq == 2, notices)
        host.silent = True
        poll_until(conn, lambda: any(isinstance(n, Lost) for n in notices), notices)
        host.do(lambda: host.publish([ev(3)]))  # published while the client is away
        host.silent = False
        poll_until(conn, lambda: conn.connected and conn.synced and conn.seq == 3, notices)
        hellos = [m for m in host.received if m["t"] == "hello"]
        assert hellos[-1].get("token") == TOKEN
        assert any(isinstance(n, Joined) and n.resumed for n in notices)
        assert delivered(notices) == [ev(1), ev(2), ev(3)]
        notices.extend(conn.poll(0.2))  # a few heartbeats
        assert any(m["t"] == "ping" and m["token"] == TOKEN for m in host.received)
    finally:
        conn.close()
    assert any(m["t"] == "bye" for m in host.received)


def test_refused_hello_raises(host: FakeHost) -> None:
    host.full = True
    conn = Connection(host.address, "ana", insecure=True)
    with pytest.raises(HostError) as info:
        conn.connect(WAIT)
    assert info.value.code == "table_full"
    assert conn.closed


def test_thread_and_asyncio_wrappers(host: FakeHost) -> None:
    runner = ConnectionThread(Connection(host.address, "ana", insecure=True))
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
        assert runner.submit(lambda c: c.seq).result(WAIT) == 1
        assert runner.chat("hola").result(WAIT) > 0
    finally:
        runner.stop()

    async def session() -> list[str]:
        conn = AsyncConnection(Connection(host.address, "bea", insecure=True))
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


def test_messages_are_valid_protocol() -> None:
    """What the client sends passes the host's own validation (decode_client)."""
    frames: list[bytes] = []
    ctx = zmq.Context.instance()
    router = ctx.socket(zmq.ROUTER)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    conn = Connection(f"tcp://127.0.0.1:{port}", "ana", token=TOKEN, bot=True,
                      insecure=True)
    try:
        with pytest.raises(Exception):  # noqa: B017 - nobody answers: a timeout
            conn.connect(0.2)
        while router.poll(100):
            frames.append(router.recv_multipart()[1])
    finally:
        conn.close(bye=False)
        router.close(linger=0)
    hello = decode_client(frames[0])
    assert hello == {"t": "hello", "name": "ana", "role": "player", "token": TOKEN, "bot": True,
                     "contribute": True, "id": hello["id"]}
    assert msgpack.unpackb(frames[0])["v"] == PROTOCOL_VERSION


def test_dropped_and_rate_limited_answers_are_sent_again(host: FakeHost,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mundus_net.client.connection.RATE_HOLD_S", 0.2)
    conn = Connection(host.address, "ana", insecure=True)
    decides: list[dict[str, Any]] = []
    try:
        conn.connect(WAIT)
        base = host._handle

        def handle(identity: bytes, m: dict[str, Any]) -> None:
            if m["t"] != "decide":
                base(identity, m)
                return
            decides.append(m)
            host.received.append(m)
            if len(decides) == 2:  # the second is refused for the rate, naming no request
                host.send({"t": "error", "code": "rate_limited", "message": "slow down",
                           "rule": None})
            elif len(decides) == 3:
                host.send({"t": "ok", "id": m["id"]})
            # the first gets no reply at all: dropped on the way

        def start() -> None:
            host._handle = handle  # type: ignore[method-assign]
            host.private = {**host.private, "pending": {
                "id": 4, "kind": "announce", "detail": {},
                "legal": [{"kind": "announce", "n": n} for n in (2, 3, 4)],
                "deadline_ms": None}}
            host.send({"t": "private", "seq": host.seq, **host.private, "events": []})

        host.do(start)
        for expected in (1, 2, 3):
            poll_until(conn, lambda: conn.ready is not None)
            assert len(decides) == expected - 1
            ready = conn.ready
            assert ready is not None and ready.id == 4
            conn.decide(ready.legal[1])
            poll_until(conn, lambda expected=expected: len(decides) == expected)  # type: ignore[misc]
        conn.poll(0.3)
        assert conn.ready is None  # accepted: answered for good
        assert [m["pending"] for m in decides] == [4, 4, 4]
        assert all(m["decision"] == {"kind": "announce", "n": 3} for m in decides)
    finally:
        conn.close()


class _Sockets:
    """What _poller_for reads of a connection."""

    def __init__(self, *sockets: zmq.Socket[Any]) -> None:
        self.sockets = list(sockets)

    def _sockets(self) -> list[zmq.Socket[Any]]:
        return self.sockets


def test_poll_all_keeps_its_poller_until_a_connection_replaces_a_socket() -> None:
    ctx: zmq.Context[Any] = zmq.Context.instance()
    made = [ctx.socket(zmq.DEALER) for _ in range(3)]
    try:
        one, two = _Sockets(made[0]), _Sockets(made[1])
        poller = _poller_for([one, two])  # type: ignore[list-item]
        assert _poller_for([one, two]) is poller  # type: ignore[list-item]
        two.sockets = [made[2]]  # a reconnect: fresh sockets
        fresh = _poller_for([one, two])  # type: ignore[list-item]
        assert fresh is not poller
        assert [sock for sock, _ in fresh.sockets] == [made[0], made[2]]
    finally:
        for sock in made:
            sock.close(linger=0)
