"""The host's table without sockets (host/table.py; docs/protocol.md §3-§11).

Messages go through ``protocol`` encoding and decoding, as over the network; the clock is a
fake one, so deadlines and heartbeats need no sleeping.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from support.clock import FakeClock
from support.positions import snapshot
from support.table import SPECTATOR, A, B, Message, make_table, seated, send

from mundus_net.bots import load_bot
from mundus_net.engine.decisions import Decision
from mundus_net.engine.record import GameRecord
from mundus_net.engine.view import PlayerView
from mundus_net.host.gamelog import dumps
from mundus_net.host.offerstep import OfferStage
from mundus_net.host.replay import LOGGED_INPUTS, ReplayRefused, replay_input
from mundus_net.host.table import Table, TableSettings, TableStage
from mundus_net.protocol.codec import decision_to_wire
from mundus_net.protocol.commitment import commit, new_nonce, verify

SECRET_KINDS = ("Offer", "Gift", "Store", "PirateDiscard")


def fingerprint(table: Table) -> tuple[Any, ...]:
    """Everything a refused message must leave as it was."""
    table.output.flush()
    return (snapshot(table.game), table.seq, table.output.public_state(),
            {s: table.pending_of(s) for s in range(table.players)}, table.record.to_json())


def pending(table: Table, seat: int) -> Message:
    p: Message | None = table.output.private_state(seat)["pending"]
    assert p is not None, f"seat {seat} has nothing pending"
    return p


def public_events(table: Table) -> list[Message]:
    table.output.flush()
    return table.output.public_history()


def refused(table: Table, conn: bytes, code: str, **message: Any) -> Message:
    """``message`` is refused with ``code`` and changes nothing."""
    before = fingerprint(table)
    reply = send(table, conn, **message)
    assert reply["t"] == "error", reply
    assert reply["code"] == code, reply
    assert fingerprint(table) == before
    return reply


def to_offer_step(table: Table, token_a: str, n: int = 2) -> None:
    """Seat 1 (the TM) announces ``n``: the offer step begins."""
    p = pending(table, 1)
    assert p["kind"] == "announce"
    assert send(table, A, t="decide", token=token_a, pending=p["id"],
                decision={"kind": "announce", "n": n})["t"] == "ok"
    table.advance()


def commit_offer(table: Table, conn: bytes, token: str, seat: int,
                 offer: Sequence[int] | None = None) -> tuple[tuple[int, ...], bytes, bytes]:
    p = pending(table, seat)
    assert p["kind"] == "commit"
    cards = tuple(sorted(offer if offer is not None else p["legal"][0]["cards"]))
    nonce = new_nonce()
    digest = commit(table.game_id, p["detail"]["round"], seat, cards, nonce)
    assert send(table, conn, t="commit", token=token, pending=p["id"],
                commitment=digest)["t"] == "ok"
    table.advance()
    return cards, nonce, digest


# -- joining ----------------------------------------------------------------------------------


def test_seats_in_join_order_host_bots_first_tokens_and_table_full() -> None:
    table = make_table()
    assert table.names[0] and table.names[1:] == ["", ""]
    a = send(table, A, t="hello", name="Ana", role="player", id=7)
    assert a["t"] == "welcome" and a["id"] == 7 and a["seat"] == 1 and a["game"] == "test-game"
    assert len(a["token"]) == 32 and int(a["token"], 16) >= 0
    assert a["names"] == [table.names[0], "Ana", ""]
    assert a["options"] == {"promo": False, "round_limit": None, "decision_seconds": None,
                            "first_tm": 1, "rules": 2}
    assert {c["id"] for c in a["deck"]} == {c.id for c in table.deck.cards}
    # a retried hello on the same connection keeps its seat rather than taking another
    again = send(table, A, t="hello", name="Ana", role="player")
    assert (again["seat"], again["token"]) == (1, a["token"])
    assert not table.started
    b = send(table, B, t="hello", name="Bo", role="player", bot=True)
    assert b["seat"] == 2 and b["token"] != a["token"]
    assert table.output.public_state()["table"]["started"]
    full = send(table, b"late", t="hello", name="Cy", role="player")
    assert full["code"] == "table_full"
    watcher = send(table, SPECTATOR, t="hello", name="Eve", role="spectator")
    assert watcher["t"] == "welcome" and watcher["seat"] is None and watcher["token"] is None
    kinds = [(e["kind"], e.get("seat"), e.get("bot")) for e in public_events(table)
             if e["kind"] in ("joined", "spectator", "started")]
    assert kinds == [("joined", 0, True), ("joined", 1, False), ("joined", 2, True),
                     ("started", None, None), ("spectator", None, None)]
    assert table.output.public_state()["table"]["bots"] == [True, False, True]


def test_the_game_starts_when_every_seat_is_taken_and_the_seed_stays_secret() -> None:
    table = make_table()
    send(table, A, t="hello", name="Ana", role="player")
    before = public_events(table)
    assert not any(e["kind"] == "setup" for e in before)  # no engine event before the start
    assert table.output.public_state()["pending"] is None
    assert table.output.private_state(1)["pending"] is None
    send(table, B, t="hello", name="Bo", role="player")
    events = public_events(table)
    kinds = [e["kind"] for e in events]
    assert kinds.index("started") < kinds.index("setup")
    setup = events[kinds.index("setup")]
    assert "seed" not in setup  # it would tell every card to come
    assert table.output.public_state()["table"]["started"] is True
    assert pending(table, 1)["kind"] == "announce"


def test_resuming_a_seat_with_its_token_and_a_wrong_token() -> None:
    clock = FakeClock()
    table, token_a, _ = seated(clock)
    # A's connection is live: another program with the token is refused (R: §3) ...
    refused(table, b"new-conn", "seat_in_use", t="hello", name="Ana", role="player",
            token=token_a)
    # ... unless it takes the seat over; then A's connection is told
    reply = send(table, b"new-conn", t="hello", name="Ana", role="player", token=token_a,
                 take_over=True)
    assert reply["seat"] == 1 and reply["token"] == token_a
    _, told = table.drain()
    assert (A, {"t": "taken_over", "seat": 1,
                "message": "another client took seat 1 (Ana) over with its token"}) in told
    # the old connection no longer speaks for the seat
    assert send(table, A, t="ping")["t"] == "pong"
    assert send(table, A, t="snapshot")["code"] == "not_joined"
    refused(table, b"other", "bad_token", t="hello", name="Mallory", role="player",
            token="0" * 32)


# -- refusals leave everything as it was ------------------------------------------------------


def test_every_seat_action_needs_its_seat_token() -> None:
    table, token_a, _ = seated()
    p = pending(table, 1)
    decision = {"kind": "announce", "n": 3}
    reply = refused(table, A, "bad_token", t="decide", token="f" * 32, pending=p["id"],
                    decision=decision)
    assert "token" in reply["message"]
    refused(table, b"stranger", "not_joined", t="decide", token=token_a, pending=p["id"],
            decision=decision)
    refused(table, A, "bad_token", t="chat", token="0" * 32, text="hi")


def test_a_token_acts_for_its_seat_whatever_the_connection() -> None:
    table, token_a, _ = seated()
    p = pending(table, 1)
    # B's connection holding A's token proves A's seat: it acts for seat 1
    assert send(table, B, t="decide", token=token_a, pending=p["id"],
                decision={"kind": "announce", "n": 3})["t"] == "ok"
    assert table.game.announced == 3


def test_a_decision_out_of_turn_or_for_another_seat_is_refused() -> None:
    table, _, token_b = seated()
    p = pending(table, 1)
    assert table.output.private_state(2)["pending"] is None
    # seat 2 answers seat 1's question with its own token: it has nothing to decide
    refused(table, B, "not_pending", t="decide", token=token_b, pending=p["id"] + 5,
            decision={"kind": "announce", "n": 3})
    reply = refused(table, B, "stale", t="decide", token=token_b, pending=p["id"],
                    decision={"kind": "announce", "n": 3})
    assert "not the seat's current" in reply["message"]


def test_an_illegal_decision_is_refused_with_its_rule() -> None:
    table, token_a, _ = seated()
    p = pending(table, 1)
    reply = refused(table, A, "illegal", t="decide", token=token_a, pending=p["id"],
                    decision={"kind": "announce", "n": 5})
    assert reply["rule"] == "R5.1" and reply["message"].startswith("R5.1")
    # §10: a decision of another kind than the one asked is not_pending, not illegal
    reply = refused(table, A, "not_pending", t="decide", token=token_a, pending=p["id"],
                    decision={"kind": "end_turn"})
    assert reply["message"] == "the seat is asked announce, not end_turn"
    reply = refused(table, A, "bad_field", t="decide", token=token_a, pending=p["id"],
                    decision={"kind": "announce", "n": "three"})
    assert "'n'" in reply["message"]
    refused(table, A, "not_pending", t="decide", token=token_a, pending=p["id"],
            decision={"kind": "offer", "cards": [1, 2]})


def test_a_replayed_decision_is_stale() -> None:
    table, token_a, _ = seated()
    p = pending(table, 1)
    message = {"t": "decide", "token": token_a, "pending": p["id"],
               "decision": {"kind": "announce", "n": 2}}
    assert send(table, A, **message)["t"] == "ok"
    table.advance()
    refused(table, A, "stale", **message)


def test_spectators_may_not_act() -> None:
    table, token_a, _ = seated()
    send(table, SPECTATOR, t="hello", name="Eve", role="spectator")
    p = pending(table, 1)
    refused(table, SPECTATOR, "spectator", t="decide", token=token_a, pending=p["id"],
            decision={"kind": "announce", "n": 3})
    refused(table, SPECTATOR, "spectator", t="chat", token=token_a, text="boo")
    refused(table, SPECTATOR, "bad_field", t="hello", name="Eve", role="spectator",
            token=token_a)


def test_commit_and_reveal_outside_their_moment() -> None:
    table, token_a, _ = seated()
    p = pending(table, 1)
    refused(table, A, "commit_phase", t="commit", token=token_a, pending=p["id"],
            commitment=bytes(32))
    refused(table, A, "commit_phase", t="reveal", token=token_a, pending=p["id"],
            offer=[1, 2], nonce=bytes(32))


# -- commit and reveal ------------------------------------------------------------------------


def test_commit_reveal_keeps_offers_secret_until_every_offer_is_fixed() -> None:
    table, token_a, token_b = seated()
    to_offer_step(table, token_a)
    sent_a = table.drain()
    # both people are asked to commit; the host bot has committed already
    pa, pb = pending(table, 1), pending(table, 2)
    assert (pa["kind"], pb["kind"]) == ("commit", "commit")
    assert pa["detail"] == {"n": 2, "least": 2, "most": 2, "round": 1}
    assert table.output.public_state()["table"]["committed"] == [0]
    offer_a, nonce_a, digest_a = commit_offer(table, A, token_a, 1)
    # seat 2's question did not change when seat 1 committed: same id
    assert pending(table, 2)["id"] == pb["id"]
    assert table.output.private_state(1)["pending"] is None
    before = table.drain()
    offer_b, nonce_b, digest_b = commit_offer(table, B, token_b, 2)
    after = table.drain()

    # nothing published or sent before the commitments shows an offer's cards
    messages = [*sent_a[0], *before[0], *[m["private"] for _, m in sent_a[1] + before[1]]]
    for message in messages:
        for event in message["events"]:
            assert event["kind"] not in ("offer", "reveal", "reveals"), event
    events = [e for u in after[0] for e in u["events"]]
    kinds = [e["kind"] for e in events]
    assert kinds.index("committed") < kinds.index("commitments")
    commitments = events[kinds.index("commitments")]["commitments"]
    assert set(commitments) == {"0", "1", "2"}
    assert commitments["1"] == digest_a and commitments["2"] == digest_b
    # reveals are asked only after the commitments are published
    pa, pb = pending(table, 1), pending(table, 2)
    assert (pa["kind"], pb["kind"]) == ("reveal", "reveal")
    assert send(table, A, t="reveal", token=token_a, pending=pa["id"], offer=list(offer_a),
                nonce=nonce_a)["t"] == "ok"
    assert send(table, B, t="reveal", token=token_b, pending=pb["id"], offer=list(offer_b),
                nonce=nonce_b)["t"] == "ok"
    table.advance()
    events = [e for u in table.drain()[0] for e in u["events"]]
    kinds = [e["kind"] for e in events]
    reveal = events[kinds.index("reveal")]
    reveals = events[kinds.index("reveals")]
    assert kinds.index("reveals") == kinds.index("reveal") + 1
    assert reveal["offers"]["1"] == list(offer_a) and reveal["offers"]["2"] == list(offer_b)
    for seat, opened in reveals["reveals"].items():
        assert verify(commitments[seat], "test-game", 1, int(seat), opened["offer"],
                      opened["nonce"])
        assert opened["offer"] == reveal["offers"][seat]
    assert [(o.seat, o.offer) for o in table.record.offers] == [
        (0, tuple(reveal["offers"]["0"])), (1, offer_a), (2, offer_b)]


def test_a_reveal_that_does_not_open_its_commitment_plays_the_default() -> None:
    table, token_a, token_b = seated()
    to_offer_step(table, token_a)
    hand_a = PlayerView(table.game, 1).hand
    offer_a, _, _ = commit_offer(table, A, token_a, 1, offer=hand_a[-2:])
    offer_b, nonce_b, _ = commit_offer(table, B, token_b, 2)
    pa = pending(table, 1)
    reply = send(table, A, t="reveal", token=token_a, pending=pa["id"], offer=list(offer_a),
                 nonce=new_nonce())
    assert reply["code"] == "commit_mismatch"
    pb = pending(table, 2)
    assert send(table, B, t="reveal", token=token_b, pending=pb["id"], offer=list(offer_b),
                nonce=nonce_b)["t"] == "ok"
    table.advance()
    events = public_events(table)
    violation = next(e for e in events if e["kind"] == "violation")
    assert violation == {"kind": "violation", "seat": 1, "reason": "commit_mismatch"}
    reveal = next(e for e in events if e["kind"] == "reveal")
    assert reveal["offers"]["1"] == list(hand_a[:2])  # the default: the lowest cards
    reveals = next(e for e in events if e["kind"] == "reveals")["reveals"]
    assert "1" not in reveals and "2" in reveals
    assert table.record.violations[0]["seat"] == 1
    assert (1, "default") in [(d.seat, d.by) for d in table.record.decisions]
    assert not table.over and table.game.phase != "offer"  # the game goes on


def test_a_reveal_of_an_offer_the_seat_cannot_make_plays_the_default() -> None:
    table, token_a, token_b = seated()
    to_offer_step(table, token_a)
    hand_a = PlayerView(table.game, 1).hand
    missing = next(c for c in range(1, 10) if c not in hand_a)
    bogus = (missing, missing)
    offer, nonce, _ = commit_offer(table, A, token_a, 1, offer=bogus)
    commit_offer(table, B, token_b, 2)
    pa = pending(table, 1)
    reply = send(table, A, t="reveal", token=token_a, pending=pa["id"], offer=list(offer),
                 nonce=nonce)
    assert reply["code"] == "illegal" and reply["rule"] == "R5.2"
    assert any(e["kind"] == "violation" and e["seat"] == 1 for e in public_events(table))


def test_pending_ids_grow_and_a_seat_keeps_its_id_while_its_question_stays() -> None:
    table, token_a, _ = seated()
    first = pending(table, 1)["id"]
    to_offer_step(table, token_a)
    assert pending(table, 1)["id"] > first
    assert pending(table, 2)["id"] > first and pending(table, 2)["id"] != pending(table, 1)["id"]


# -- deadlines, liveness ----------------------------------------------------------------------


def test_people_have_no_deadline_unless_the_table_sets_one() -> None:
    clock = FakeClock()
    table, _, _ = seated(clock)
    assert pending(table, 1)["deadline_ms"] is None
    clock.now += 10**6
    table.advance()
    assert pending(table, 1)["kind"] == "announce"
    assert not any(e["kind"] == "timeout" for e in public_events(table))


def test_a_deadline_plays_the_default_decision() -> None:
    clock = FakeClock()
    table, _, _ = seated(clock, decision_seconds=30)
    p = pending(table, 1)
    assert p["deadline_ms"] == 30000
    clock.now += 29.5
    table.advance()
    assert pending(table, 1)["id"] == p["id"] and pending(table, 1)["deadline_ms"] == 500
    clock.now += 1
    table.advance()
    assert table.game.announced == 2  # the default announcement
    events = public_events(table)
    assert {"kind": "timeout", "seat": 1, "phase": "announce"} in events
    assert table.record.decisions[0].by == "default"
    assert table.record.violations[0]["reason"] == "timeout"
    assert pending(table, 1)["kind"] == "commit"  # the game went on: offers now


def test_a_missed_commit_plays_the_default_offer_and_the_others_go_on() -> None:
    clock = FakeClock()
    table, token_a, token_b = seated(clock, decision_seconds=30)
    to_offer_step(table, token_a)
    offer_b, nonce_b, _ = commit_offer(table, B, token_b, 2)
    clock.now += 31
    table.advance()
    events = public_events(table)
    assert {"kind": "timeout", "seat": 1, "phase": "commit"} in events
    commitments = next(e for e in events if e["kind"] == "commitments")["commitments"]
    assert set(commitments) == {"0", "2"}
    assert table.output.private_state(1)["pending"] is None
    pb = pending(table, 2)
    assert send(table, B, t="reveal", token=token_b, pending=pb["id"], offer=list(offer_b),
                nonce=nonce_b)["t"] == "ok"
    table.advance()
    reveal = next(e for e in public_events(table) if e["kind"] == "reveal")
    assert reveal["offers"]["2"] == list(offer_b)


def test_a_missed_reveal_plays_the_default_offer() -> None:
    clock = FakeClock()
    table, token_a, token_b = seated(clock, decision_seconds=30)
    to_offer_step(table, token_a)
    commit_offer(table, A, token_a, 1)
    commit_offer(table, B, token_b, 2)
    pb = pending(table, 2)
    clock.now += 31
    table.advance()
    events = public_events(table)
    assert {"kind": "timeout", "seat": 1, "phase": "reveal"} in events
    assert {"kind": "timeout", "seat": 2, "phase": "reveal"} in events
    assert any(e["kind"] == "reveal" for e in events)
    send(table, B, t="ping")  # back from 31 s of silence (that is a change of its own)
    refused(table, B, "stale", t="reveal", token=token_b, pending=pb["id"], offer=[1, 2],
            nonce=bytes(32))


def test_network_bots_have_the_bot_deadline() -> None:
    clock = FakeClock()
    table = make_table(clock, bot_seconds=5)
    send(table, A, t="hello", name="Ana", role="player", bot=True)
    send(table, B, t="hello", name="Bo", role="player")
    table.advance()
    assert pending(table, 1)["deadline_ms"] == 5000
    clock.now += 5
    table.advance()
    assert {"kind": "timeout", "seat": 1, "phase": "announce"} in public_events(table)
    assert pending(table, 2)["deadline_ms"] is None  # a person: no deadline at this table


def test_silent_seats_are_marked_away_and_back_when_they_speak() -> None:
    clock = FakeClock()
    table, token_a, _ = seated(clock, heartbeat_ms=1000)
    clock.now += 4.9
    send(table, B, t="ping")
    clock.now += 0.2
    table.advance()
    assert table.output.public_state()["table"]["connected"] == [True, False, True]
    assert {"kind": "away", "seat": 1} in public_events(table)
    send(table, A, t="ping", token=token_a)
    assert table.output.public_state()["table"]["connected"] == [True, True, True]
    assert public_events(table)[-1] == {"kind": "back", "seat": 1}
    assert send(table, A, t="bye", token=token_a)["t"] == "ok"
    assert public_events(table)[-1] == {"kind": "away", "seat": 1}
    assert send(table, b"again", t="hello", name="Ana", role="player",
                token=token_a)["seat"] == 1
    assert public_events(table)[-1] == {"kind": "back", "seat": 1}


# -- chat, snapshots, privacy -----------------------------------------------------------------


def test_chat_is_published_with_the_seat_and_name() -> None:
    table, token_a, _ = seated()
    assert send(table, A, t="chat", token=token_a, text="hola")["t"] == "ok"
    assert public_events(table)[-1] == {"kind": "chat", "seat": 1, "name": "Ana",
                                        "text": "hola"}
    refused(table, A, "bad_field", t="chat", token=token_a, text="x" * 201)


def test_snapshots_agree_with_the_updates() -> None:
    table, token_a, _ = seated()
    to_offer_step(table, token_a)
    updates, _ = table.drain()
    snap = send(table, A, t="snapshot", token=token_a)
    assert snap["seq"] == table.seq == updates[-1]["seq"]
    state: dict[str, Any] = {}
    for update in updates:  # the first update has every key, the next ones what changed
        state.update(update["changed"])
    assert snap["state"] == state
    assert set(updates[0]["changed"]) == set(state)
    assert all(set(u["changed"]) < set(state) for u in updates[1:])
    assert [u["seq"] for u in updates] == list(range(1, table.seq + 1))
    assert snap["events"] == [e for u in updates for e in u["events"]]
    private = snap["private"]
    assert private["seat"] == 1 and private["pending"]["kind"] == "commit"
    assert any(e["kind"] == "deal" and "cards" in e for e in private["events"])
    watcher = send(table, SPECTATOR, t="hello", name="Eve", role="spectator")
    assert watcher["seat"] is None
    spectator_snap = send(table, SPECTATOR, t="snapshot")
    assert spectator_snap["private"] is None


def _drive_to_the_end(table: Table, clock: FakeClock) -> list[tuple[int, Message]]:
    """Let deadlines decide for the people until the game ends; return the private
    messages (with their seats) sent on the way."""
    privates: list[tuple[int, Message]] = []
    for _ in range(5000):
        if table.over:
            break
        clock.now += 31
        table.advance()
        privates += [(m["private"]["seat"], m["private"]) for _, m in table.drain()[1]]
    assert table.over
    return privates


def test_private_information_never_reaches_the_public_updates() -> None:
    clock = FakeClock()
    table, _, _ = seated(clock, decision_seconds=30, seed=3, round_limit=4)
    privates = _drive_to_the_end(table, clock)
    for event in public_events(table):
        if event["kind"] in ("deal", "unstore", "store", "offer", "gift"):
            assert "cards" not in event and "card" not in event, event
        if event["kind"] == "decision" and event["type"] in SECRET_KINDS:
            assert "decision" not in event, event
        if event["kind"] != "seed_reveal":  # §15: revealed once the game is over
            assert "seed" not in event and "host_seed" not in event
    events = public_events(table)
    assert [e["kind"] for e in events].index("seed_reveal") > \
        [e["kind"] for e in events].index("game_over")
    hands_seen = {seat for seat, m in privates if m["hand"]}
    assert hands_seen == {1, 2}
    dealt = {seat: [e.private[seat]["cards"] for e in table.game.log if e.kind == "deal"
                    and e.private] for seat in (1, 2)}
    for seat, message in privates:
        deals = [e["cards"] for e in message["events"] if e["kind"] == "deal"]
        assert all(tuple(cards) in dealt[seat] for cards in deals)  # its own cards only
    assert table.output.private_state(1)["pending"] is None


def test_the_record_replays_to_the_same_game() -> None:
    clock = FakeClock()
    table, _, _ = seated(clock, decision_seconds=30, seed=5, round_limit=3)
    _drive_to_the_end(table, clock)
    record = GameRecord.from_json(table.record.to_json())
    assert record.result == table.game.result
    assert record.names == table.names
    replayed = record.replay()
    assert snapshot(replayed) == snapshot(table.game)
    assert {d.by for d in record.decisions} == {"bot", "default"}
    assert len(record.offers) == 3  # the host bot's, one per round: the people timed out


def test_a_table_of_host_bots_plays_to_the_end() -> None:
    table = Table(4, TableSettings(game_id="bots"), seed=2,
                  bots=[load_bot("greedy", i) for i in range(4)], clock=FakeClock())
    assert table.started
    while table.advance(budget=25):
        table.drain()
    result = table.game.result
    assert table.over and result is not None and table.record.result == result
    assert table.output.public_state()["result"]["winners"] == list(result.winners)
    record = GameRecord.from_json(table.record.to_json())
    assert record.replay().result == table.game.result
    assert all(o.commitment for o in record.offers)
    assert send(table, SPECTATOR, t="hello", name="Eve", role="spectator")["t"] == "welcome"


class _Broken:
    """A strategy that fails: the host plays the default for it and goes on."""

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        raise RuntimeError("no idea")


class _Cheat:
    """A strategy that returns decisions that are not legal."""

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        from mundus_net.engine.decisions import Announce, Offer

        return Offer((10, 10, 10)) if view.phase == "offer" else Announce(9)


@pytest.mark.parametrize("bot", [_Broken(), _Cheat()], ids=["raises", "illegal"])
def test_a_failing_host_bot_gets_the_default(bot: Any, capsys: pytest.CaptureFixture[str]
                                             ) -> None:
    table = Table(2, TableSettings(round_limit=2), seed=1, bots=[bot, load_bot("random", 1)],
                  clock=FakeClock())
    while table.advance(budget=50):
        pass
    assert table.over
    violations = [e for e in public_events(table) if e["kind"] == "violation"]
    assert violations and all(v["seat"] == 0 for v in violations)
    assert {d.by for d in table.record.decisions if d.seat == 0} == {"default"}


def test_legal_decisions_are_sent_as_wire_decisions() -> None:
    table, _, _ = seated()
    p = pending(table, 1)
    assert p["legal"] == [decision_to_wire(d) for d in table.game.legal(1)]


def test_an_ok_clears_the_answered_decision_without_a_private_message() -> None:
    """§6: the ok to an answer says the decision is gone; a private message follows only when
    something else of the seat's private state changed. A timeout's default, which has no ok,
    is told by a private message."""
    clock = FakeClock()
    table, token_a, _ = seated(clock, decision_seconds=5.0)
    table.drain()
    p = pending(table, 1)
    assert p["kind"] == "announce"
    hand = table.output.private_state(1)["hand"]
    assert send(table, A, t="decide", token=token_a, pending=p["id"],
                decision={"kind": "announce", "n": 2})["t"] == "ok"
    table.advance()
    _, privates = table.drain()
    to_a = [m["private"] for conn, m in privates if conn == A]
    # the announcement changes nothing else of seat 1's: no message only to clear it; its
    # next question (the commit) comes in a private message
    assert not any(m["pending"] is None and not m["events"] and m["hand"] == hand
                   for m in to_a)
    assert [m["pending"]["kind"] for m in to_a] == ["commit"]
    # seat 2 lets its commit time out: the default is played and a private message says so
    commit_id = pending(table, 2)["id"]
    clock.now += 10.0
    table.advance()
    _, privates = table.drain()
    to_b = [m["private"] for conn, m in privates if conn == B]
    assert to_b and all(m["pending"] is None or m["pending"]["id"] != commit_id for m in to_b)


# -- replaying the game log: host.replay.replay_input, Table.resume ---------------------------


class Rows:
    """A journal that keeps every row the table writes as the game log stores it (canonical
    JSON), with the clock's time of the write: enough to replay the table elsewhere."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.rows: list[tuple[float, str, str]] = []

    def write(self, kind: str, data: dict[str, Any]) -> None:
        self.rows.append((self.clock.now, kind, dumps(data)))

    def mark(self) -> int:
        return len(self.rows)

    def undo(self, mark: int) -> None:
        del self.rows[mark:]

    def commit(self, table: Table) -> None:
        pass


