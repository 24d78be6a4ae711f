"""Who holds a seat when several clients say hello with its token (docs/protocol.md §3;
docs/security.md, "A stolen token"; issue 38, items 2 and 3; issue 37, protocol items 4 and
7): the socket-free Table with an injected clock."""

from __future__ import annotations

from typing import Any

from support.clock import FakeClock
from support.table import A, B, Message, make_table, send
from test_host_table import Rows, commit_offer, pending, public_events, to_offer_step

from mundus_net.host.guard import (
    FLAG_CHANGE_BURST,
    FLAG_CHANGE_RATE,
    TAKE_OVER_BURST,
    TAKE_OVER_RATE,
)
from mundus_net.host.table import Table


def hello(table: Table, conn: bytes, token: str | None = None, **fields: Any) -> Message:
    message: dict[str, Any] = {"t": "hello", "name": "Ana", "role": "player", **fields}
    if token is not None:
        message["token"] = token
    return send(table, conn, **message)


def programs(clock: FakeClock, **options: Any) -> tuple[Table, str, str]:
    """A started table: seat 1 (A, client "ana") and seat 2 (B, client "bo") are programs."""
    table = make_table(clock, **options)
    a = hello(table, A, bot=True, client="ana")
    b = hello(table, B, bot=True, client="bo")
    table.advance()
    return table, a["token"], b["token"]


def holder(table: Table, seat: int) -> bytes | None:
    return table.seats[seat].conn


def told(table: Table, conn: bytes) -> list[str]:
    """The kinds of the private messages ``conn`` is sent now."""
    _, private = table.drain()
    return [m["t"] for c, m in private if c == conn]


# -- a question keeps its deadline (issue 38, item 2) -----------------------------------------


def test_a_take_over_mid_game_keeps_a_programs_seat_a_program_and_its_deadlines() -> None:
    clock = FakeClock()
    table, token_a, _ = programs(clock)
    asked = pending(table, 1)
    assert asked["deadline_ms"] == 10_000
    # A thief with the token takes the seat over and says it is a person
    reply = hello(table, b"thief", token_a, take_over=True, bot=False, client="thief")
    assert reply["t"] == "welcome"
    assert table.seats[1].program
    assert pending(table, 1)["id"] == asked["id"]  # the same question, its deadline kept
    clock.advance(10.5)
    table.advance()
    assert {"kind": "timeout", "seat": 1, "phase": "announce"} in public_events(table)
    # ... and the next question has the bot deadline too: the game cannot be stalled
    assert pending(table, 1)["deadline_ms"] == 10_000


def test_a_persons_seat_made_a_program_has_its_deadline_from_the_next_question_on() -> None:
    clock = FakeClock()
    table = make_table(clock)
    a = hello(table, A, client="ana")
    hello(table, B, client="bo")
    table.advance()
    asked = pending(table, 1)
    assert asked["deadline_ms"] is None
    assert hello(table, A, a["token"], bot=True, client="ana")["t"] == "welcome"
    assert table.seats[1].program
    assert pending(table, 1) == asked  # the question as it was asked: no deadline
    to_offer_step(table, a["token"])
    assert pending(table, 1)["deadline_ms"] == 10_000


def test_flag_changes_of_a_seat_are_limited_and_a_hello_that_keeps_them_is_welcome() -> None:
    clock = FakeClock()
    table = make_table(clock)
    rows = Rows(clock)
    table.journal = rows
    token = hello(table, A, client="ana")["token"]
    codes = [hello(table, A, token, bot=flip % 2 == 0, client="ana").get("code")
             for flip in range(100)]  # a flip storm, before the start
    assert [kind for _, kind, _ in rows.rows].count("flags") == FLAG_CHANGE_BURST
    assert set(codes) == {None, "rate_limited"}
    refused = hello(table, A, token, bot=not table.seats[1].program, client="ana")
    assert refused["code"] == "rate_limited" and "flags" in refused["message"]
    clock.advance(1 / FLAG_CHANGE_RATE)
    assert hello(table, A, token, bot=not table.seats[1].program, client="ana")["t"] == "welcome"
    assert [kind for _, kind, _ in rows.rows].count("flags") == FLAG_CHANGE_BURST + 1


# -- take-over storms (issue 38, item 3) ------------------------------------------------------


