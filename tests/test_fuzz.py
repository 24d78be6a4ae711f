"""Property-based fuzzing of what a hostile client controls (docs/security.md, "Under load and
attack"): the message decoder and the table's handling of decoded messages.

* ``mundus_net.protocol.messages.decode_client`` on arbitrary bytes, on arbitrary msgpack
structures and on valid envelopes with arbitrary fields raises nothing but ``ProtocolError``,
and what it returns is a checked message.
* ``Table.handle`` on arbitrary decoded-valid messages from arbitrary connections (seated
  players, a spectator, strangers) returns a reply of a documented type; no exception
  escapes; and a message answered with an error changes neither the engine position (in the
  notation of docs/notation.md) nor the public state, except the one documented case (a
  broken reveal plays the default offer, docs/protocol.md §7).
"""

from __future__ import annotations

from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.clock import FakeClock

from mundus_net.bots import load_bot
from mundus_net.engine.notation import format_position
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.codec import DECISION_KINDS
from mundus_net.protocol.commitment import commit
from mundus_net.protocol.errors import ERROR_CODES, ProtocolError
from mundus_net.protocol.messages import (
    CLIENT_MESSAGES,
    MAX_CLIENT_FRAME,
    PROTOCOL_VERSION,
    decode_client,
    encode,
)

FUZZ = settings(deadline=None, derandomize=True, database=None, max_examples=300,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# -- the decoder -------------------------------------------------------------------------------

scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64 - 1)
           | st.floats(allow_nan=True) | st.text(max_size=40) | st.binary(max_size=40))
structures = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6)
    | st.dictionaries(st.text(max_size=12) | st.integers(-5, 5), inner, max_size=6),
    max_leaves=30)
field_names = st.sampled_from(sorted({name for schema in CLIENT_MESSAGES.values()
                                      for name in schema} | {"v", "t", "id", "x"}))


@st.composite
def envelopes(draw: st.DrawFn) -> dict[Any, Any]:
    """A map that looks like a client message: version, a real type, real field names with
    arbitrary values (sometimes right), sometimes an extra field."""
    kind = draw(st.sampled_from([*CLIENT_MESSAGES, "welcome", "", "HELLO"]))
    message: dict[Any, Any] = {"v": draw(st.sampled_from([1, 1, 1, 2, 0, "1", None])),
                               "t": kind}
    schema = CLIENT_MESSAGES.get(kind, {})
    for name in schema:
        if draw(st.booleans()):
            message[name] = draw(value_for(name) | structures)
    if draw(st.integers(0, 5)) == 0:
        message[draw(field_names)] = draw(structures)
    return message


def value_for(name: str) -> st.SearchStrategy[Any]:
    """Plausible values of one field, valid or nearly so."""
    if name == "token":
        return st.text("0123456789abcdefABCDEF", min_size=30, max_size=34)
    if name in ("pending", "id"):
        return st.integers(-3, 2**31 + 3)
    if name in ("commitment", "nonce"):
        return st.binary(min_size=30, max_size=34)
    if name == "offer":
        return st.lists(st.integers(-1, 12), max_size=32)
    if name == "decision":
        return decisions_wire()
    if name == "role":
        return st.sampled_from(["player", "spectator", "PLAYER", ""])
    if name == "bot":
        return st.booleans() | st.integers(0, 1)
    return st.text(max_size=220)


def decisions_wire() -> st.SearchStrategy[Any]:
    values = (st.none() | st.integers(-2, 12) | st.text(max_size=4)
              | st.lists(st.integers(-1, 11) | st.text(max_size=4), max_size=8))
    fields = st.sampled_from(["event", "fleet", "cards", "card", "n", "seat", "swap", "source",
                              "value", "target", "size", "kind", "zzz"])
    return st.builds(lambda kind, extra: {"kind": kind, **extra},
                     st.sampled_from([*DECISION_KINDS, "nope"]),
                     st.dictionaries(fields, values, max_size=4))


