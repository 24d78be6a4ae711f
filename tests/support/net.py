"""The in-memory table-and-client pair: the host's real :class:`Table` and client cores
(client/core.py) joined as the server joins them, with no sockets, no threads and no
sleeping. Every frame goes through the real codec (the host decodes what a core sends with
``decode_client``, as the server does; a core decodes what the host sends with
``decode_host``); one :class:`~support.clock.FakeClock` drives the table and the cores, and
time moves only when a test says so (:meth:`Net.tick`). A lost message is a message not
delivered (:attr:`Net.keep`); a silent host is the clock moving on.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, cast

from mundus_net.bots import load_bot
from mundus_net.bots.base import Bot
from mundus_net.client.core import (
    Action,
    Channel,
    ClientCore,
    ClientSettings,
    CloseSockets,
    OfferSecret,
    OpenDealer,
    Subscribe,
)
from mundus_net.client.notices import Notice, PrivateUpdate, PublicEvents
from mundus_net.engine.view import PlayerView
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.messages import decode_client, decode_host, encode
from support.clock import FakeClock
from support.table import COLLABORATORS

Message = dict[str, Any]
UP, DEALER, PUBLIC = "up", "dealer", "public"  # the ways a message travels
HB = 1.0  # the table's heartbeat (its default 1,000 ms)


@dataclass(eq=False)
class Peer:
    """One core and what the host knows of it."""

    core: ClientCore
    conn: bytes = b""  # the identity the host sees (a fresh one for each fresh DEALER)
    subscribed: bool = False
    sent: list[Message] = field(default_factory=list)  # as the host decoded them
    notices: list[Notice] = field(default_factory=list)

    def of(self, kind: type[Notice]) -> list[Any]:
        return [n for n in self.notices if isinstance(n, kind)]


class Net:
    """A Table and its cores joined as the server joins them (host/server.py): replies at
    once, then the table advances and publishes its private messages, then its updates.

    ``keep(peer, way, message)`` returning True keeps a message back (into :attr:`kept`,
    for the test to deliver later, or never: a lost message); ``rewrite`` forges what the
    host sends a peer (a cheating host). ``reads_all``: the host reads (and answers) every
    frame the cores send, and what the cores send in answer to its replies, before the table
    publishes, as the server does with frames that arrive together."""

    def __init__(self, table: Table, clock: FakeClock) -> None:
        self.table = table
        self.clock = clock
        self.peers: list[Peer] = []
        self.keep: Callable[[Peer, str, Message], bool] = lambda peer, way, message: False
        self.rewrite: Callable[[Peer, Message], Message] = lambda peer, message: message
        self.kept: list[tuple[Peer, str, Message]] = []
        self.reads_all = False
        self._conns = itertools.count(1)
        self._next_beat = clock.now

    def join(self, name: str, *, token: str | None = None, secret: OfferSecret | None = None,
             **settings: Any) -> Peer:
        # A share of the seed made from the name: the same game every run.
        share = hashlib.sha256(name.encode()).digest()
        core = ClientCore(ClientSettings(name, **settings), token=token, secret=secret,
                          entropy=lambda n: share[:n])
        peer = Peer(core)
        self.peers.append(peer)
        core.start(self.clock.now)
        self.run()
        return peer

    # -- moving messages -------------------------------------------------------------------

    def run(self) -> None:
        """Move every frame until nothing moves."""
        for _ in range(10_000):
            moved = sent = self.send_outgoing()
            while self.reads_all and sent:
                sent = self.send_outgoing()
            self.table.advance()
            updates, privates = self.table.drain()
            for conn, message in privates:
                for peer in self.peers:
                    if peer.conn == conn:
                        self.down(peer, DEALER, message)
            for update in updates:
                for peer in self.peers:
                    if peer.subscribed:
                        self.down(peer, PUBLIC, update)
            if not moved and not updates and not privates:
                self.collect()
                return
        raise AssertionError("the exchange never settles")

    def send_outgoing(self) -> bool:
        """Send what every core has to send; whether there was anything."""
        sent = False
        for peer in self.peers:
            items = peer.core.outgoing()
            sent = sent or bool(items)
            self.send(peer, items)
        return sent

    def send(self, peer: Peer, items: Iterable[bytes | Action]) -> None:
        """Do what a core's outgoing() asks, as a transport does."""
        for item in items:
            if isinstance(item, OpenDealer):
                peer.conn = b"conn-%d" % next(self._conns)
                peer.subscribed = False
            elif isinstance(item, Subscribe):
                peer.subscribed = True
            elif isinstance(item, CloseSockets):
                peer.conn, peer.subscribed = b"", False
            else:
                assert isinstance(item, bytes)
                message = decode_client(item)  # the host's own checks: valid protocol
                peer.sent.append(message)
                self.up(peer, message)

    def up(self, peer: Peer, message: Message) -> None:
        """One message reaches the host; its reply goes back."""
        if self.keep(peer, UP, message):
            self.kept.append((peer, UP, message))
            return
        self.down(peer, DEALER, self.table.handle(peer.conn, message))

    def down(self, peer: Peer, way: str, message: Message) -> None:
        """One message from the host reaches a core."""
        if not peer.conn:
            return  # its sockets are closed
        if self.keep(peer, way, message):
            self.kept.append((peer, way, message))
            return
        channel = Channel.DEALER if way == DEALER else Channel.PUBLIC
        peer.core.receive(channel, encode(self.rewrite(peer, message)), self.clock.now)
        self.collect()

    def release(self) -> None:
        """Deliver what was kept back, in order."""
        kept, self.kept = self.kept, []
        for peer, way, message in kept:
            if way == UP:
                self.up(peer, message)
            else:
                self.down(peer, way, message)
        self.run()

    def collect(self) -> None:
        for peer in self.peers:
            peer.notices.extend(peer.core.notices())

    # -- time ------------------------------------------------------------------------------

    def beat(self) -> None:
        """The host's heartbeat (§11): a heartbeat on the PUB, a ping to each connection."""
        for peer in self.peers:
            if peer.subscribed:
                self.down(peer, PUBLIC, {"t": "heartbeat", "seq": self.table.seq})
        for conn in self.table.connections():
            for peer in self.peers:
                if peer.conn == conn:
                    self.down(peer, DEALER, {"t": "ping"})

    def tick(self, now: float) -> None:
        """Time moves to ``now``: the host beats when due, every core runs its timers, and
        everything moves."""
        self.clock.now = now
        if now >= self._next_beat:
            self._next_beat = now + self.table.heartbeat_ms / 1000
            self.beat()
        for peer in self.peers:
            peer.core.handle_timer(now)
            due = peer.core.next_deadline()
            assert due is None or due > now, "a timer did not move past now"
            # next_deadline is computed without the list: it must be the list's first due
            assert due is None or due == min(at for at, _ in peer.core.timers())
        self.run()

    # -- reading the host ------------------------------------------------------------------

    def host_snapshot(self, peer: Peer) -> Message:
        """What the host says its state is, through the codec (as a snapshot reply)."""
        return decode_host(encode(self.table.handle(peer.conn, {"t": "snapshot"})))



