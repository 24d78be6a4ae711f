"""Encryption and host identity (docs/security.md): CURVE on both host sockets, the host's
keys on disk, the key port, trust on first use, --insecure.

The capture test runs a whole short game through a TCP proxy on 127.0.0.1 that records every
byte between the clients and the host (ROUTER and PUB): with encryption no message type, card
name, hand or seat token appears in it; the same game with --insecure shows them all (the
control). Only 127.0.0.1, free ports, a timeout on every wait.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import socket
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

from mundus_net.bots import load_bot
from mundus_net.client.bot import NetworkBot
from mundus_net.client.connection import Connection, ConnectTimeout
from mundus_net.client.core import ClientSettings
from mundus_net.client.known_hosts import KnownHosts, UntrustedHost, trust_host
from mundus_net.engine.deck import default_deck
from mundus_net.host.keys import CURVE_FILE, SIGN_FILE, HostKeys
from mundus_net.host.server import Host
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.beacon import Announcement, BeaconError, decode_beacon, encode_beacon
from mundus_net.protocol.security import (
    KeyAnnouncement,
    SecurityError,
    fetch_key,
    fingerprint,
    parse_key,
)

WAIT = 60.0  # a deadline for every wait, generous: a loaded machine is no failure


# -- a recording TCP proxy --------------------------------------------------------------------


class Proxy:
    """Listens on a free port of 127.0.0.1 and forwards every connection to ``target``,
    keeping a copy of every byte in both directions."""

    def __init__(self, target: int, log: list[bytes], lock: threading.Lock) -> None:
        self.target = target
        self.log, self.lock = log, lock
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.1)
        self.port = self.server.getsockname()[1]
        self.stopped = threading.Event()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                client, _ = self.server.accept()
            except (TimeoutError, OSError):
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target), timeout=WAIT)
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        src.settimeout(0.1)
        while not self.stopped.is_set():
            try:
                data = src.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
            with self.lock:
                self.log.append(data)
            try:
                dst.sendall(data)
            except OSError:
                break
        for sock in (src, dst):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.stopped.set()
        self.server.close()
        time.sleep(0.15)
        for sock in self.sockets:
            sock.close()


def play_through_proxy(insecure: bool) -> tuple[bytes, Table, list[Connection]]:
    """A 2-round game: one host bot and two network bots (each a Connection in a thread)
    that reach the host only through recording proxies. Returns every byte seen."""
    table = Table(3, TableSettings(round_limit=2, first_tm=0, heartbeat_ms=200, bot_seconds=WAIT),
                  bots=[load_bot("greedy", 1)])
    host = Host(table, port=0, linger_after_end=WAIT, log=lambda text: None, insecure=insecure)
    host.start()
    log: list[bytes] = []
    lock = threading.Lock()
    router = Proxy(host.port, log, lock)
    pub = Proxy(host.pub_port, log, lock)
    # The welcome says where the PUB socket is: this table names the proxy's.
    host.call(lambda t: setattr(t, "pub_port", pub.port))
    conns: list[Connection] = []
    results: list[Any] = []
    try:
        for name in ("ana", "bo"):
            conn = Connection(f"tcp://127.0.0.1:{router.port}", ClientSettings(name, bot=True),
                              server_key=host.public_key, insecure=insecure)
            conn.connect(WAIT)
            conns.append(conn)
        threads = [threading.Thread(target=lambda c=c: results.append(
            NetworkBot(c, load_bot("greedy", 2), log=lambda text: None).play(0.2)),
            daemon=True) for c in conns]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT)
        assert len(results) == 2 and all(r is not None for r in results), "the game stalled"
    finally:
        for conn in conns:
            conn.close()
        host.stop()
        router.close()
        pub.close()
    assert table.over and table.game.result is not None
    return b"".join(log), table, conns


def markers(table: Table, conns: list[Connection]) -> dict[str, bytes]:
    """What must not be readable on the wire: message types and field names (as msgpack
    strings), development names, the seat tokens, a hand."""
    packed = {f"msgpack {text!r}": msgpack.packb(text)
              for text in ("hello", "welcome", "private", "hand", "offer", "token", "pending",
                           "commitments", "reveals", "legal")}
    deck = default_deck()
    for card in deck.cards[:3]:
        packed[f"card name {card.name!r}"] = msgpack.packb(card.name)
    for conn in conns:
        assert conn.core.token is not None
        packed[f"token of {conn.core.settings.name}"] = conn.core.token.encode()
    return packed


@pytest.fixture(scope="module")
def captures() -> Iterator[dict[bool, tuple[bytes, Table, list[Connection]]]]:
    yield {insecure: play_through_proxy(insecure) for insecure in (False, True)}


@pytest.mark.network
def test_nothing_readable_crosses_the_wire_with_encryption(
        captures: dict[bool, tuple[bytes, Table, list[Connection]]]) -> None:
    wire, table, conns = captures[False]
    assert len(wire) > 20_000  # a whole game went through the proxies
    assert all(not c.core.mismatches for c in conns)  # offers and the fair deal checked out
    found = [what for what, data in markers(table, conns).items() if data in wire]
    assert found == []


@pytest.mark.network
def test_the_same_game_without_encryption_shows_everything(
        captures: dict[bool, tuple[bytes, Table, list[Connection]]]) -> None:
    wire, table, conns = captures[True]  # the control: the markers are the right ones
    missing = [what for what, data in markers(table, conns).items() if data not in wire]
    assert missing == []


# -- keys ---------------------------------------------------------------------------------------


def test_host_keys_are_made_once_private_and_kept(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "mundus-net"
    keys = HostKeys.load_or_create(folder)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    for name in (CURVE_FILE, SIGN_FILE):
        assert stat.S_IMODE(os.stat(folder / name).st_mode) == 0o600
    again = HostKeys.load_or_create(folder)
    assert (again.public_key, again.sign_key) == (keys.public_key, keys.sign_key)
    assert parse_key(keys.public_key) == keys.public_key
    assert len(keys.fingerprint) == 19 and keys.fingerprint == fingerprint(keys.public_key)
    assert HostKeys.generate().public_key != keys.public_key
    (folder / CURVE_FILE).write_text("garbage")
    with pytest.raises(SecurityError):
        HostKeys.load_or_create(folder)
    with pytest.raises(SecurityError):
        parse_key("not a key")


@pytest.mark.network
def test_the_key_port_tells_the_public_keys_and_a_wrong_key_hears_nothing() -> None:
    keys = HostKeys.generate()
    table = Table(2, bots=[load_bot("random", 0)])
    host = Host(table, port=0, keys=keys, log=lambda text: None)
    host.start()
    try:
        announced = fetch_key(host.address, WAIT)
        assert announced == KeyAnnouncement(keys.public_key, keys.sign_key, insecure=False)
        # Without a key the connection asks the key port itself (trust on first use).
        with Connection(host.address, ClientSettings("ana")) as conn:
            welcome = conn.connect(WAIT)
            assert conn.server_key == keys.public_key == welcome.host_key
            assert welcome.sign_key == keys.sign_key and welcome.seed_commitment is not None
        impostor = Connection(host.address, ClientSettings("eve"),
                              server_key=HostKeys.generate().public_key)
        with pytest.raises(ConnectTimeout):
            impostor.connect(1.0)  # the CURVE handshake fails: not a byte gets through
        impostor.close(bye=False)
        plain = Connection(host.address, ClientSettings("mallory"), insecure=True)
        with pytest.raises(ConnectTimeout):
            plain.connect(1.0)
        plain.close(bye=False)
        assert host.call(lambda t: t.names) == ["bot 0", "ana"]
    finally:
        host.stop()


@pytest.mark.network
def test_an_insecure_host_says_so_on_its_key_port() -> None:
    host = Host(Table(2, bots=[load_bot("random", 0)]), port=0, insecure=True,
                log=lambda text: None)
    host.start()
    try:
        announced = fetch_key(host.address, WAIT)
        assert announced is not None and announced.insecure and announced.key is None
        with pytest.raises(UntrustedHost, match="--insecure"):
            trust_host(host.address, fetch=lambda: announced)
        assert trust_host(host.address, insecure=True).key is None
    finally:
        host.stop()


def test_the_beacon_carries_the_host_key() -> None:
    key = HostKeys.generate().public_key
    a = Announcement("t", "g", 7700, 7701, 4, 2, False, "tcp://x:7700", key=key)
    assert decode_beacon(encode_beacon(a)).key == key
    plain = Announcement("t", "g", 7700, 7701, 4, 2, False, "tcp://x:7700")
    assert decode_beacon(encode_beacon(plain)).key is None
    with pytest.raises(BeaconError):
        decode_beacon(encode_beacon(plain).replace(b'"key":null', b'"key":"short"'))


# -- trust on first use -------------------------------------------------------------------------


def test_trust_on_first_use_then_a_changed_key_is_refused_loudly(tmp_path: Path) -> None:
    store = KnownHosts(tmp_path / "mundus-net" / "known_hosts.json")
    address = "tcp://127.0.0.1:7700"
    first, second = HostKeys.generate(), HostKeys.generate()

    def announce(keys: HostKeys) -> Any:
        return lambda: keys.announcement()

    trust = trust_host(address, store=store, fetch=announce(first))
    assert (trust.key, trust.how) == (first.public_key, "first-use")
    assert first.fingerprint in trust.lines[0]
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.path.parent).st_mode) == 0o700
    assert trust_host(address, store=store, fetch=announce(first)).how == "known"
    # The host at the address is silent: the saved key is used (the handshake proves it).
    assert trust_host(address, store=store, fetch=lambda: None).key == first.public_key
    # Another key: a loud warning, and no connection.
    with pytest.raises(UntrustedHost) as refused:
        trust_host(address, store=store, fetch=announce(second))
    warning = str(refused.value)
    assert "WARNING: THE HOST KEY OF THIS ADDRESS HAS CHANGED!" in warning
    assert second.fingerprint in warning and first.fingerprint in warning
    assert shlex.quote(f"--host-key={second.public_key}") in warning
    assert str(store.path) in warning
    # The same from a LAN beacon that offers another key.
    with pytest.raises(UntrustedHost):
        trust_host(address, store=store, offered=second.public_key)
    # Pinning the new key accepts it (and saves it); then it is the known one.
    pinned = trust_host(address, pinned=second.public_key, store=store,
                        fetch=announce(second))
    assert pinned.how == "pinned" and "replaces" in " ".join(pinned.lines)
    assert trust_host(address, store=store, fetch=announce(second)).how == "known"
    # A pin refuses any other key the host announces.
    with pytest.raises(UntrustedHost, match="not the pinned key"):
        trust_host(address, pinned=first.public_key, fetch=announce(second))
    # Removing the entry starts over.
    store.forget(address)
    assert trust_host(address, store=store, fetch=announce(first)).how == "first-use"
    with pytest.raises(UntrustedHost, match="does not answer"):
        trust_host("tcp://127.0.0.1:7800", store=store, fetch=lambda: None)


def test_the_terminal_client_says_insecure_on_every_screen() -> None:
    from mundus_net.client.tui.app import TableModel

    for width in (80, 30, 10):
        insecure = TableModel(address="tcp://127.0.0.1:1", insecure=True)
        line = "".join(fragment[1] for fragment in insecure.status_line(width))
        assert line.startswith("INSECURE"[:width]) and len(line) <= width
        screen = "".join(fragment[1] for fragment in insecure.draw(width, 10))  # "Connecting…"
        assert "INSECURE"[:width] in screen
    secure = TableModel(address="tcp://127.0.0.1:1")
    assert "INSECURE" not in "".join(fragment[1] for fragment in secure.draw(80, 10))