def check_decoded(frame: bytes) -> None:
    try:
        message = decode_client(frame)
    except ProtocolError as err:
        assert err.code in ERROR_CODES
        return
    assert message["t"] in CLIENT_MESSAGES
    schema = CLIENT_MESSAGES[message["t"]]
    assert set(message) <= {"t", "id", *schema}
    assert all(name in message for name, (required, _) in schema.items() if required)
    encode(message)  # what was checked can be sent on


@FUZZ
@given(st.binary(max_size=300))
def test_arbitrary_bytes_only_ever_raise_protocol_error(frame: bytes) -> None:
    check_decoded(frame)


@FUZZ
@given(structures)
def test_arbitrary_msgpack_structures_only_ever_raise_protocol_error(value: Any) -> None:
    frame = msgpack.packb(value, use_bin_type=True)
    check_decoded(frame)
    for cut in (1, len(frame) // 2, len(frame) - 1):  # truncated msgpack
        check_decoded(frame[:cut])


@FUZZ
@given(envelopes())
def test_envelopes_with_mutated_fields_only_ever_raise_protocol_error(message: Any) -> None:
    frame = msgpack.packb(message, use_bin_type=True)
    check_decoded(frame)
    check_decoded(frame[:-1])


def test_oversized_frames_are_refused_before_decoding() -> None:
    frame = msgpack.packb({"v": PROTOCOL_VERSION, "t": "chat", "text": "x" * MAX_CLIENT_FRAME})
    try:
        decode_client(frame)
    except ProtocolError as err:
        assert err.code == "too_large"
    else:
        raise AssertionError("an oversized frame was accepted")


# -- the table ---------------------------------------------------------------------------------

A, B, SPECTATOR, STRANGER = b"conn-a", b"conn-b", b"conn-s", b"conn-x"
CONNS = (A, B, SPECTATOR, STRANGER)
STATE_CHANGING_ERRORS = {("reveal", "commit_mismatch"), ("reveal", "illegal")}
REPLIES = {"ok", "error", "welcome", "snapshot", "pong"}


def seated_table(warmup: int) -> tuple[Table, dict[int, str]]:
    """Four seats: greedy host bots at 0 and 1, players at 2 (A) and 3 (B), a spectator; the
    game played ``warmup`` legitimate answers in."""
    table = Table(4, TableSettings(first_tm=2, game_id="fuzz"), seed=5,
                  bots=[load_bot("greedy", 1), load_bot("greedy", 2)], clock=FakeClock())
    tokens = {}
    for conn, name in ((A, "Ana"), (B, "Bo")):
        welcome = table.handle(conn, decode_client(encode(
            {"t": "hello", "name": name, "role": "player"})))
        tokens[welcome["seat"]] = welcome["token"]
    table.handle(SPECTATOR, decode_client(encode(
        {"t": "hello", "name": "Eve", "role": "spectator"})))
    secrets: dict[int, tuple[list[int], bytes]] = {}
    for _ in range(warmup):
        table.advance()
        if table.over or not answer_something(table, tokens, secrets):
            break
    table.advance()
    return table, tokens


def answer_something(table: Table, tokens: dict[int, str],
                     secrets: dict[int, tuple[list[int], bytes]]) -> bool:
    """One legitimate answer from a seated player, if one is asked anything."""
    for seat, token in tokens.items():
        pending = table.output.private_state(seat)["pending"]
        if pending is None:
            continue
        conn = A if seat == 2 else B
        if pending["kind"] == "commit":
            offer = list(pending["legal"][0]["cards"])
            nonce = bytes([seat]) * 32
            secrets[seat] = (offer, nonce)
            digest = commit(table.game_id, pending["detail"]["round"], seat, offer, nonce)
            message = {"t": "commit", "token": token, "pending": pending["id"],
                       "commitment": digest}
        elif pending["kind"] == "reveal":
            offer, nonce = secrets[seat]
            message = {"t": "reveal", "token": token, "pending": pending["id"],
                       "offer": offer, "nonce": nonce}
        else:
            message = {"t": "decide", "token": token, "pending": pending["id"],
                       "decision": pending["legal"][-1]}
        reply = table.handle(conn, decode_client(encode(message)))
        assert reply["t"] == "ok", reply
        return True
    return False


@st.composite
def table_messages(draw: st.DrawFn, tokens: dict[int, str], table: Table) -> dict[str, Any]:
    """A message the decoder accepts, aimed at this table: real and wrong tokens, current,
    stale and unknown pending ids, legal decisions and mutations of them."""
    # Mostly answers (what can change the game), and every other type now and then.
    kind = draw(st.sampled_from(["decide"] * 6 + ["commit", "reveal"] * 2
                                + sorted(CLIENT_MESSAGES)))
    seat = draw(st.sampled_from(sorted(tokens)))
    pending = table.output.private_state(seat)["pending"]
    real_ids = [pending["id"]] if pending else []
    token = draw(st.sampled_from([tokens[seat]] * 3 + [*tokens.values(), "0" * 32]))
    pending_id = draw(st.sampled_from(real_ids * 4 + [0, 1, 2**31 - 1]) | st.integers(0, 400))
    legal = pending["legal"] if pending else []
    decision = draw(st.sampled_from(legal) | decisions_wire()) if legal else \
        draw(decisions_wire())
    kind_name = decision.get("kind")
    if draw(st.booleans()) and isinstance(kind_name, str) and kind_name in DECISION_KINDS \
            and len(decision) > 1:
        name = draw(st.sampled_from(sorted(k for k in decision if k != "kind")))
        decision = {**decision, name: draw(st.integers(0, 9) | st.none() | st.integers(-1, 11)
                                           | st.lists(st.integers(1, 10), max_size=5))}
    message: dict[str, Any] = {"t": kind}
    if kind == "hello":
        message.update(name=draw(st.text("abcXYZ ", min_size=1, max_size=8)),
                       role=draw(st.sampled_from(["player", "spectator"])))
        if draw(st.booleans()):
            message["token"] = token
        if draw(st.booleans()):
            message["bot"] = draw(st.booleans())
    elif kind in ("snapshot", "ping", "bye"):
        if draw(st.booleans()):
            message["token"] = token
    elif kind == "chat":
        message.update(token=token, text=draw(st.text("hi! ", min_size=1, max_size=10)))
    elif kind == "decide":
        message.update(token=token, pending=pending_id, decision=decision)
    elif kind == "commit":
        message.update(token=token, pending=pending_id,
                       commitment=draw(st.binary(min_size=32, max_size=32)))
    elif kind == "reveal":
        message.update(token=token, pending=pending_id,
                       offer=draw(st.lists(st.integers(1, 10), max_size=5)),
                       nonce=draw(st.binary(min_size=32, max_size=32)))
    # contribute and any other message type the protocol grows: valid fields from the schema
    for name, (required, _) in CLIENT_MESSAGES[kind].items():
        if required and name not in message:
            message[name] = draw(value_for(name))
    if draw(st.booleans()):
        message["id"] = draw(st.integers(0, 2**31 - 1))
    return message


def observable(table: Table) -> tuple[str, Any]:
    table.output.flush()
    return format_position(table.game), table.output.public_state()


@settings(FUZZ, max_examples=60)
@given(st.data(), st.integers(0, 30))
def test_the_table_answers_any_valid_message_and_errors_change_nothing(
        data: st.DataObject, warmup: int) -> None:
    table, tokens = seated_table(warmup)
    for _ in range(data.draw(st.integers(1, 12), label="messages")):
        message = data.draw(table_messages(tokens, table), label="message")
        conn = data.draw(st.sampled_from([A, B, *CONNS]), label="connection")
        try:
            decoded = decode_client(encode(message))
        except ProtocolError:
            continue  # the server answers it without the table
        before = observable(table)
        reply = table.handle(conn, decoded)
        assert reply["t"] in REPLIES, reply
        if decoded.get("id") is not None:
            assert reply["id"] == decoded["id"]
        if reply["t"] == "error":
            assert reply["code"] in ERROR_CODES and reply["code"] != "internal"
            if (decoded["t"], reply["code"]) not in STATE_CHANGING_ERRORS:
                assert observable(table) == before, (decoded, reply)
        table.advance()
