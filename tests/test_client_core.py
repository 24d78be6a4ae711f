"""The client's protocol core (client/core.py) paired with the host's real Table in memory.

No sockets, no threads, no sleeping: every frame goes through the real codec (the host
decodes what a core sends with ``decode_client``, as the server does; a core decodes what the
host sends with ``decode_host``), one fake clock drives the table and the cores, and time
moves only when a test says so. A lost message is a message not delivered; a silent host is
the clock moving on. Timer behaviour is asserted on clock values.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from support.clock import FakeClock
from support.net import (
    DEALER,
    HB,
    PUBLIC,
    UP,
    Message,
    Net,
    Peer,
    frames,
    play,
    table,
    told,
)

from mundus_net.bots import load_bot
from mundus_net.bots.base import Bot
from mundus_net.client.core import (
    ANSWER_RETRY,
    LOST_AFTER,
    RATE_HOLD_S,
    SNAPSHOT_RETRY,
    SYNC_GRACE_S,
    Channel,
    ClientCore,
    ClientError,
    ClientSettings,
    CloseSockets,
    Link,
    OfferSecret,
    OpenDealer,
)
from mundus_net.client.notices import (
    OVER,
    REPLACED,
    STOPPED,
    TAKEN_OVER,
    Accepted,
    Closed,
    Gone,
    Joined,
    Lost,
    Mismatch,
    PendingDecision,
    Pong,
    PrivateUpdate,
    Problem,
    PublicEvents,
    Refused,
    Synced,
)
from mundus_net.client.wire import freeze
from mundus_net.engine.decisions import Announce, Offer
from mundus_net.engine.game import SIMULTANEOUS, Game
from mundus_net.engine.view import PlayerView
from mundus_net.host.table import error_message
from mundus_net.protocol import commitment
from mundus_net.protocol.codec import to_wire
from mundus_net.protocol.errors import ProtocolError
from mundus_net.protocol.messages import PROTOCOL_VERSION, decode_client, decode_host, encode


def one_seat(now: float = 0.0, **options: Any) -> tuple[Net, Peer]:
    """A table of two host bots (seats 0 and 1) and a core at seat 2, the first TM, joined
    and synced at ``now``: the core is asked to announce."""
    clock = FakeClock(now)
    net = Net(table(clock, host_bots=2, first_tm=2, **options), clock)
    peer = net.join("Ana")
    assert link_of(peer) is Link.LIVE and peer.core.seat == 2
    pending = ready_of(peer)
    assert pending is not None and pending.kind == "announce"
    return net, peer



def delivered(peer: Peer) -> list[Message]:
    return [e for n in peer.of(PublicEvents) for e in n.events]


def asked_snapshots(peer: Peer) -> int:
    return sum(m["t"] == "snapshot" for m in peer.sent)


def game(host_bots: int = 1, rewrite: Callable[[Peer, Message], Message] | None = None,
         **options: Any) -> tuple[Net, dict[Peer, Bot], Peer]:
    """A 3-seat table: ``host_bots`` greedy host bots, cores (greedy and random) at the
    other seats, and a spectator core; ``rewrite`` is in place before anyone joins."""
    clock = FakeClock(100.0)
    net = Net(table(clock, host_bots=host_bots, **options), clock)
    if rewrite is not None:
        net.rewrite = rewrite
    players = {net.join(f"p{s}"): load_bot("greedy" if s % 2 else "random", s)
               for s in range(host_bots, 3)}
    watcher = net.join("eve", role="spectator")
    return net, players, watcher


def link_of(peer: Peer) -> Link:
    """The core's life-cycle state, read afresh (mypy would keep an earlier narrowing)."""
    return peer.core.link


def ready_of(peer: Peer) -> PendingDecision | None:
    """The decision the core waits to answer, read afresh."""
    return peer.core.ready


def announced(pending: PendingDecision) -> int:
    """The N of the first legal announcement (what these tests answer)."""
    decision = pending.legal[0]
    assert isinstance(decision, Announce)
    return decision.n


def asked(peer: Peer) -> PendingDecision:
    """The decision the core waits to answer (there must be one)."""
    pending = peer.core.ready
    assert pending is not None, "nothing to decide"
    return pending


def forging(change: Callable[[list[Message]], bool], seat: int | None = None
            ) -> Callable[[Peer, Message], Message]:
    """A host that forges, once, the first public events that ``change`` changes (given a
    copy), in what it tells the core at ``seat`` (None: the spectator)."""
    done: list[bool] = []

    def rewrite(peer: Peer, message: Message) -> Message:
        if done or peer.core.seat != seat or peer.core.settings.role != (
                "player" if seat is not None else "spectator"):
            return message
        if message.get("t") not in ("update", "snapshot"):
            return message
        forged = copy.deepcopy(message)
        if change(forged["events"]):
            done.append(True)
            return forged
        return message

    return rewrite


def event_of(events: list[Message], kind: str) -> Message | None:
    return next((e for e in events if e["kind"] == kind), None)


# -- a whole game ---------------------------------------------------------------------------