def logged_table(clock: FakeClock) -> tuple[Table, Rows]:
    """A table that does not start by itself (so every row it writes is an input), with a
    journal, before anyone joined."""
    table = make_table(clock, autostart=False, decision_seconds=30)
    rows = Rows(clock)
    table.journal = rows
    return table, rows


def test_replaying_every_input_of_a_table_makes_the_same_table_and_the_same_rows() -> None:
    """Seats, flags, a seed contribution, begin, decisions, commit, reveal, timeouts and the
    host bot's turns, taken again by a new table through replay_input, in order."""
    clock = FakeClock()
    table, rows = logged_table(clock)
    a = send(table, A, t="hello", name="Ana", role="player")
    b = send(table, B, t="hello", name="Bo", role="player", contribute=True)
    token_a, token_b = a["token"], b["token"]
    assert send(table, A, t="hello", name="Ana", role="player", token=token_a,
                bot=True)["t"] == "welcome"  # a flags row
    assert send(table, B, t="contribute", token=token_b, value=bytes(range(32)))["t"] == "ok"
    table.begin()
    table.advance()
    to_offer_step(table, token_a)
    offer_b, nonce_b, _ = commit_offer(table, B, token_b, 2)
    clock.now += 31  # A's commit times out (a network bot: 10 s); the reveals open
    table.advance()
    pb = pending(table, 2)
    assert send(table, B, t="reveal", token=token_b, pending=pb["id"], offer=list(offer_b),
                nonce=nonce_b)["t"] == "ok"
    for _ in range(12):  # deadlines and the host bot play a few rounds more
        clock.now += 31
        table.advance()
    # every kind, inputs only (a stand-in's rows: tests/test_table_stand_in.py restores them)
    assert {kind for _, kind, _ in rows.rows} == LOGGED_INPUTS - {"stand_in"}

    twin_clock = FakeClock()
    twin, twin_rows = logged_table(twin_clock)
    for now, kind, text in rows.rows:
        twin_clock.now = now
        replay_input(twin, kind, json.loads(text))
    twin_clock.now = clock.now
    assert twin_rows.rows == rows.rows  # byte for byte, as the game log compares them
    assert twin.output.public_state() == table.output.public_state()
    for seat in range(table.players):
        assert twin.output.private_state(seat) == table.output.private_state(seat)
        assert twin.pending_of(seat) == table.pending_of(seat)
    assert [s.token for s in twin.seats] == [s.token for s in table.seats]
    assert twin.next_pending_id == table.next_pending_id
    assert snapshot(twin.game) == snapshot(table.game)
    assert twin.record.to_json() == table.record.to_json()


