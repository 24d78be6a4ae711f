"""The host under load and attack (docs/security.md, "Under load and attack").

One host (CURVE, 127.0.0.1, free ports) with six seats: four greedy host bots and two network
bots (client.bot.NetworkBot in threads), twenty spectators (light raw SUB + DEALER clients,
one thread), and a hostile client flooding it all game long: random bytes, truncated
msgpack, valid envelopes with mutated fields, wrong tokens, stale pending ids, oversized and
multi-frame messages, hellos from ever new connections, and garbage without the CURVE
handshake. The game must end exactly as the same game played in-process, every legitimate
answer must be accepted, every spectator must see the end, and the host's own structures
(connections, rate-limit buckets, published history) and the process's memory must stay
bounded. Every wait is bounded; the test takes about ten seconds.
"""

from __future__ import annotations

import random
import resource
import threading
import time
from collections import Counter
from typing import Any

import msgpack
import pytest
import zmq
from keyed_bot import KeyedBot

from mundus_net.bots import load_bot
from mundus_net.bots.base import Bot
from mundus_net.client.bot import NetworkBot
from mundus_net.client.connection import Connection
from mundus_net.client.core import ClientSettings
from mundus_net.client.notices import Accepted, Problem, Refused
from mundus_net.engine.game import Result
from mundus_net.host.server import Host
from mundus_net.host.table import (
    DEFAULT_BOT_SECONDS,
    MAX_SPECTATOR_NAMES,
    MAX_SPECTATORS,
    Table,
    TableSettings,
)
from mundus_net.protocol.codec import DECISION_KINDS
from mundus_net.protocol.messages import (
    CLIENT_MESSAGES,
    MAX_CLIENT_FRAME,
    PROTOCOL_VERSION,
    decode_host,
    encode,
)
from mundus_net.protocol.security import make_client

pytestmark = pytest.mark.network

WAIT = 120.0  # a deadline for every wait: generous, so a loaded machine is not a failure
ATTACK_MESSAGES = 2000  # the attack goes on at least this long, however fast the game ends
SEED = 9
HOST_BOTS = [("greedy", 100 + i) for i in range(4)]
NETWORK_BOTS = {4: 4, 5: 5}  # seat -> KeyedBot seed
SPECTATORS = 20


def new_table(bots: list[Bot] | None = None, bot_names: list[str] | None = None,
              bot_seconds: float = DEFAULT_BOT_SECONDS) -> Table:
    return Table(6, TableSettings(fixed_seed=True, game_id="10adf00d10adf00d", name="Load",
                                  bot_seconds=bot_seconds), seed=SEED,
                 bots=[load_bot(s, seed) for s, seed in HOST_BOTS] if bots is None else bots,
                 bot_names=[f"hb{i}" for i in range(4)] if bot_names is None else bot_names)


def in_process_result() -> Result:
    """The same game with the network bots' strategy played by the host itself."""
    table = new_table(bots=[*(load_bot(s, seed) for s, seed in HOST_BOTS),
                            *(KeyedBot(seed) for seed in NETWORK_BOTS.values())])
    for _ in range(100_000):
        if table.over:
            break
        table.advance()
    assert table.game.result is not None
    return table.game.result


# -- the legitimate clients ---------------------------------------------------------------------


class CountingBot(NetworkBot):
    """A network bot that counts the host's answers to its answers."""

    def __init__(self, conn: Connection, seed: int) -> None:
        self.lines: list[str] = []
        super().__init__(conn, KeyedBot(seed), log=self.lines.append)
        self.answers: Counter[str] = Counter()

    def handle_notice(self, notice: object) -> None:
        if isinstance(notice, Accepted):
            self.answers[f"ok {notice.request}"] += 1
        elif isinstance(notice, Refused):
            self.answers[f"refused {notice.request} {notice.code}"] += 1
        elif isinstance(notice, Problem):
            self.answers["problem"] += 1
        super().handle_notice(notice)