def test_a_whole_game_played_by_cores_ends_as_the_host_says() -> None:
    net, players, watcher = game()
    play(net, players)
    assert net.table.over
    expected = net.table.game.result
    for peer in [*players, watcher]:
        core = peer.core
        assert core.result == expected and core.mismatches == []
        snap = net.host_snapshot(peer)
        assert (core.seq, core.state, core.events) == (snap["seq"], snap["state"],
                                                       snap["events"])
        assert delivered(peer) == core.events  # every public event once, in order
        assert peer.of(Problem) == [] and peer.of(Lost) == []
        assert asked_snapshots(peer) == 1  # the join's: updates in order need no other
    for peer in players:
        # Every offer was committed, revealed and checked; the fair deal was checked with
        # this seat's contribution in it.
        assert peer.core.secret is None and peer.core.contribution is not None
        sent = [m["t"] for m in peer.sent]
        assert sent.count("commit") == sent.count("reveal") > 0
        assert any(e["kind"] == "seed_reveal" for e in peer.core.events)



def test_a_seats_own_events_are_told_in_the_engines_order() -> None:
    """The host sends a private message before the public update it goes with (§6): its
    events (the seat's dealt, stored and returned cards...) are told in their public
    events' places, not ahead of the update (where they would land in the previous round,
    before the other seats' discards and the round's end)."""
    net, players, _ = game(round_limit=4, seed=2)  # a seed where a core stores cards
    play(net, players)
    log = net.table.game.log
    engine_kinds = {event.kind for event in log}
    own: set[str] = set()
    for peer in players:
        seat = peer.core.seat
        assert seat is not None
        assert all(not n.events for n in peer.of(PrivateUpdate))  # none came late here
        seen = [(event["kind"], mine) for event, mine in told(peer)
                if event["kind"] in engine_kinds]
        assert seen == [(event.kind, bool(event.private and seat in event.private))
                        for event in log]
        own |= {kind for kind, mine in seen if mine}
    assert {"deal", "offer", "gift", "store", "unstore"} <= own, own


def test_a_restarted_client_is_told_its_own_events_in_their_places() -> None:
    """A client that comes back with its token starts from a snapshot: the seat's private
    events so far are told in their places in the history, once each."""
    net, players, _ = game(host_bots=2, round_limit=3)
    [peer] = players
    play(net, players, until=lambda: net.table.game.round == 2)
    peer.core.close()
    net.run()
    back = net.join("p2 again", token=peer.core.token, take_over=True)  # (a restarted program)
    play(net, {back: players[peer]})
    seat = back.core.seat
    log = net.table.game.log
    engine_kinds = {event.kind for event in log}
    seen = [(event["kind"], mine) for event, mine in told(back)
            if event["kind"] in engine_kinds]
    assert seen == [(event.kind, bool(event.private and seat in event.private))
                    for event in log]


def test_a_private_message_after_its_update_is_told_after_it() -> None:
    net, players, _ = game()
    peer = next(iter(players))
    late: list[Message] = []

    def keep(p: Peer, way: str, m: Message) -> bool:
        if not late and p is peer and way == DEALER and m["t"] == "private" \
                and m["private"]["events"]:
            late.append(m)
            return True
        return False

    net.keep = keep
    play(net, players, until=lambda: bool(late))
    seq = late[0]["seq"]
    assert peer.core.seq >= seq  # its update came first
    before = len(peer.notices)
    net.keep = lambda p, way, m: False
    net.release()
    updates = [n for n in peer.notices[before:] if isinstance(n, PrivateUpdate)]
    assert updates[0].events == tuple(late[0]["private"]["events"])
    assert all(not n.private for n in peer.of(PublicEvents) if n.seq == seq)


def test_the_screen_view_asks_a_seat_nothing_once_it_answered() -> None:
    """view() keeps this seat's decision until the host moves on (what a bot reads);
    view(for_screen=True) asks only while an answer is due, and names only the seats the
    table still waits for."""
    net, peer = one_seat()
    pending = asked(peer)
    shown = peer.core.view(for_screen=True)
    assert shown.pending is not None and shown.pending.seats == (2,)
    assert shown.legal == list(pending.legal)
    net.keep = lambda p, way, message: way == UP  # the answer never reaches the host
    peer.core.decide(pending.legal[0], net.clock.now)
    net.run()
    assert ready_of(peer) is None and peer.core.pending == pending
    assert peer.core.state["pending"]["seats"] == [2]  # the table still waits, as it says
    bots = peer.core.view()
    assert bots.pending is not None and bots.pending.seats == (2,)
    assert bots.legal == list(pending.legal)
    shown = peer.core.view(for_screen=True)
    assert shown.pending is not None and shown.pending.kind == "announce"
    assert shown.pending.seats == () and shown.legal == []


def test_the_hello_is_valid_protocol() -> None:
    core = ClientCore(ClientSettings("ana", bot=True), token="ab" * 16)
    assert core.next_deadline() is None and core.outgoing() == []
    core.start(now=3.0)
    out = core.outgoing()
    assert isinstance(out[0], OpenDealer)
    assert isinstance(out[1], bytes) and decode_host(out[1])["v"] == PROTOCOL_VERSION
    hello = decode_client(out[1])
    assert hello == {"t": "hello", "name": "ana", "role": "player", "token": "ab" * 16,
                     "bot": True, "contribute": True, "client": core.settings.client_id,
                     "id": hello["id"]}
    assert core.link is Link.JOINING and core.next_deadline() == 3.0 + LOST_AFTER * HB
    with pytest.raises(ClientError):
        core.decide(Offer((1, 2)), 3.0)  # nothing pending: nothing sent
    assert core.outgoing() == []


