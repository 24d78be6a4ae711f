"""Messages are built from the state of their own ``seq`` and reach a client in ``seq``
order (issue 25, items 3 and 4; docs/protocol.md §6).

Item 4, the bug: two network players join in order; the table was flushed (a snapshot
request) between the last seat's hello and the start, in one host turn. The flush queued the
seat's before-the-start private message with the table's own list of the seat's new events,
the start's ``deal`` was then added to that very list, and the seat got its deal in the
before-the-start shape at the old ``seq``, and again at the next one."""

from __future__ import annotations

import threading
import time
from typing import Any

import msgpack
import pytest
import zmq
from support.clock import FakeClock
from support.net import DEALER, UP, Net, Peer, table, told
from test_host_server import WAIT, RawClient, start_host

from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.messages import encode

Message = dict[str, Any]
DEALT = ("hand", "stored")  # the private state's keys that come with the start


class Recording(Net):
    """A Net that keeps every private message as it leaves the host: (peer, message)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.privates: list[tuple[Peer, Message]] = []

    def down(self, peer: Peer, way: str, message: Message) -> None:
        if peer.conn and way == DEALER and message["t"] == "private":
            self.privates.append((peer, msgpack.unpackb(encode(message), raw=False)))
        super().down(peer, way, message)


def assert_nothing_dealt_before_the_start(privates: list[Message]) -> None:
    """Each private state (the ``private`` of a seat's private messages, in order) either has
    the before-the-start shape and no event, or the dealt shape; the ``deal`` comes once."""
    assert privates, "no private message"
    deals = 0
    for private in privates:
        kinds = [e["kind"] for e in private["events"]]
        deals += kinds.count("deal")
        if not all(key in private for key in DEALT):
            assert kinds == [] and private["pending"] is None, private
    assert deals == 1, [[e["kind"] for e in p["events"]] for p in privates]


def join_in_one_host_turn(net: Net) -> tuple[Peer, Peer]:
    """Ann joins; then Bob's hello, a snapshot request of Ann's and Bob's contribution reach
    the host in one turn (``reads_all``): Ann's snapshot flushes the table after Bob's hello
    and before the start. Bob's own snapshot request is held back until the host has
    published: a seat's snapshot replaces the private messages queued for it (§6, item 3),
    which would hide a fault in them."""
    ann = net.join("Ann")
    forge = net.rewrite

    def ask_when_bob_is_welcomed(peer: Peer, message: Message) -> Message:
        if peer is not ann and message["t"] == "welcome":
            ann.core.request_snapshot(net.clock.now)
        return forge(peer, message)

    net.rewrite, net.reads_all = ask_when_bob_is_welcomed, True
    net.keep = lambda peer, way, message: way == UP and peer is not ann and \
        message["t"] == "snapshot"
    bob = net.join("Bob")
    net.rewrite, net.reads_all, net.keep = forge, False, lambda peer, way, message: False
    net.release()
    return ann, bob


def test_the_last_seat_to_join_gets_its_deal_once_and_only_after_the_start() -> None:
    clock = FakeClock(0.0)
    net = Recording(table(clock, players=2), clock)
    first, last = join_in_one_host_turn(net)
    assert net.table.started and (first.core.seat, last.core.seat) == (0, 1)
    for peer in (first, last):
        messages = [m for p, m in net.privates if p is peer]
        assert_nothing_dealt_before_the_start([m["private"] for m in messages])
        seqs = [m["seq"] for m in messages]
        assert seqs == sorted(seqs), seqs
        # The seat's own deal, told once (in its public event's place, or after it).
        hands = [e for e, mine in told(peer) if mine and e["kind"] == "deal"]
        assert len(hands) == 1, hands


@pytest.mark.network
def test_over_sockets_the_last_seat_to_join_gets_its_deal_once_and_only_after_the_start(
        ) -> None:
    ctx: zmq.Context[Any] = zmq.Context()
    # Ann promises a share of the seed and never sends it: the table starts without it as
    # soon as it is full (contribution_seconds 0), in the host's turn after Bob's hello.
    host = start_host(Table(2, TableSettings(game_id="join-order", contribution_seconds=0.0),
                            seed=5))
    ann, bob = RawClient(ctx, host), RawClient(ctx, host)
    holding, release = threading.Event(), threading.Event()

    def held(table: Table) -> bool:
        holding.set()
        return release.wait(WAIT)

    hold = threading.Thread(target=host.call, args=(held, WAIT))
    try:
        assert ann.request(t="hello", name="Ann", role="player", contribute=True)["t"] == \
            "welcome"
        # The host's loop is held while Bob's hello and snapshot request arrive, so that it
        # reads both in one turn: the snapshot's flush queues Bob's before-the-start private
        # message, and the start comes before that message leaves.
        hold.start()
        assert holding.wait(WAIT)
        bob.send(t="hello", name="Bob", role="player")
        bob.send(t="snapshot")
        time.sleep(0.2)  # (loopback delivers them in far less; a late one only weakens it)
        release.set()
        bob.wait_for(lambda: any("hand" in p for p in bob.privates))
        ann.wait_for(lambda: any("hand" in p for p in ann.privates))
        for client in (ann, bob):
            assert_nothing_dealt_before_the_start(client.privates)
    finally:
        release.set()
        hold.join(WAIT)
        ann.close()
        bob.close()
        host.stop()
        ctx.destroy(linger=0)
    assert host.wait(WAIT) and host.error is None


def test_no_private_message_older_than_a_snapshot_comes_after_it() -> None:
    """A seat answers and asks for a snapshot in one host turn: the snapshot (a reply, sent
    at once) carries the private state the answer changed, and the private message the
    flush queued for that change is not sent after it (issue 25, item 3)."""
    clock = FakeClock(0.0)
    net = Net(table(clock, players=3, host_bots=2, first_tm=2), clock)
    order: list[tuple[str, int]] = []  # (t, seq) of what the peer got on its DEALER

    def noted(peer: Peer, message: Message) -> Message:
        if message["t"] not in ("update", "heartbeat"):
            order.append((message["t"], message.get("seq", -1)))
        return message

    net.rewrite = noted
    peer = net.join("Ana")
    pending = peer.core.ready
    assert pending is not None and pending.kind == "announce"
    net.reads_all = True
    peer.core.decide(pending.legal[0], clock.now)
    peer.core.request_snapshot(clock.now)
    net.run()
    assert [t for t, _ in order].count("snapshot") == 2  # the join's and this one
    for at, (kind, seq) in enumerate(order):
        if kind == "snapshot":
            assert all(s > seq for t, s in order[at:] if t == "private"), order
    commit = peer.core.ready  # the offer step: the snapshot told it, nothing older undid it
    assert commit is not None and commit.kind == "commit"