def run_bot(host: Host, seat: int, out: dict[int, Any]) -> None:
    conn = Connection(host.address, ClientSettings(f"net{seat}", bot=True),
                      server_key=host.public_key)
    try:
        conn.connect(WAIT)
        player = CountingBot(conn, NETWORK_BOTS[seat])
        out[seat] = player
        player.play(poll_s=0.2)
    finally:
        conn.close(bye=True)


class Spectators:
    """Twenty raw spectators: hello, then the Clone pattern (updates in order, a snapshot on
    a gap), and a ping every second, in one thread."""

    def __init__(self, ctx: zmq.Context[Any], host: Host, count: int) -> None:
        self.clients = []
        for _ in range(count):
            dealer, sub = ctx.socket(zmq.DEALER), ctx.socket(zmq.SUB)
            for sock in (dealer, sub):
                sock.setsockopt(zmq.LINGER, 0)
                assert host.public_key is not None
                make_client(sock, host.public_key)
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            dealer.connect(host.address)
            sub.connect(f"tcp://127.0.0.1:{host.pub_port}")
            self.clients.append({"dealer": dealer, "sub": sub, "seq": 0, "state": None,
                                 "synced": False, "updates": 0, "snapshots": 0})
        self.stop = threading.Event()

    def run(self) -> None:
        poller = zmq.Poller()
        owner: dict[Any, dict[str, Any]] = {}
        for i, c in enumerate(self.clients):
            c["dealer"].send(encode({"t": "hello", "name": f"watcher {i}", "role": "spectator"}))
            for sock in (c["dealer"], c["sub"]):
                poller.register(sock, zmq.POLLIN)
                owner[sock] = c
        last_ping = time.monotonic()
        while not self.stop.is_set():
            for sock, _ in poller.poll(100):
                c = owner[sock]
                while True:
                    try:
                        m = decode_host(sock.recv(zmq.NOBLOCK))
                    except zmq.Again:
                        break
                    self._message(c, m, sock is c["sub"])
            if time.monotonic() - last_ping > 1.0:
                last_ping = time.monotonic()
                for c in self.clients:
                    c["dealer"].send(encode({"t": "ping"}), zmq.NOBLOCK)

    def _message(self, c: dict[str, Any], m: dict[str, Any], public: bool) -> None:
        if public and m["t"] == "update":
            if c["synced"] and m["seq"] == c["seq"] + 1:
                c["seq"], c["state"] = m["seq"], {**c["state"], **m["changed"]}
                c["updates"] += 1
            elif not c["synced"] or m["seq"] > c["seq"] + 1:
                c["dealer"].send(encode({"t": "snapshot"}), zmq.NOBLOCK)
        elif not public and m["t"] == "welcome":
            c["dealer"].send(encode({"t": "snapshot"}), zmq.NOBLOCK)
        elif not public and m["t"] == "snapshot" and m["seq"] >= c["seq"]:
            c["seq"], c["state"], c["synced"] = m["seq"], m["state"], True
            c["snapshots"] += 1

    def results(self) -> list[Any]:
        return [None if c["state"] is None else c["state"]["result"] for c in self.clients]

    def close(self) -> None:
        for c in self.clients:
            c["dealer"].close(0)
            c["sub"].close(0)


# -- the attacker -------------------------------------------------------------------------------