def test_a_refused_hello_closes_the_core() -> None:
    clock = FakeClock(0.0)
    net = Net(table(clock, host_bots=3), clock)
    peer = net.join("late")
    assert [n.code for n in peer.of(Refused)] == ["table_full"]
    assert link_of(peer) is Link.CLOSED and peer.of(Closed) and peer.conn == b""
    assert peer.core.next_deadline() is None
    with pytest.raises(ClientError):
        peer.core.chat("hello?", clock.now)


# -- the Clone pattern (§5) -----------------------------------------------------------------


def test_a_lost_update_is_recovered_from_a_snapshot() -> None:
    net, players, watcher = game()
    play(net, players, until=lambda: net.table.seq >= 20)
    lost: list[int] = []

    def keep(peer: Peer, way: str, message: Message) -> bool:
        if peer is watcher and way == PUBLIC and message["t"] == "update" and not lost:
            lost.append(message["seq"])
            return True
        return False

    net.keep = keep
    net.kept = []
    before = asked_snapshots(watcher)
    play(net, players, until=lambda: bool(lost) and net.table.seq > lost[0] + 3)
    assert asked_snapshots(watcher) == before + 1  # the next update showed the gap
    play(net, players)
    snap = net.host_snapshot(watcher)
    assert (watcher.core.seq, watcher.core.state, watcher.core.events) == (
        snap["seq"], snap["state"], snap["events"])
    assert delivered(watcher) == watcher.core.events  # the lost events too, once each
    assert watcher.core.result == net.table.game.result


def test_a_lost_last_update_is_found_by_the_heartbeat() -> None:
    net, peer = one_seat()
    watcher = net.join("eve", role="spectator")
    net.keep = lambda p, way, m: p is watcher and way == PUBLIC and m["t"] == "update"
    peer.core.decide(asked(peer).legal[0], net.clock.now)
    net.run()
    assert net.kept and watcher.core.seq < net.table.seq
    net.keep = lambda p, way, m: False
    before = asked_snapshots(watcher)
    net.beat()  # the heartbeat's seq is ahead of the watcher's
    net.run()
    assert asked_snapshots(watcher) == before + 1
    assert watcher.core.seq == net.table.seq
    assert watcher.core.state == net.host_snapshot(watcher)["state"]


def test_updates_buffered_around_a_late_snapshot_are_applied_once() -> None:
    """A late joiner's snapshot request waits while updates go by (buffered); the host's
    snapshot then covers some of them, and one more arrives before the snapshot: the covered
    ones are dropped and the last one applied after it."""
    net, players, _ = game()
    play(net, players, until=lambda: net.table.seq >= 10)
    net.keep = lambda p, way, m: way == UP and m["t"] == "snapshot" \
        and p.core.settings.name == "late"
    late = net.join("late", role="spectator")
    assert link_of(late) is Link.SYNCING and len(net.kept) == 1
    seq = net.table.seq
    play(net, players, until=lambda: net.table.seq >= seq + 2)  # buffered by the late one
    # The host takes the snapshot now; its reply is kept back until another update passed.
    net.keep = lambda p, way, m: p is late and way == DEALER and m["t"] == "snapshot"
    net.release()
    assert len(net.kept) == 1 and link_of(late) is Link.SYNCING
    covered = net.kept[0][2]["seq"]
    net.keep = lambda p, way, m: False
    play(net, players, until=lambda: net.table.seq > covered)
    net.release()
    assert link_of(late) is Link.LIVE and late.of(Synced) == [Synced(covered)]
    assert late.core.seq == net.table.seq > covered
    assert late.core.events == net.host_snapshot(late)["events"]
    assert delivered(late) == late.core.events  # nothing missed, nothing twice


def test_a_snapshot_request_without_reply_is_asked_again() -> None:
    net, peer = one_seat(now=10.0)
    net.keep = lambda p, way, m: way == DEALER and m["t"] == "snapshot"
    peer.core.request_snapshot(10.0)
    net.run()
    before = asked_snapshots(peer)
    net.tick(10.0 + SNAPSHOT_RETRY * HB - 0.01)
    assert asked_snapshots(peer) == before
    assert peer.core.next_deadline() == 10.0 + SNAPSHOT_RETRY * HB
    net.keep = lambda p, way, m: False
    net.tick(10.0 + SNAPSHOT_RETRY * HB)
    assert asked_snapshots(peer) == before + 1
    # Answered (nothing new in it): the next thing due is the ping, a heartbeat on.
    assert peer.core.next_deadline() == 10.0 + SNAPSHOT_RETRY * HB + HB


def test_a_private_message_ahead_waits_the_grace_then_asks_for_a_snapshot() -> None:
    """§6: the private message names update N; if N has not come SYNC_GRACE_S later, it was
    lost: one snapshot, not before."""
    net, peer = one_seat(now=20.0)
    net.keep = lambda p, way, m: way == PUBLIC and m["t"] == "update"
    peer.core.decide(asked(peer).legal[0], 20.0)
    net.run()  # the host asks the next question: its update is kept back
    pending = peer.core.pending
    assert pending is not None and pending.seq > peer.core.seq
    assert ready_of(peer) is None  # not before the public state has caught up
    assert peer.core.next_deadline() == 20.0 + SYNC_GRACE_S
    before = asked_snapshots(peer)
    peer.core.handle_timer(20.0 + SYNC_GRACE_S - 0.01)
    assert frames(peer.core.outgoing()) == []
    peer.core.handle_timer(20.0 + SYNC_GRACE_S)
    out = peer.core.outgoing()
    assert [m["t"] for m in frames(out)] == ["snapshot"]
    net.keep = lambda p, way, m: False
    net.send(peer, out)
    net.run()
    assert asked_snapshots(peer) == before + 1
    again = ready_of(peer)
    assert again is not None and again.id == pending.id