def test_a_refused_replayed_input_changes_nothing_and_leaves_no_row() -> None:
    clock = FakeClock()
    table, rows = logged_table(clock)
    a = send(table, A, t="hello", name="Ana", role="player")
    send(table, B, t="hello", name="Bo", role="player")
    table.begin()
    table.advance()
    asked = pending(table, 1)
    assert asked["kind"] == "announce"
    written = list(rows.rows)
    before = fingerprint(table)
    refusals: list[tuple[str, dict[str, Any], str]] = [
        ("seat", {"seat": 1, "name": "Cy", "token": "c" * 32, "bot": False,
                  "contribute": False}, "seat 1 is not free"),
        ("seat", {"seat": 7, "name": "Cy", "token": "c" * 32, "bot": False,
                  "contribute": False}, "there is no seat 7"),
        ("timeout", {"seat": 1, "pending": asked["id"] + 1, "phase": "announce"},
         f"seat 1 is not asked announce {asked['id'] + 1}"),
        ("bot", {"seat": 0, "round": 1, "decision": None, "raised": "ValueError",
                 "shown": None, "nonce": None}, "the host bot to play is seat None, not 0"),
        ("decide", {"seat": 1, "pending": asked["id"], "round": 1, "by": "player",
                    "decision": {"kind": "announce", "n": 9}}, "illegal: "),
        ("decide", {"seat": 2, "pending": asked["id"], "round": 1, "by": "player",
                    "decision": {"kind": "announce", "n": 2}}, "stale: "),
        ("commit", {"seat": 1, "pending": asked["id"], "round": 1,
                    "commitment": bytes(32).hex()}, "commit_phase: "),
    ]
    for kind, data, reason in refusals:
        with pytest.raises(ReplayRefused) as refused_input:
            replay_input(table, kind, data)
        assert str(refused_input.value).startswith(reason), (kind, refused_input.value)
        assert fingerprint(table) == before, kind
        assert rows.rows == written, kind  # an illegal decision's row was taken back
    with pytest.raises(ValueError, match="'void' is not a logged input"):
        replay_input(table, "void", {"seat": 1})
    assert fingerprint(table) == before and rows.rows == written
    # The same table still takes the right input, and its token still acts for its seat.
    replay_input(table, "decide", {"seat": 1, "pending": asked["id"], "round": 1,
                               "by": "player", "decision": {"kind": "announce", "n": 2}})
    assert table.game.announced == 2
    assert send(table, A, t="ping", token=a["token"])["t"] == "pong"