class Attacker:
    """Floods the host from many connections with everything a client must not send."""

    def __init__(self, ctx: zmq.Context[Any], host: Host) -> None:
        self.ctx = ctx
        self.host = host
        self.rng = random.Random(1)
        self.stop = threading.Event()
        self.sent = 0
        self.replies: Counter[str] = Counter()
        self.identities = 0  # connections made (an oversized frame costs one more)
        self.oversized = 0
        self.flooder = self._socket()  # one connection far over the rate limit
        self.sockets = [self._socket() for _ in range(6)]
        plain = ctx.socket(zmq.DEALER)  # no CURVE handshake: refused before the host sees it
        plain.setsockopt(zmq.LINGER, 0)
        plain.connect(host.address)
        self.plain = plain

    def _socket(self) -> zmq.Socket[Any]:
        sock: zmq.Socket[Any] = self.ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.SNDHWM, 200)
        assert self.host.public_key is not None
        make_client(sock, self.host.public_key)
        sock.connect(self.host.address)
        self.identities += 1
        return sock

    def frame(self) -> list[bytes]:
        rng = self.rng
        kind = rng.randrange(9)
        if kind == 0:
            return [rng.randbytes(rng.randrange(1, 200))]
        if kind == 1:  # truncated msgpack of a valid message
            whole = encode({"t": "decide", "token": "a" * 32, "pending": 3,
                            "decision": {"kind": "announce", "n": 3}})
            return [whole[:rng.randrange(1, len(whole))]]
        if kind == 2:  # a valid envelope with mutated fields
            t = rng.choice([*CLIENT_MESSAGES, "nope"])
            message: dict[Any, Any] = {"v": PROTOCOL_VERSION, "t": t}
            for name in CLIENT_MESSAGES.get(t, {}):
                message[name] = rng.choice([None, -1, 2**40, "x" * 40, b"\x00" * 31, [1.5],
                                            {"k": []}, True, "f" * 32])
            if rng.random() < 0.3:
                message[rng.choice(["extra", 7, "id"])] = rng.choice([1, "2", None])
            return [msgpack.packb(message, use_bin_type=True)]
        if kind == 3:  # wrong tokens, any pending id, plausible answers
            token = "".join(rng.choice("0123456789abcdef") for _ in range(32))
            t = rng.choice(["decide", "commit", "reveal", "chat", "snapshot", "ping", "bye"])
            message = {"t": t, "token": token, "pending": rng.randrange(0, 5000),
                       "decision": {"kind": rng.choice(list(DECISION_KINDS)), "n": 3},
                       "commitment": rng.randbytes(32), "offer": [1, 2],
                       "nonce": rng.randbytes(32), "text": "hi"}
            keep = {"t", *CLIENT_MESSAGES[t]}
            return [encode({k: v for k, v in message.items() if k in keep})]
        if kind == 4:  # hello as a spectator (from this and from ever new connections)
            return [encode({"t": "hello", "name": f"eve{rng.randrange(10_000)}",
                            "role": "spectator"})]
        if kind == 5:  # hello as a player: the table is full
            return [encode({"t": "hello", "name": "mallory", "role": "player"})]
        if kind == 6 and rng.random() < 0.05:  # oversized: ZeroMQ drops it (and the peer)
            self.oversized += 1
            return [b"\x81" + bytes(MAX_CLIENT_FRAME + 10)]
        if kind == 7:  # several frames
            return [encode({"t": "ping"}), b"more"]
        return [encode({"t": rng.choice(["ping", "snapshot"]), "id": rng.randrange(2**31)})]

    def run(self) -> None:
        rng = self.rng
        while not self.stop.is_set():
            for _ in range(50):
                index = rng.randrange(len(self.sockets))
                if rng.random() < 0.005:  # a new connection: new identity, new bucket
                    self.sockets[index].close(0)
                    self.sockets[index] = self._socket()
                try:
                    self.sockets[index].send_multipart(self.frame(), zmq.NOBLOCK)
                    self.flooder.send(encode({"t": "ping"}), zmq.NOBLOCK)
                    self.sent += 2
                    if rng.random() < 0.05:
                        self.plain.send(rng.randbytes(64), zmq.NOBLOCK)
                except zmq.Again:
                    pass
            for sock in [self.flooder, *self.sockets]:  # what came back: count the codes
                while True:
                    try:
                        m = decode_host(sock.recv(zmq.NOBLOCK))
                    except zmq.Again:
                        break
                    self.replies[m.get("code") or m["t"]] += 1
            time.sleep(0.01)  # about 5,000 messages a second at most

    def close(self) -> None:
        for sock in [self.flooder, *self.sockets, self.plain]:
            sock.close(0)