def test_an_update_within_the_grace_needs_no_snapshot() -> None:
    net, peer = one_seat(now=20.0)
    net.keep = lambda p, way, m: way == PUBLIC and m["t"] == "update"
    peer.core.decide(asked(peer).legal[0], 20.0)
    net.run()
    net.keep = lambda p, way, m: False
    net.clock.now = 20.0 + SYNC_GRACE_S / 2
    net.release()  # the update comes in time
    before = asked_snapshots(peer)
    net.tick(20.0 + SYNC_GRACE_S * 2)
    assert asked_snapshots(peer) == before and ready_of(peer) is not None


# -- liveness (§11) -------------------------------------------------------------------------


def test_five_silent_heartbeats_mean_lost_and_a_new_hello() -> None:
    net, peer = one_seat(now=0.0)  # welcome and snapshot at t=0
    core, token = peer.core, peer.core.token
    core.handle_timer(now=4.9)
    assert [m["t"] for m in frames(core.outgoing())] == ["ping"]  # not heard: not delivered
    assert not any(isinstance(n, Lost) for n in core.notices())
    assert core.next_deadline() == LOST_AFTER * HB == 5.0
    core.handle_timer(now=5.1)  # more than five heartbeats of silence
    assert any(isinstance(n, Lost) for n in core.notices())
    out = core.outgoing()
    assert isinstance(out[0], OpenDealer)  # fresh sockets
    hello = frames(out)[-1]
    assert hello["t"] == "hello" and hello["token"] == token
    assert link_of(peer) is Link.RECONNECTING and ready_of(peer) is None
    net.clock.now = 5.1
    net.send(peer, out)
    net.run()
    assert link_of(peer) is Link.LIVE and core.seat == 2
    assert [n.resumed for n in peer.of(Joined)] == [False, True]
    assert ready_of(peer) is not None  # the same question, asked again


def test_any_message_from_the_host_is_a_sign_of_life() -> None:
    net, peer = one_seat(now=0.0)
    net.clock.now = 4.0
    net.beat()  # a host ping (and a PUB heartbeat) at t=4
    peer.core.handle_timer(4.0 + LOST_AFTER * HB - 0.01)
    assert link_of(peer) is Link.LIVE and peer.core.notices() == []
    peer.core.handle_timer(4.0 + LOST_AFTER * HB)
    assert [type(n) for n in peer.core.notices()] == [Lost]


def test_silence_while_joining_says_hello_again() -> None:
    core = ClientCore(ClientSettings("ana"))
    core.start(0.0)
    core.outgoing()
    core.handle_timer(LOST_AFTER * HB - 0.1)
    assert core.outgoing() == []  # no pings before a welcome
    core.handle_timer(LOST_AFTER * HB)
    out = core.outgoing()
    assert isinstance(out[0], OpenDealer) and frames(out)[0]["t"] == "hello"
    assert core.link is Link.JOINING and core.notices() == []  # never joined: nothing lost


def test_pings_every_heartbeat_and_a_pong_times_the_round_trip() -> None:
    net, peer = one_seat(now=0.0)
    core = peer.core
    assert core.next_deadline() == HB  # the next ping
    request = core.ping(now=3.0)
    net.keep = lambda p, way, m: way == DEALER and m["t"] == "pong"
    net.run()
    net.clock.now = 3.25
    net.keep = lambda p, way, m: False
    net.release()
    assert peer.of(Pong) == [Pong(request, 0.25)] and core.latency == 0.25
    assert core.next_deadline() == 3.0 + HB  # any message sent counts as a heartbeat
    core.handle_timer(3.0 + HB)
    assert [m["t"] for m in frames(core.outgoing())] == ["ping"]


def test_a_host_that_forgot_the_connection_gets_a_new_hello() -> None:
    """A restarted host (or one that forgot this DEALER) answers not_joined: hello again
    with the token, at most once a heartbeat (§11)."""
    net, peer = one_seat(now=0.0)
    peer.conn = b"forgotten"  # ZeroMQ reconnected underneath: the host knows no such link
    net.tick(1.0)  # the core's ping carries its token
    assert [n.reason for n in peer.of(Lost)] == [
        "the host does not know this connection (restarted?)"]
    assert [m["t"] for m in peer.sent].count("hello") == 2 and link_of(peer) is Link.LIVE
    assert peer.of(Joined)[-1].resumed and ready_of(peer) is not None
    peer.conn = b"forgotten again"
    net.clock.now = 1.5
    peer.core.ping(1.5)
    net.run()  # within the heartbeat: told, not another hello
    assert len(peer.of(Lost)) == 1 and peer.of(Refused)[-1].code == "not_joined"
    net.clock.now = 2.0
    peer.core.ping(2.0)
    net.run()
    assert len(peer.of(Lost)) == 2 and link_of(peer) is Link.LIVE