def test_resume_asks_every_seat_again_above_the_given_bounds_and_never_goes_back() -> None:
    table, token_a, _ = seated()
    table.drain()
    asked = pending(table, 1)
    issued, seq = table.next_pending_id, table.seq
    assert asked["id"] < issued
    before = fingerprint(table)
    with pytest.raises(ValueError, match="never back"):
        table.resume(issued - 1, seq + 10)
    with pytest.raises(ValueError, match="never back"):
        table.resume(issued + 10, seq - 1)
    assert fingerprint(table) == before and "resumed" not in table.record.meta
    table.resume(issued + 100, seq + 50)
    again = pending(table, 1)
    assert (again["kind"], again["legal"]) == (asked["kind"], asked["legal"])
    assert again["id"] == issued + 100 and table.next_pending_id == issued + 101
    assert table.record.meta["resumed"] == 1
    refused(table, A, "stale", t="decide", token=token_a, pending=asked["id"],
            decision={"kind": "announce", "n": 2})  # an answer from before the restart
    assert send(table, A, t="decide", token=token_a, pending=again["id"],
                decision={"kind": "announce", "n": 2})["t"] == "ok"
    updates, _ = table.drain()
    assert [u["seq"] for u in updates] == [seq + 51]  # update numbers go on from the bound