def test_a_client_taken_over_never_takes_the_seat_back_and_the_owner_keeps_it() -> None:
    clock = FakeClock()
    table, token_a, _ = programs(clock)
    # Two programs with the stolen token swap the seat: the second flip is refused ...
    assert hello(table, b"x", token_a, take_over=True, client="x")["t"] == "welcome"
    assert "taken_over" in told(table, A)
    assert hello(table, b"y", token_a, take_over=True, client="y")["t"] == "welcome"
    assert "taken_over" in told(table, b"x")
    for conn, client in ((b"x", "x"), (b"x2", "x"), (A, "ana")):
        reply = hello(table, conn, token_a, take_over=True, client=client)
        assert reply["code"] == "seat_in_use" and "taken over" in reply["message"], reply
    assert holder(table, 1) == b"y"
    # ... the owner's new program takes it back, and keeps it
    assert hello(table, b"owner", token_a, take_over=True, client="owner")["t"] == "welcome"
    for conn, client in ((b"x", "x"), (b"y", "y"), (b"y3", "y")):
        assert hello(table, conn, token_a, take_over=True, client=client)["code"] == \
            "seat_in_use"
    assert holder(table, 1) == b"owner"


def test_take_overs_of_a_seat_are_limited_and_the_console_says_it_is_fought_over() -> None:
    clock = FakeClock()
    table, token_a, _ = programs(clock)
    said: list[str] = []
    table.seat_guard.log = said.append
    for n in range(int(TAKE_OVER_BURST)):  # a new client id and connection each time
        assert hello(table, b"c%d" % n, token_a, take_over=True, client=f"c{n}")["t"] == \
            "welcome"
    reply = hello(table, b"owner", token_a, take_over=True, client="owner")
    assert reply["code"] == "rate_limited"
    assert "being fought over" in reply["message"] and "in 5 s" in reply["message"]
    assert holder(table, 1) == b"c%d" % (TAKE_OVER_BURST - 1)  # the seat stays where it is
    assert len(said) == 1 and "seat 1 (Ana) is being fought over: 3 take-over(s)" in said[0]
    for n in range(50):
        hello(table, b"z%d" % n, token_a, take_over=True, client=f"z{n}")
    assert len(said) == 1  # told once, not per refusal
    clock.advance(1 / TAKE_OVER_RATE)
    assert hello(table, b"owner", token_a, take_over=True, client="owner")["t"] == "welcome"
    assert holder(table, 1) == b"owner"


def test_a_reconnect_of_the_same_client_keeps_the_seat_and_is_not_limited() -> None:
    clock = FakeClock()
    table, token_a, _ = programs(clock)
    for n in range(20):
        assert hello(table, b"a%d" % n, token_a, client="ana")["t"] == "welcome"
    assert holder(table, 1) == b"a19"


def test_a_client_taken_over_that_sat_again_in_its_free_seat_keeps_its_reconnects() -> None:
    clock = FakeClock()
    table, token_a, _ = programs(clock)
    assert hello(table, b"x", token_a, take_over=True, client="x")["t"] == "welcome"
    assert send(table, b"x", t="bye", token=token_a)["t"] == "ok"  # the seat is free again
    assert hello(table, b"a2", token_a, client="ana")["t"] == "welcome"
    assert hello(table, b"a3", token_a, client="ana")["t"] == "welcome"  # its reconnect
    assert holder(table, 1) == b"a3"


# -- one client id on two connections (issue 37, protocol item 4) ------------------------------


def test_the_same_client_id_from_a_second_connection_tells_the_first_it_was_taken_over() -> None:
    clock = FakeClock()
    table, token_a, _ = programs(clock)
    table.drain()
    assert hello(table, b"twin", token_a, client="ana")["t"] == "welcome"
    assert "taken_over" in told(table, A)
    # the first connection, told, is not welcomed back while the twin holds the seat
    assert hello(table, A, token_a, client="ana")["code"] == "seat_in_use"
    assert holder(table, 1) == b"twin"


# -- a stand-in comes when it is due (issue 37, protocol item 7) --------------------------------


def test_a_stand_in_plays_the_seat_of_a_player_who_left_after_committing_in_that_round() -> None:
    clock = FakeClock()
    table, token_a, token_b = programs(clock, stand_in_after=2.0)
    to_offer_step(table, token_a)
    commit_offer(table, A, token_a, 1)
    assert send(table, A, t="bye", token=token_a)["t"] == "ok"  # gone right after committing
    offer_b, nonce_b, _ = commit_offer(table, B, token_b, 2)
    pb = pending(table, 2)
    assert send(table, B, t="reveal", token=token_b, pending=pb["id"], offer=list(offer_b),
                nonce=nonce_b)["t"] == "ok"
    round_ = table.game.round
    clock.advance(10.5)  # its reveal times out: its secret left with its client
    table.advance()
    table.advance()
    kinds = [e["kind"] for e in public_events(table)]
    assert kinds.count("timeout") == 1 and "stand_in" in kinds
    assert table.game.round == round_ and table.pending_of(1) is None