def test_public_messages_relayed_from_another_link_are_no_sign_of_life() -> None:
    net, peer = one_seat(now=0.0)
    core = peer.core
    core.handle_timer(4.9)  # a ping: the next thing due is the silence
    heartbeat = encode({"t": "heartbeat", "seq": net.table.seq})
    core.receive(Channel.RELAYED, heartbeat, 4.95)
    assert core.next_deadline() == LOST_AFTER * HB
    core.receive(Channel.PUBLIC, heartbeat, 4.95)
    assert core.next_deadline() == 4.9 + HB


def test_a_broken_frame_is_a_problem_not_a_crash() -> None:
    _, peer = one_seat(now=0.0)
    peer.core.receive(Channel.DEALER, b"\xc1 not msgpack", 1.0)
    peer.core.receive(Channel.PUBLIC, encode({"t": "update", "seq": "x"}), 1.0)
    assert [type(n) for n in peer.core.notices()] == [Problem, Problem]
    assert link_of(peer) is Link.LIVE


# -- answers: retries and the rate limit (§10) ----------------------------------------------


def test_a_dropped_answer_is_open_again_after_two_heartbeats() -> None:
    net, peer = one_seat(now=10.0)
    core = peer.core
    pending = core.ready
    assert pending is not None
    lost: list[Message] = []

    def keep(p: Peer, way: str, message: Message) -> bool:
        if way == UP and message["t"] == "decide" and not lost:
            lost.append(message)
            return True
        return False

    net.keep = keep
    core.decide(pending.legal[0], 10.0)
    net.run()
    assert lost and ready_of(peer) is None  # answered, as far as the core knows
    assert core.next_deadline() == 10.0 + HB  # the ping comes first
    net.tick(10.0 + ANSWER_RETRY * HB - 0.01)
    assert ready_of(peer) is None and not peer.of(Problem)
    net.tick(10.0 + ANSWER_RETRY * HB)  # no ok, no error: the host never saw it
    assert [n.message for n in peer.of(Problem)] == [
        "no reply to an answer; the decision is open again"]
    again = ready_of(peer)
    assert again is not None and again.id == pending.id
    core.decide(again.legal[0], net.clock.now)
    net.run()
    assert [n.request for n in peer.of(Accepted)] == ["contribute", "decide"]
    assert [m["pending"] for m in peer.sent if m["t"] == "decide"] == [pending.id] * 2
    assert net.table.game.announced == announced(pending)


def test_flood_holds_everything_for_rate_hold_s() -> None:
    net, peer = one_seat(now=10.0)
    core = peer.core
    pending = core.ready
    assert pending is not None
    net.keep = lambda p, way, m: way == UP  # the server drops it, and says so once:
    core.decide(pending.legal[0], 10.0)
    net.run()
    limited = error_message(ProtocolError("flood", "slow down"))
    core.receive(Channel.DEALER, encode(limited), 10.0)
    assert core.next_deadline() == 10.0 + RATE_HOLD_S
    assert ready_of(peer) is None
    core.handle_timer(10.0 + RATE_HOLD_S - 0.01)
    assert core.outgoing() == [] and ready_of(peer) is None  # no ping, no answer while held
    core.handle_timer(10.0 + RATE_HOLD_S)
    assert [m["t"] for m in frames(core.outgoing())] == ["ping"]
    again = ready_of(peer)  # the answer may have been among the dropped: it is open again
    assert again is not None and again.id == pending.id
    net.keep = lambda p, way, m: False
    net.clock.now = 10.0 + RATE_HOLD_S
    core.decide(again.legal[0], net.clock.now)
    net.run()
    assert peer.of(Accepted)[-1].request == "decide"
    assert net.table.game.announced == announced(again)


def test_a_refused_answer_is_open_again_and_a_stale_one_is_not() -> None:
    _, peer = one_seat(now=0.0)
    core = peer.core
    pending = core.ready
    assert pending is not None
    illegal = error_message(ProtocolError("illegal", "R5.1: no", "R5.1"))
    request = core.decide(pending.legal[0], 0.0)
    core.outgoing()
    core.receive(Channel.DEALER, encode({**illegal, "id": request}), 0.1)
    assert ready_of(peer) == pending and [type(n) for n in core.notices()] == [Refused]
    request = core.decide(pending.legal[0], 0.2)
    core.outgoing()
    stale = error_message(ProtocolError("stale", "gone"))
    core.receive(Channel.DEALER, encode({**stale, "id": request}), 0.3)
    assert ready_of(peer) is None


# -- commit-reveal (§7) ---------------------------------------------------------------------


def first_offer_step(net: Net, players: dict[Peer, Bot]) -> None:
    play(net, players, until=lambda: any(e["kind"] == "reveals"
                                         for p in players for e in p.core.events))


def test_a_reveal_that_does_not_open_its_commitment_is_a_mismatch() -> None:
    broken: list[int] = []

    def change(events: list[Message]) -> bool:
        reveals = event_of(events, "reveals")
        if reveals is None:
            return False
        seat = min(reveals["reveals"])
        reveals["reveals"][seat]["nonce"] = bytes(32)
        broken.append(int(seat))
        return True

    net, players, watcher = game(rewrite=forging(change))
    first_offer_step(net, players)
    assert [(m.seat, "does not open" in m.reason) for m in watcher.of(Mismatch)] == [
        (broken[0], True)]
    assert watcher.core.mismatches == watcher.of(Mismatch)
    assert all(p.core.mismatches == [] for p in players)  # they saw the honest reveals