# -- the test -------------------------------------------------------------------------------------


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_a_bot_game_under_load_and_attack_ends_as_without_the_attack() -> None:
    expected = in_process_result()
    errors: list[str] = []
    table = new_table(bot_seconds=WAIT)
    # Served until host.stop(): the checks after the game need the host.
    host = Host(table, port=0, linger_after_end=2 * WAIT, log=errors.append)
    host.start()
    ctx: zmq.Context[Any] = zmq.Context()
    attacker = Attacker(ctx, host)
    spectators = Spectators(ctx, host, SPECTATORS)
    threads = [threading.Thread(target=spectators.run, daemon=True),
               threading.Thread(target=attacker.run, daemon=True)]
    rss_before = max_rss_mb()
    players: dict[int, CountingBot] = {}
    try:
        threads[0].start()
        for seat in sorted(NETWORK_BOTS):  # one after the other: seats 4 and 5 in order
            thread = threading.Thread(target=run_bot, args=(host, seat, players), daemon=True)
            thread.start()
            threads.append(thread)
            deadline = time.monotonic() + WAIT
            def free(t: Table, s: int = seat) -> bool:
                return not t.seats[s].taken

            while host.call(free):
                assert time.monotonic() < deadline, f"seat {seat} was not taken"
                time.sleep(0.02)
        threads[1].start()  # the table is full: the attack begins with the game
        deadline = time.monotonic() + WAIT
        while not host.call(lambda t: t.over):
            assert time.monotonic() < deadline, "the game did not end under attack"
            sizes = host.call(lambda t: (len(t.connections()), len(t.output.public_history())))
            assert sizes[0] <= 2 + SPECTATORS + MAX_SPECTATORS, sizes
            time.sleep(0.1)
        for thread in threads[2:]:
            thread.join(WAIT)
            assert not thread.is_alive(), "a network bot did not finish"
        # The host serves until stopped (linger_after_end): wait for every spectator's last
        # update and for the attack's answers (the flood's error among them), each
        # read by its own thread, rather than for a fixed time.
        final = host.call(lambda t: t.output.public_state()["result"])
        answered = ("malformed", "bad_field", "bad_token", "flood")
        deadline = time.monotonic() + WAIT
        while spectators.results() != [final] * SPECTATORS or attacker.sent < ATTACK_MESSAGES \
                or not all(attacker.replies[code] for code in answered):
            assert time.monotonic() < deadline, (spectators.results().count(final),
                                                 {c: attacker.replies[c] for c in answered})
            time.sleep(0.02)
        bounded = host.call(lambda t: (len(t.connections()), len(host.limiter),
                                       sum(1 for e in t.output.public_history()
                                           if e["kind"] == "spectator"),
                                       len(t.output.public_history())))
    finally:
        attacker.stop.set()
        spectators.stop.set()
        for thread in threads[:2]:
            thread.join(5)
        attacker.close()
        spectators.close()
        host.stop()
        ctx.destroy(linger=0)

    # The game ended exactly as without the attack.
    assert table.game.result == expected
    assert table.record.replay().result == expected
    # Every legitimate answer was accepted, none refused, none lost.
    for seat, player in players.items():
        assert player.conn.core.result == expected, seat
        assert player.faults == {}, (seat, player.faults, player.lines[-5:])
        refused = {k: v for k, v in player.answers.items() if k.startswith("refused")}
        assert not refused, (seat, refused, player.lines[-5:])
        assert player.answers["ok decide"] + player.answers["ok commit"] == player.decisions
        assert player.answers["problem"] == 0, player.lines[-5:]
    # Every spectator saw the end.
    assert spectators.results() == [table.output.public_state()["result"]] * SPECTATORS
    # The attack was answered (and rate-limited), and nothing in the host broke.
    assert attacker.sent >= ATTACK_MESSAGES, attacker.sent
    assert attacker.replies["malformed"] and attacker.replies["bad_field"]
    assert attacker.replies["bad_token"] and attacker.replies["flood"]
    assert errors == [], errors[:3]
    assert host.error is None
    # Bounded: connections, rate-limit buckets, the history's spectator names, memory.
    conns, buckets, spectator_events, published = bounded
    assert conns <= 2 + SPECTATORS + MAX_SPECTATORS
    assert buckets <= attacker.identities + attacker.oversized + SPECTATORS + 2
    assert spectator_events <= MAX_SPECTATOR_NAMES
    assert published < 20_000
    assert max_rss_mb() - rss_before < 200, "the host's memory grew without bound"
