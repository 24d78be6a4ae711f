"""What one peer can make the Table do is bounded (issue 13, items 2 and 3): chat per seat (a
new connection with the same token gets no fresh burst), the chat lines a snapshot carries,
and snapshots per connection. The socket-free Table with an injected clock."""

from __future__ import annotations

from support.clock import FakeClock
from support.table import A, B, make_table, seated, send

from mundus_net.host.table import (
    CHAT_BURST,
    CHAT_RATE,
    CONTRIBUTION_SECONDS,
    SNAPSHOT_BURST,
    SNAPSHOT_RATE,
    SNAPSHOTS_ALL_BURST,
    SNAPSHOTS_ALL_RATE,
)
from mundus_net.host.updates import MAX_CHAT_KEPT


def test_chat_is_limited_per_seat_not_per_connection() -> None:
    clock = FakeClock()
    table, token_a, _ = seated(clock)
    for i in range(int(CHAT_BURST)):
        assert send(table, A, t="chat", token=token_a, text=f"line {i}")["t"] == "ok"
    refused = send(table, A, t="chat", token=token_a, text="one too many")
    assert refused["t"] == "error" and refused["code"] == "rate_limited"
    # A new connection with the same token: the same seat, the same bucket.
    again = b"conn-a-again"
    assert send(table, again, t="hello", name="Ana", role="player", token=token_a,
                take_over=True)["t"] == "welcome"
    assert send(table, again, t="chat", token=token_a, text="fresh burst?")["code"] == \
        "rate_limited"
    clock.now += 1 / CHAT_RATE  # time refills the bucket
    assert send(table, again, t="chat", token=token_a, text="later")["t"] == "ok"


def test_other_seats_keep_their_own_chat() -> None:
    clock = FakeClock()
    table, token_a, token_b = seated(clock)
    for i in range(int(CHAT_BURST)):
        send(table, A, t="chat", token=token_a, text=f"line {i}")
    assert send(table, B, t="chat", token=token_b, text="my turn")["t"] == "ok"


def test_a_snapshot_carries_the_last_chat_lines_only_and_every_game_event() -> None:
    clock = FakeClock()
    table, token_a, token_b = seated(clock)
    table.output.flush()
    game_events = [e for e in table.output.public_history() if e.get("kind") != "chat"]
    said = 0
    for _ in range(MAX_CHAT_KEPT + 50):
        clock.now += 1 / CHAT_RATE
        for conn, token in ((A, token_a), (B, token_b)):
            assert send(table, conn, t="chat", token=token, text=f"n{said}")["t"] == "ok"
            said += 1
        table.output.flush()
    snap = send(table, A, t="snapshot", token=token_a)
    chats = [e for e in snap["events"] if e["kind"] == "chat"]
    assert len(chats) == MAX_CHAT_KEPT
    assert chats[-1]["text"] == f"n{said - 1}"  # the newest kept, the oldest dropped
    kept = [e for e in snap["events"] if e["kind"] != "chat"]
    assert kept[:len(game_events)] == game_events  # no game event dropped


def test_snapshots_are_limited_per_connection_and_share_one_history() -> None:
    clock = FakeClock()
    table, token_a, _ = seated(clock)
    first = [send(table, A, t="snapshot", token=token_a) for _ in range(int(SNAPSHOT_BURST))]
    assert all(s["t"] == "snapshot" for s in first)
    assert first[0]["events"] is first[-1]["events"]  # the same state: one copy, not one each
    refused = send(table, A, t="snapshot", token=token_a)
    assert refused["t"] == "error" and refused["code"] == "rate_limited"
    assert send(table, B, t="snapshot")["t"] == "snapshot"  # another connection: its own
    clock.now += 1 / SNAPSHOT_RATE
    assert send(table, A, t="snapshot", token=token_a)["t"] == "snapshot"


def test_a_promised_contribution_that_never_comes_holds_the_start_only_so_long() -> None:
    """§15: a seat that said it sends a share of the seed and does not is given the host's
    share CONTRIBUTION_SECONDS after the last seat was taken; the other seat's share counts."""
    clock = FakeClock()
    table = make_table(clock)
    full = clock.now  # the last seat is taken now
    a = send(table, A, t="hello", name="Ana", role="player", contribute=True)
    b = send(table, B, t="hello", name="Bo", role="player", contribute=True)
    assert send(table, B, t="contribute", token=b["token"], value=bytes(range(32)))["t"] == "ok"
    clock.now += CONTRIBUTION_SECONDS - 0.1
    table.advance()
    waiting = not table.started
    assert waiting and table.next_wakeup() == full + CONTRIBUTION_SECONDS
    clock.now += 0.1
    table.advance()
    assert table.started
    table.output.flush()
    snapshot = send(table, A, t="snapshot", token=a["token"])
    events = [e for e in snapshot["events"] if e["kind"] in ("contribution_late", "fair_deal")]
    assert [e["kind"] for e in events] == ["contribution_late", "fair_deal"], events
    assert events[0]["seat"] == a["seat"]
    fair = events[1]
    assert set(fair["contributions"]) == {"0", "1", "2"}
    assert fair["contributions"]["2"] == bytes(range(32))  # Bo's own share


def test_snapshots_for_everyone_together_are_limited_and_a_seat_never_by_them() -> None:
    """The snapshot policy is the table's (socket-free): tokenless snapshots share one budget
    of SNAPSHOTS_ALL_BURST then SNAPSHOTS_ALL_RATE a second; a seat's own is not held back;
    a connection that has not read what it was sent is refused."""
    table = make_table(FakeClock())
    now = 100.0
    assert all(table.snapshot_refusal({"t": "snapshot"}, False, now) is None
               for _ in range(int(SNAPSHOTS_ALL_BURST)))
    refused = table.snapshot_refusal({"t": "snapshot", "id": 4}, False, now)
    assert refused is not None and refused["code"] == "rate_limited" and refused["id"] == 4
    assert table.snapshot_refusal({"t": "snapshot", "token": "x" * 32}, False, now) is None
    later = now + 1.0  # SNAPSHOTS_ALL_RATE more
    assert all(table.snapshot_refusal({"t": "snapshot"}, False, later) is None
               for _ in range(int(SNAPSHOTS_ALL_RATE)))
    assert table.snapshot_refusal({"t": "snapshot"}, False, later) is not None
    unread = table.snapshot_refusal({"t": "snapshot", "token": "x" * 32}, True, now + 60)
    assert unread is not None and "not read" in unread["message"]