def test_an_engine_reveal_other_than_the_committed_offer_is_a_mismatch() -> None:
    shown: list[int] = []

    def change(events: list[Message]) -> bool:
        reveal, reveals = event_of(events, "reveal"), event_of(events, "reveals")
        if reveal is None or reveals is None:
            return False
        seat = min(reveals["reveals"])  # a seat that committed
        reveal["offers"][seat] = [*reveal["offers"][seat], 9]
        shown.append(int(seat))
        return True

    net, players, watcher = game(rewrite=forging(change))
    first_offer_step(net, players)
    [mismatch] = watcher.of(Mismatch)
    assert mismatch.seat == shown[0] and "the host revealed" in mismatch.reason


def test_the_client_reveals_what_it_committed_to() -> None:
    net, players, _ = game()
    first_offer_step(net, players)
    for peer in players:
        sent = {m["t"]: m for m in peer.sent if m["t"] in ("commit", "reveal")}
        commit, reveal = sent["commit"], sent["reveal"]
        assert commitment.verify(commit["commitment"], "core-game", 1, peer.core.seat or 0,
                                 reveal["offer"], reveal["nonce"])
        assert peer.core.secret is None  # spent once the reveals are out


def test_a_restarted_client_recommits_its_saved_secret_and_reveals_it() -> None:
    """The secret is saved before the commitment leaves; a client that restarts before the
    host saw it (or after) sends the same commitment, then reveals it, by itself."""
    net, players, _ = game(host_bots=2)
    [peer] = players
    saved: list[OfferSecret | None] = []
    peer.core.on_secret = saved.append
    net.keep = lambda p, way, m: way == UP and m["t"] == "commit"  # the commit is lost...
    play(net, players, until=lambda: bool(net.kept))
    secret = saved[-1]
    assert secret is not None and ready_of(peer) is None
    peer.core.close()  # ... and the client is gone
    net.run()
    net.keep = lambda p, way, m: False
    net.kept = []
    # A restarted program takes its seat over (its old link still looks live to the host).
    back = net.join("p2 again", token=peer.core.token, secret=secret, take_over=True)
    assert back.core.seat == 2
    sent = [m for m in back.sent if m["t"] in ("commit", "reveal")]
    assert [m["t"] for m in sent] == ["commit", "reveal"]
    assert sent[0]["commitment"] == secret.commitment
    assert (tuple(sent[1]["offer"]), sent[1]["nonce"]) == (secret.offer, secret.nonce)
    assert back.core.mismatches == [] and back.core.secret is None


def test_a_dropped_reveal_is_sent_again_by_itself() -> None:
    net, players, _ = game(host_bots=2)
    [peer] = players
    reveals: list[Message] = []

    def keep(p: Peer, way: str, message: Message) -> bool:
        if way == UP and message["t"] == "reveal":
            reveals.append(message)
            return len(reveals) == 1  # the first is lost on the way
        return False

    net.keep = keep
    play(net, players, until=lambda: bool(reveals))
    sent_at = net.clock.now
    play(net, players, until=lambda: len(reveals) == 2)
    assert net.clock.now >= sent_at + ANSWER_RETRY * HB  # not before the retry is due
    assert (reveals[1]["offer"], reveals[1]["nonce"]) == (reveals[0]["offer"],
                                                          reveals[0]["nonce"])
    first_offer_step(net, players)
    assert peer.core.mismatches == [] and peer.core.secret is None


def test_a_reveal_asked_without_the_secret_is_a_problem() -> None:
    net, players, _ = game(host_bots=2)
    [peer] = players
    net.keep = lambda p, way, m: way == UP and m["t"] == "reveal"
    play(net, players, until=lambda: bool(net.kept))
    net.keep = lambda p, way, m: False
    peer.core.close()
    back = net.join("p2 again", token=peer.core.token, take_over=True)  # no secret kept
    assert [n.message for n in back.of(Problem)] == [
        "the host asks for a reveal but this client does not hold the offer's secret; the "
        "host will play the default offer"]


# -- the fair deal (§15) --------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "change", "reason"), [
    ("fair_deal", lambda e: e.update(commitment=bytes(32)), "not the one it told"),
    ("fair_deal", lambda e: e["contributions"].update({"1": bytes(32)}),
     "contribution to the seed is not in the deal"),
    ("seed_reveal", lambda e: e.update(host_seed=bytes(32)), "does not open"),
    ("seed_reveal", lambda e: e.update(seed=e["seed"] ^ 1), "is not the one"),
])
def test_a_client_catches_a_host_that_breaks_the_fair_deal(
        kind: str, change: Callable[[Message], None], reason: str) -> None:
    def forge(events: list[Message]) -> bool:
        event = event_of(events, kind)
        if event is None:
            return False
        change(event)
        return True

    net, players, _ = game(rewrite=forging(forge, seat=1))  # told to seat 1 alone
    seat1 = next(p for p in players if p.core.seat == 1)
    assert seat1.core.contribution is not None
    play(net, players)
    # The first word of it, at the step that breaks (a forged deal breaks the seed check at
    # the end too); all of it about the host (seat -1).
    mismatches = seat1.of(Mismatch)
    assert mismatches and reason in mismatches[0].reason, mismatches
    assert {m.seat for m in mismatches} == {-1}
    assert all(p.core.mismatches == [] for p in players if p is not seat1)