# -- before the game starts (docs/protocol.md, "Before the game starts") ----------------------

# What the deal makes: none of it is on the wire before the start.
DEALT = frozenset({"round", "event", "phase", "trade_master", "announced", "market", "display",
                   "queue", "draw_size", "devpile_size", "discard", "doubloons",
                   "developments", "hand_sizes", "stored_sizes", "fleets", "known_hands"})
PRIVATE_DEALT = frozenset({"hand", "stored"})


def test_before_the_start_nothing_dealt_is_on_the_wire_and_at_the_start_it_all_is() -> None:
    table = make_table(name="Ana's table", round_limit=6)
    watcher = send(table, SPECTATOR, t="hello", name="Eve", role="spectator")
    a = send(table, A, t="hello", name="Ana", role="player")
    updates, privates = table.drain()
    state = table.output.public_state()
    assert set(state) == {"players", "promo", "round_limit", "pending", "result", "table"}
    assert (state["players"], state["promo"], state["round_limit"]) == (3, False, 6)
    assert state["pending"] is None and state["result"] is None
    assert state["table"] == {
        "name": "Ana's table", "options": a["options"], "names": [table.names[0], "Ana", ""],
        "connected": [True, True, False], "bots": [True, False, False], "committed": [],
        "started": False}
    assert watcher["options"] == a["options"] == {
        "promo": False, "round_limit": 6, "decision_seconds": None, "first_tm": 1, "rules": 2}
    for update in updates:
        assert not DEALT & set(update["changed"]), update
        assert {e["kind"] for e in update["events"]} <= {"joined", "spectator"}, update
    assert privates and all(set(m) == {"t", "seq", "private"}
                            and set(m["private"]) == {"seat", "my_offer", "pending", "events"}
                            and m["private"]["my_offer"] is None
                            and m["private"]["events"] == [] for _, m in privates), privates
    for conn, token in ((A, a["token"]), (SPECTATOR, None)):
        asked = {"t": "snapshot"} if token is None else {"t": "snapshot", "token": token}
        snap = send(table, conn, **asked)
        assert snap["state"] == state and not DEALT & set(snap["state"])
        assert snap["private"] == (None if token is None else
                                   {"seat": 1, "my_offer": None, "pending": None,
                                    "events": []})

    b = send(table, B, t="hello", name="Bo", role="player")  # the last seat: the deal
    updates, privates = table.drain()
    changed: Message = {}
    for update in updates:
        changed.update(update["changed"])
    assert set(changed) >= DEALT
    assert changed["table"]["started"] is True
    assert {**state, **changed} == table.output.public_state()  # the Clone pattern adds the keys
    kinds = [e["kind"] for u in updates for e in u["events"]]
    assert kinds.index("started") < kinds.index("setup")
    hands = {m["private"]["seat"]: m["private"]["hand"] for _, m in privates}
    assert hands == {s: list(PlayerView(table.game, s).hand) for s in (1, 2)}
    assert all(set(m["private"]) >= PRIVATE_DEALT for _, m in privates)
    assert all(hand for hand in hands.values())
    assert send(table, B, t="snapshot", token=b["token"])["private"]["hand"] == hands[2]