def frames(items: Iterable[bytes | Action]) -> list[Message]:
    return [decode_client(item) for item in items if isinstance(item, bytes)]


def table(clock: FakeClock, players: int = 3, host_bots: int = 0, **options: Any) -> Table:
    """``options``: TableSettings fields and the table's collaborators (seed, bots...)."""
    collaborators: dict[str, Any] = {"seed": 5, "clock": clock,
                                     "bots": [load_bot("greedy", s) for s in range(host_bots)]}
    collaborators.update({k: v for k, v in options.items() if k in COLLABORATORS})
    settings = replace(TableSettings(game_id="core-game", first_tm=0),
                       **{k: v for k, v in options.items() if k not in COLLABORATORS})
    return Table(players, settings, **collaborators)


def play(net: Net, players: dict[Peer, Bot], step: float = 0.05,
         until: Callable[[], bool] | None = None) -> None:
    """Every core decides (its bot's choice) when its core says it is ready, the clock
    moving ``step`` a turn, until every core has the result (or ``until()``)."""
    done = until or (lambda: all(p.core.result is not None for p in players))
    for _ in range(20_000):
        if done():
            return
        for peer, bot in players.items():
            pending = peer.core.ready
            if pending is not None and pending.legal:
                view = cast(PlayerView, peer.core.view())
                peer.core.decide(bot.decide(view, pending.legal), net.clock.now)
        net.tick(net.clock.now + step)
    raise AssertionError("the game did not end")


def told(peer: Peer) -> list[tuple[Message, bool]]:
    """Every event a seat was told, in the order told, with whether it is the seat's own
    version of the event (its private part merged in)."""
    out: list[tuple[Message, bool]] = []
    for notice in peer.notices:
        if isinstance(notice, PublicEvents):
            out += [(mine, True) if mine is not None else (event, False)
                    for event, mine in notice.as_seen()]
        elif isinstance(notice, PrivateUpdate):
            out += [(event, True) for event in notice.events]
    return out