def test_freeze_turns_wire_lists_into_tuples_all_the_way_down() -> None:
    value = freeze({"a": [1, [2, 3]], "b": {"c": [4]}, "d": 5})
    assert value == {"a": (1, (2, 3)), "b": {"c": (4,)}, "d": 5}
    hash(value["a"])


# -- a table that is gone: replaced by a new game, stopped, or over ---------------------------


def replace_table(net: Net, game_id: str = "another-game") -> None:
    """A new host at the same address: a fresh table (another game) behind the same
    connections, as ZeroMQ reconnects the old sockets to it by itself."""
    net.table = table(net.clock, host_bots=2, first_tm=2, game_id=game_id)


def test_a_seat_whose_token_a_new_game_refuses_is_gone_and_sends_it_no_more() -> None:
    net, peer = one_seat(now=0.0)
    replace_table(net)
    net.tick(1.0)  # the core's ping carries the old token: bad_token
    gone = peer.of(Gone)
    assert [g.why for g in gone] == [REPLACED]
    assert link_of(peer) is Link.CLOSED and peer.of(Closed)
    assert peer.of(Refused) == []  # said once as Gone, never as a refusal
    assert peer.core.token is None and ready_of(peer) is None
    sent = len(peer.sent)
    for now in (2.0, 5.0, 30.0):
        net.tick(now)
    assert len(peer.sent) == sent and peer.core.next_deadline() is None
    assert len(peer.of(Gone)) == 1


# -- one seat, two programs with its token (two terminals, one state folder; §3) -------------


def test_a_second_program_with_a_live_seats_token_is_refused_and_the_seat_stays() -> None:
    net, ana = one_seat(now=0.0)
    other = net.join("Ana", token=ana.core.token)
    refused = other.of(Refused)
    assert [r.code for r in refused] == ["seat_in_use"] and refused[0].request == "hello"
    assert "Ana sits at seat 2 already" in refused[0].message
    assert link_of(other) is Link.CLOSED
    assert link_of(ana) is Link.LIVE and ana.of(Gone) == []
    assert net.table.seats[2].conn == ana.conn


def test_taking_a_seat_over_tells_the_other_program_which_stops_for_good() -> None:
    net, ana = one_seat(now=0.0)
    bea = net.join("Ana", token=ana.core.token, take_over=True)
    assert bea.of(Joined) and bea.core.seat == 2 and link_of(bea) is Link.LIVE
    assert [g.why for g in ana.of(Gone)] == [TAKEN_OVER] and link_of(ana) is Link.CLOSED
    assert "took seat 2 (Ana) over" in ana.of(Gone)[0].detail
    assert ana.core.token is not None  # the token is still the seat's: only this side stops
    sent = len(ana.sent)
    for k in range(1, 4 * LOST_AFTER):  # long past any reconnect: nobody takes it back
        net.tick(k * HB)
    assert len(ana.sent) == sent and ana.core.next_deadline() is None
    assert net.table.seats[2].conn == bea.conn and link_of(bea) is Link.LIVE
    assert len(bea.of(Joined)) == 1 and bea.of(Gone) == []


def test_a_take_over_is_asked_in_the_first_hello_only() -> None:
    net, ana = one_seat(now=0.0)
    bea = net.join("Ana", token=ana.core.token, take_over=True)
    net.keep = lambda peer, way, message: peer is bea and way != UP  # bea hears nothing
    for k in range(1, LOST_AFTER + 2):
        net.tick(k * HB)
    hellos = [m for m in bea.sent if m["t"] == "hello"]
    assert len(hellos) >= 2 and hellos[0].get("take_over") is True
    assert all("take_over" not in m for m in hellos[1:])
    assert len({m["client"] for m in hellos}) == 1


def test_a_program_reconnecting_while_its_old_link_looks_live_keeps_its_seat() -> None:
    net, ana = one_seat(now=0.0)
    # The host hears Ana's pings but Ana hears nothing: she reconnects with fresh sockets
    # while the host still counts her old connection as live.
    net.keep = lambda peer, way, message: peer is ana and way != UP \
        and sum(m["t"] == "hello" for m in ana.sent) < 2  # (until her new hello)
    for k in range(1, LOST_AFTER + 2):
        net.tick(k * HB)
    assert ana.of(Lost) and ana.of(Refused) == [] and ana.of(Gone) == []
    assert [j.resumed for j in ana.of(Joined)] == [False, True]
    assert link_of(ana) is Link.LIVE and net.table.seats[2].conn == ana.conn


def test_a_program_taken_over_that_missed_the_news_stops_when_it_reconnects() -> None:
    net, ana = one_seat(now=0.0)
    net.keep = lambda peer, way, message: peer is ana and message.get("t") == "taken_over"
    bea = net.join("Ana", token=ana.core.token, take_over=True)
    net.keep = lambda peer, way, message: False
    assert ana.of(Gone) == []
    for k in range(1, 3):  # her ping: not_joined (the host forgot her link), then her hello
        net.tick(k * HB)
    assert [g.why for g in ana.of(Gone)] == [TAKEN_OVER] and link_of(ana) is Link.CLOSED
    assert net.table.seats[2].conn == bea.conn and bea.of(Gone) == []