# -- named stages ----------------------------------------------------------------------------


def test_the_table_moves_from_waiting_to_playing_to_over() -> None:
    clock = FakeClock()
    table = make_table(clock, decision_seconds=30, seed=5, round_limit=3)
    stages = [table.stage]
    send(table, A, t="hello", name="Ana", role="player")
    stages.append(table.stage)
    send(table, B, t="hello", name="Bo", role="player")
    stages.append(table.stage)
    _drive_to_the_end(table, clock)
    stages.append(table.stage)
    assert stages == [TableStage.WAITING, TableStage.WAITING, TableStage.PLAYING,
                      TableStage.OVER]
    assert table.started and table.over


def test_an_offer_step_moves_commit_then_reveal_then_done_only() -> None:
    """R5.3 (commit-reveal, protocol §7): the step's stages in order; any other move is
    refused."""
    table, token_a, token_b = seated()
    to_offer_step(table, token_a)
    step = table.offer_step
    assert step is not None
    stages: list[str] = [step.stage]  # a str: equal to the wire's pending kinds
    with pytest.raises(AssertionError, match="cannot move"):
        step.move_to(OfferStage.DONE)
    commit_offer(table, A, token_a, 1)
    commit_offer(table, B, token_b, 2)
    stages.append(step.stage)
    with pytest.raises(AssertionError, match="cannot move"):
        step.move_to(OfferStage.COMMIT)
    assert stages == ["commit", "reveal"] == [OfferStage.COMMIT, OfferStage.REVEAL]