def test_a_spectator_reconnected_to_a_new_game_says_the_table_is_gone() -> None:
    net, peer = one_seat(now=0.0)
    watcher = net.join("eve", role="spectator")
    peer.core.decide(asked(peer).legal[0], net.clock.now)
    net.run()
    seq, state = watcher.core.seq, watcher.core.state
    assert seq > 0
    replace_table(net)  # its heartbeat is behind what the spectator saw
    net.tick(1.0)
    assert [g.why for g in watcher.of(Gone)] == [REPLACED]
    assert link_of(watcher) is Link.CLOSED
    assert (watcher.core.seq, watcher.core.state) == (seq, state)  # the old game, untouched
    assert watcher.of(Problem) == []


def test_a_reconnect_welcome_to_another_seed_commitment_is_another_game() -> None:
    net, _ = one_seat(now=0.0)
    watcher = net.join("eve", role="spectator")
    # The same game id (a host told to use it) but another seed: not the game watched.
    net.table = table(net.clock, host_bots=2, first_tm=2, seed=6)
    watcher.conn = b"forgotten"
    net.clock.now = 1.0
    watcher.core.request_snapshot(1.0)
    net.run()
    assert [g.why for g in watcher.of(Gone)] == [REPLACED]


def test_a_restarted_host_of_the_same_game_is_no_new_game() -> None:
    net, peer = one_seat(now=0.0)
    peer.conn = b"forgotten"
    net.tick(1.0)
    assert peer.of(Gone) == [] and link_of(peer) is Link.LIVE


def test_a_heartbeat_behind_the_state_asks_a_snapshot_and_nothing_more() -> None:
    net, peer = one_seat(now=0.0)
    before = asked_snapshots(peer)
    peer.core.receive(Channel.PUBLIC, encode({"t": "heartbeat", "seq": net.table.seq - 1}),
                      0.5)
    net.run()
    assert asked_snapshots(peer) == before + 1
    assert link_of(peer) is Link.LIVE and peer.of(Gone) == [] and ready_of(peer) is not None


def test_a_host_silent_for_give_up_after_seconds_is_gone() -> None:
    clock = FakeClock(0.0)
    net = Net(table(clock, host_bots=2, first_tm=2), clock)
    peer = net.join("Ana", give_up_after=30.0)
    core = peer.core
    core.handle_timer(LOST_AFTER * HB)  # lost at t=5: reconnecting from then on
    notices = core.notices()
    assert [type(n) for n in notices] == [Lost]
    for now in range(6, 35):  # hellos into the void
        core.handle_timer(float(now))
        assert not any(isinstance(n, Gone) for n in core.notices())
    assert core.next_deadline() == LOST_AFTER * HB + 30.0
    core.handle_timer(LOST_AFTER * HB + 30.0)
    gone = [n for n in core.notices() if isinstance(n, Gone)]
    assert [g.why for g in gone] == [STOPPED] and "30 s" in gone[0].detail
    assert core.closed and core.next_deadline() is None
    assert core.token is not None  # a host resumed later still knows it
    assert isinstance(core.outgoing()[-1], CloseSockets)


def test_a_welcome_before_give_up_after_resets_the_count() -> None:
    clock = FakeClock(0.0)
    net = Net(table(clock, host_bots=2, first_tm=2), clock)
    peer = net.join("Ana", give_up_after=30.0)
    peer.core.handle_timer(LOST_AFTER * HB)
    net.clock.now = 20.0
    net.send(peer, peer.core.outgoing())  # the hello reaches the host at last
    net.run()
    assert link_of(peer) is Link.LIVE
    net.tick(40.0)
    assert peer.of(Gone) == [] and link_of(peer) is Link.LIVE


def test_no_reconnect_after_the_game_is_over() -> None:
    net, players, watcher = game()
    play(net, players)
    for peer in [*players, watcher]:
        core = peer.core
        assert core.result is not None
        core.notices()
        core.outgoing()
        now = net.clock.now + LOST_AFTER * HB + 1  # the host stopped after its game
        core.handle_timer(now)
        notices = core.notices()
        assert [type(n) for n in notices] == [Gone, Closed]
        assert isinstance(notices[0], Gone) and notices[0].why == OVER
        assert core.outgoing() == [CloseSockets()]  # no hello: nothing to come back to
        assert core.next_deadline() is None


def test_pending_details_come_back_from_the_wire_in_the_engine_shapes() -> None:
    """Seat maps in a pending's detail (counts, capacity, sizes) are keyed by int seats
    in-process; the wire writes keys as text, and the client turns them back, so a bot's
    ``detail["capacity"][view.seat]`` works over the network too (docs/bot-view.md §6)."""
    game = Game.new(4, 11)
    bots = [load_bot("greedy", seed) for seed in range(4)]
    kinds = set()
    while game.phase != OVER:
        pending = game.pending
        assert pending is not None
        kinds.add(pending.kind)
        assert freeze(to_wire(pending.detail)) == pending.detail
        seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
        game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))
    assert {"offer", "store", "take", "turn"} <= kinds
