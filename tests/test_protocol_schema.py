"""Every message of whole games matches the protocol's machine-readable description
(docs/protocol.schema.json, made by protocol/schema.py; issue 14): host and client sides, every
decision kind the games reach, spectators, chat, errors, contributions, a lost connection and
its return, time-outs and a stop. The games run in memory with the real Table and client
cores, through the real codec (tests/test_client_core.py's Net); every frame is checked as
msgpack decodes it and the schema's recipe converts it (binary values as their hex, marked as
having been bin); the key port's answer and the beacon too."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

import jsonschema
import msgpack
import pytest
import zmq
from jsonschema import Draft202012Validator, ValidationError
from support.clock import FakeClock
from support.net import DEALER, PUBLIC, Net, Peer, play, table
from test_host_server import WAIT, RawClient
from test_table_message_order import join_in_one_host_turn

from mundus_net.bots import load_bot
from mundus_net.client.core import Action
from mundus_net.host.beacon import table_announcement, table_beacon
from mundus_net.host.keys import HostKeys
from mundus_net.host.server import Host
from mundus_net.protocol.beacon import MAX_BEACON, encode_beacon
from mundus_net.protocol.codec import DECISION_KINDS
from mundus_net.protocol.errors import ProtocolError
from mundus_net.protocol.messages import PROTOCOL_VERSION, decode_client, encode
from mundus_net.protocol.schema import (
    EVENTS,
    HOST_MESSAGES,
    client_schemas,
    schema,
    schema_text,
)
from mundus_net.protocol.security import KeyAnnouncement, encode_key_announcement

ROOT = Path(__file__).resolve().parent.parent
Message = dict[str, Any]
Schema = dict[str, Any]


class Bin(str):
    """A msgpack bin value as the schema's recipe has a validator see it: its bytes in
    lowercase hex, marked as having been bin (text on the wire stays a plain str)."""


def as_validated(value: Any) -> Any:
    """The schema's recipe (protocol/schema.py): every bin value becomes its hex. (Python's
    integers are exact: the uint64 seed needs no conversion here.)"""
    if isinstance(value, bytes):
        return Bin(value.hex())
    if isinstance(value, dict):
        return {key: as_validated(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_validated(item) for item in value]
    return value


def _msgpack_keyword(validator: Any, value: str, instance: Any,
                     schema: dict[str, Any]) -> Iterator[ValidationError]:
    """``x-msgpack``: ``bin`` was msgpack bin (of ``x-bytes`` bytes), never text; ``str`` was
    text, never bin; ``uint64`` an unsigned integer of at most 64 bits."""
    if value == "str" and isinstance(instance, Bin):
        yield ValidationError(f"{instance!r} was msgpack bin, not text")
    elif value == "bin":
        if not isinstance(instance, Bin):
            yield ValidationError(f"{instance!r} was not msgpack bin")
        elif "x-bytes" in schema and len(instance) != 2 * schema["x-bytes"]:
            yield ValidationError(f"bin of {len(instance) // 2} bytes, not "
                                  f"{schema['x-bytes']}")
    elif value == "uint64" and not (type(instance) is int and 0 <= instance < 2**64):
        yield ValidationError(f"{instance!r} is not an unsigned 64-bit integer")


def _one_of_by_keyword(validator: Any, spec: dict[str, Any], instance: Any,
                       schema: Schema) -> Iterator[ValidationError]:
    """``x-one-of-by`` (this test's own, made by :func:`dispatching`): the sub-schema that
    ``cases`` names for the instance's ``field``; refused when there is none."""
    field, cases = spec["field"], spec["cases"]
    if not isinstance(instance, dict) or field not in instance:
        yield ValidationError(f"{instance!r} is not a map with {field!r}")
    elif not isinstance(instance[field], str) or instance[field] not in cases:
        yield ValidationError(f"{field} {instance[field]!r} is none of {sorted(cases)}")
    else:
        yield from validator.descend(instance, cases[instance[field]],
                                     schema_path=instance[field])


# The standard keywords alone (what a validator that ignores x-msgpack checks), and with it.
Standard = jsonschema.validators.extend(Draft202012Validator,
                                        {"x-one-of-by": _one_of_by_keyword})
Validator = jsonschema.validators.extend(Standard, {"x-msgpack": _msgpack_keyword})


def _resolved(member: Schema, defs: dict[str, Schema]) -> Schema:
    """A union's member itself: the definition it refers to, if it is a reference."""
    return defs[member["$ref"].removeprefix("#/$defs/")] if "$ref" in member else member


def _discriminator(members: list[Schema], defs: dict[str, Schema]) -> str | None:
    """The field that tells a ``oneOf``'s members apart, if there is one: every member is a
    map that requires the field with a text ``const`` of its own. Then an instance matches
    exactly one member, the one its field names, or none: the ``oneOf`` and a look-up by the
    field accept and refuse the same instances."""
    resolved = [_resolved(m, defs) for m in members]
    if not all(m.get("type") == "object" for m in resolved):
        return None
    shared: set[str] = set.intersection(*({f for f in m.get("required", ())
                                           if isinstance(m["properties"][f].get("const"), str)}
                                          for m in resolved))
    for field in sorted(shared):
        if len({m["properties"][field]["const"] for m in resolved}) == len(resolved):
            return field
    return None


def dispatching(whole: Schema) -> Schema:
    """The schema with every ``oneOf`` told apart by a field (the message's ``t``, an
    event's, decision's or pending question's ``kind``) replaced by an ``x-one-of-by`` that
    checks the instance against the one member its field names. It accepts and refuses what
    the schema does (see :func:`_discriminator`) but checks one member instead of every one:
    the captured games' messages validate in seconds instead of minutes."""
    defs = whole["$defs"]

    def rewrite(node: Any) -> Any:
        if isinstance(node, list):
            return [rewrite(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {key: rewrite(value) for key, value in node.items()}
        field = _discriminator(node["oneOf"], defs) if "oneOf" in node else None
        if field is not None:
            members = out.pop("oneOf")
            out["x-one-of-by"] = {"field": field, "cases": {
                _resolved(m, defs)["properties"][field]["const"]: m for m in members}}
        return out

    return cast(Schema, rewrite(whole))


def _validator(root: str, whole: Schema | None = None, kind: Any = None) -> Any:
    """A validator of one definition of the schema (by default the dispatching one)."""
    whole = dispatching(schema()) if whole is None else whole
    return (kind or Validator)({key: value for key, value in whole.items() if key != "anyOf"}
                               | {"$ref": f"#/$defs/{root}"})


class Capture(Net):
    """A Net that keeps every frame as it travels: (direction, bytes)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.frames: list[tuple[str, bytes]] = []

    def send(self, peer: Peer, items: Iterable[bytes | Action]) -> None:
        items = list(items)
        self.frames.extend(("up", item) for item in items if isinstance(item, bytes))
        super().send(peer, items)

    def down(self, peer: Peer, way: str, message: Message) -> None:
        if peer.conn:
            self.frames.append((way, encode(self.rewrite(peer, message))))
        super().down(peer, way, message)


KEYS = HostKeys.generate()  # the host's keys, as a secure host tells them


def _games() -> list[tuple[str, bytes]]:
    """Frames of a few whole games and their incidents."""
    frames: list[tuple[str, bytes]] = []
    for players, host_bots, seed, promo in ((3, 1, 5, False), (4, 1, 7, True),
                                            (5, 2, 9, True), (2, 0, 3, False)):
        clock = FakeClock(0.0)
        net = Capture(table(clock, players=players, host_bots=host_bots, seed=seed,
                            promo=promo, decision_seconds=30.0), clock)
        net.table.host_key, net.table.sign_key = KEYS.public_key, KEYS.sign_key
        if seed == 3:  # two network players join in order, the start between two flushes
            bots = {peer: load_bot("greedy", i)
                    for i, peer in enumerate(join_in_one_host_turn(net))}
        else:
            bots = {net.join(f"P{i}"): load_bot("greedy", i)
                    for i in range(players - host_bots)}
        watcher = net.join("Watcher", role="spectator")
        first = next(iter(bots))
        # incidents: a chat line, a wrong token, a stale answer, a lost connection
        net.up(first, {"t": "chat", "token": first.core.token, "text": "hola", "id": 900})
        net.up(watcher, {"t": "chat", "token": "0" * 32, "text": "x", "id": 901})
        net.up(first, {"t": "decide", "token": first.core.token, "pending": 1,
                       "decision": {"kind": "end_turn"}, "id": 902})
        net.up(watcher, {"t": "snapshot", "id": 903})
        # the host forgets a connection (as after its restart): away, then hello again, back
        net.up(first, {"t": "bye", "token": first.core.token, "id": 904})
        game = net.table.game
        play(net, bots, until=lambda: game.round >= 3)  # noqa: B023 (used at once)
        net.tick(clock.now + 60.0)  # a decision times out
        play(net, bots, until=lambda: game.round >= 4)  # noqa: B023
        if seed == 9:
            net.table.output.announce_stop("test")
        if seed == 3:  # another program takes the first seat over: the first is told
            bots[net.join("P0", token=first.core.token, take_over=True)] = bots.pop(first)
        play(net, bots)
        net.beat()
        frames.extend(net.frames)
    return frames


@pytest.fixture(scope="module")
def frames() -> list[tuple[str, bytes]]:
    return _games()


def test_the_published_schema_file_is_the_one_the_code_makes() -> None:
    assert (ROOT / "docs" / "protocol.schema.json").read_text() == schema_text(), \
        "regenerate it: python -m mundus_net.protocol.schema > docs/protocol.schema.json"
    Draft202012Validator.check_schema(schema())


def _messages(frames: list[tuple[str, bytes]]) -> Iterator[tuple[str, str, Message]]:
    """(direction, side, message) of every frame, as msgpack decodes it and the schema's
    recipe converts it."""
    for way, frame in frames:
        yield way, "client" if way == "up" else "host", as_validated(msgpack.unpackb(
            frame, raw=False, strict_map_key=True))


def _refusal(validator: Any, message: Message) -> str | None:
    errors = list(validator.iter_errors(message))
    if not errors:
        return None
    best = jsonschema.exceptions.best_match(errors)
    return f"{message.get('t')}: {best.message} at {list(best.absolute_path)}"


def test_every_captured_message_matches_the_schema(frames: list[tuple[str, bytes]]) -> None:
    # Each message against its own kind's definition (picked by its t, each event by its
    # kind): the clearest errors, and one definition checked instead of every one.
    validators = {side: _validator(f"{side}_message") for side in ("client", "host")}
    for way, side, message in _messages(frames):
        refusal = _refusal(validators[side], message)
        assert refusal is None, f"{way} {refusal}\n{str(message)[:600]}"


def test_every_one_of_in_the_schema_is_told_apart_by_a_field() -> None:
    """So dispatching (which the message test validates with) checks what the published
    schema does: every union is a oneOf of maps with a text const of their own in one field."""
    by = dispatching(schema())["$defs"]
    assert '"oneOf"' not in json.dumps(by)
    deciding = {k: v for k, v in DECISION_KINDS.items() if k != "offer"}
    for union, prefix, field, kinds in (("client_message", "client", "t", client_schemas()),
                                        ("host_message", "host", "t", HOST_MESSAGES),
                                        ("event", "event", "kind", EVENTS),
                                        ("decision", "decision", "kind", DECISION_KINDS),
                                        ("decide_decision", "decision", "kind", deciding)):
        assert by[union]["x-one-of-by"] == {
            "field": field, "cases": {k: {"$ref": f"#/$defs/{prefix}_{k}"} for k in kinds}}


def test_the_published_schema_picks_each_message_by_its_kind_and_refuses_unknown_ones(
        frames: list[tuple[str, bytes]]) -> None:
    """The published schema itself (its top level: any client or host message, each union a
    oneOf, no dispatching) takes one captured message of each kind, the smallest, and refuses
    an unknown t or event kind and a message under another kind's t; the dispatching schema
    refuses them too."""
    published = Validator(schema())
    fast = {side: _validator(f"{side}_message") for side in ("client", "host")}
    smallest: dict[tuple[str, str], Message] = {}
    for _way, side, message in _messages(frames):
        key = (side, message["t"])
        if key not in smallest or len(str(message)) < len(str(smallest[key])):
            smallest[key] = message
    for (side, _t), message in sorted(smallest.items()):
        assert _refusal(published, message) is None
        assert _refusal(fast[side], message) is None
    update = min((m for (side, t), m in smallest.items() if t == "update"),
                 key=lambda m: len(str(m)))
    event = {"kind": "round", "round": 1, "tm": 0}
    wrong: list[tuple[str, Any]] = [
        ("host", {**smallest["host", "ok"], "t": "no_such_message"}),
        ("host", {key: value for key, value in smallest["host", "ok"].items() if key != "t"}),
        ("host", [smallest["host", "ok"]]),
        ("host", {**smallest["host", "heartbeat"], "t": "pong"}),  # seq: not a pong's
        ("host", {**update, "events": [{**event, "kind": "no_such_event"}]}),
        ("host", {**update, "events": [{**event, "kind": "take"}]}),
        ("client", {**smallest["client", "ping"], "t": "no_such_message"}),
    ]
    assert _refusal(fast["host"], {**update, "events": [event]}) is None
    for side, message in wrong:
        assert not published.is_valid(message), message
        assert not fast[side].is_valid(message), message


def test_the_captured_games_reach_every_message_and_most_event_kinds(
        frames: list[tuple[str, bytes]]) -> None:
    types: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for way, frame in frames:
        message = msgpack.unpackb(frame, raw=False)
        types[f"{way}:{message['t']}"] += 1
        for event in message.get("events", ()) or ():
            kinds[event["kind"]] += 1
        private = message.get("private")
        if isinstance(private, dict):
            for event in private.get("events", ()):
                kinds[event["kind"]] += 1
    host_types = {t.partition(":")[2] for t in types if not t.startswith("up:")}
    assert host_types == set(HOST_MESSAGES), host_types ^ set(HOST_MESSAGES)
    assert {DEALER, PUBLIC} <= {t.partition(":")[0] for t in types}
    # events a short seeded game may not reach: rare powers, and the host's rare incidents
    rare = {"split", "buy", "reshuffle", "perfect", "relics", "violation", "convert",
            "revert", "series", "pirates", "contribution_late", "stand_in", "stand_in_end",
            "closing"}
    assert set(EVENTS) - rare <= set(kinds), set(EVENTS) - rare - set(kinds)


def _smallest(frames: list[tuple[str, bytes]]) -> dict[tuple[str, str], Message]:
    """The smallest captured message of each (side, t)."""
    smallest: dict[tuple[str, str], Message] = {}
    for _way, side, message in _messages(frames):
        key = (side, message["t"])
        if key not in smallest or len(str(message)) < len(str(smallest[key])):
            smallest[key] = message
    return smallest


def test_the_recipe_s_standard_keywords_check_bytes_and_the_seed(
        frames: list[tuple[str, bytes]]) -> None:
    """A validator that ignores x-msgpack (the standard keywords alone, after the recipe's
    conversion) refuses text where bytes belong unless it is hex of the right length; with
    x-msgpack even that is refused. A seed above 2^53 given as a double (as a JavaScript
    validator gets it) passes the standard keywords; one over 64 bits fails x-msgpack."""
    standard, full = (_validator("host_message", kind=kind) for kind in (Standard, Validator))
    smallest = _smallest(frames)
    welcome = smallest["host", "welcome"]
    assert isinstance(welcome["seed_commitment"], Bin)
    for text in ("x" * 32, "ab" * 31, welcome["seed_commitment"].upper()):
        assert not standard.is_valid({**welcome, "seed_commitment": text}), text
    looks_like_hex = str(welcome["seed_commitment"])  # text on the wire, not bin
    assert standard.is_valid({**welcome, "seed_commitment": looks_like_hex})
    assert not full.is_valid({**welcome, "seed_commitment": looks_like_hex})
    reveal = next(m for _, side, m in _messages(frames) if side == "host"
                  and m["t"] == "update" and any(e["kind"] == "seed_reveal" for e in m["events"]))
    event = next(e for e in reveal["events"] if e["kind"] == "seed_reveal")
    big = {**reveal, "events": [{**event, "seed": float(2**63 + 2**11)}]}
    assert standard.is_valid(big) and full.is_valid({**big, "events": [{**event,
                                                                          "seed": 2**64 - 1}]})
    assert not full.is_valid({**big, "events": [{**event, "seed": 2**64}]})
    assert not standard.is_valid({**big, "events": [{**event, "seed": -1}]})


def test_the_schema_is_as_strict_as_the_host(frames: list[tuple[str, bytes]]) -> None:
    """What the host refuses or never sends, the schema refuses: a decide carrying an offer
    (not_pending), an error code not in protocol/errors.py, a waiting table's state (or an
    update before the start) with a game's key, a before-the-start private state with an
    event, a started table's state without one of the game's keys (issue 25, items 4, 8)."""
    client, host = (_validator(f"{side}_message") for side in ("client", "host"))
    smallest = _smallest(frames)
    decide = smallest["client", "decide"]
    assert not client.is_valid({**decide, "decision": {"kind": "offer", "cards": [1, 2]}})
    error = smallest["host", "error"]
    assert not host.is_valid({**error, "code": "no_such_code"})
    assert host.is_valid({**error, "code": "flood"})
    waiting = next(m for _, side, m in _messages(frames) if side == "host" and m["t"] ==
                   "snapshot" and not m["state"]["table"]["started"] and m["private"])
    state, private = waiting["state"], waiting["private"]
    assert set(state) == {"players", "promo", "round_limit", "pending", "result", "table"}
    assert set(private) == {"seat", "my_offer", "pending", "events"}
    deal = {"kind": "deal", "counts": {"0": 5, "1": 5}, "cards": [1, 2, 3, 4, 5]}
    for wrong in ({**state, "round": 1}, {**state, "pending": {"kind": "take", "seats": [0],
                                                                "detail": {}}},
                  {**state, "table": {**state["table"], "committed": [0]}}):
        assert not host.is_valid({**waiting, "state": wrong}), wrong
    assert not host.is_valid({**waiting, "private": {**private, "events": [deal]}})
    assert not host.is_valid({"v": waiting["v"], "t": "private", "seq": waiting["seq"],
                              "private": {**private, "events": [deal]}})
    before = next(m for _, side, m in _messages(frames) if side == "host" and m["t"] ==
                  "update" and m["changed"].get("table", {}).get("started") is False)
    assert _refusal(host, before) is None
    assert not host.is_valid({**before, "changed": {**before["changed"], "round": 1}})
    playing = next(m for _, side, m in _messages(frames) if side == "host" and m["t"] ==
                   "snapshot" and m["state"]["table"]["started"])
    lacking = {k: v for k, v in playing["state"].items() if k != "market"}
    assert not host.is_valid({**playing, "state": lacking})


# Text a client may send, and what it is probed with: the host's own validators decide.
_TEXT_PROBES: list[Any] = ["a", "a\x01b", "a\x1f", "a\tb", "a\x7fb", "a\u0085b", "a\u200bb",
                           "x" * 32, "x" * 33, "\U0001f600" * 32, "\U0001f600" * 33, "",
                           "x" * 200, "x" * 201, b"abc", b"\xab" * 16, "ab" * 16]


def test_the_schema_accepts_exactly_the_text_the_host_accepts() -> None:
    """Issue 37 (protocol 4, item 5): for every text field a client sends (a hello's name,
    client and invite, a chat's text, every token), the schema accepts what the host's
    decoder accepts and refuses the rest: control characters below U+0020, lengths counted
    in code points, and msgpack bin where text belongs (x-msgpack str)."""
    token = "0123456789abcdef" * 2
    bases: dict[str, Message] = {
        "hello": {"t": "hello", "name": "Ann", "role": "player", "client": "c1",
                  "invite": "K7QF-M2XD", "token": token},
        "chat": {"t": "chat", "token": token, "text": "hi"}}
    validator = _validator("client_message")
    checked = 0
    for base in bases.values():
        for field in (k for k in base if k not in ("t", "role")):
            for probe in _TEXT_PROBES:
                frame = encode({**base, field: probe})
                try:
                    decode_client(frame)
                    host_accepts = True
                except ProtocolError as exc:
                    assert exc.code == "bad_field", exc
                    host_accepts = False
                seen = as_validated(msgpack.unpackb(frame, raw=False, strict_map_key=True))
                assert validator.is_valid(seen) == host_accepts, (base["t"], field, probe)
                checked += 1
    assert checked == 6 * len(_TEXT_PROBES)


def test_the_schema_loads_in_ajv_strict_mode(tmp_path: Path) -> None:
    """Issue 37 (protocol 4, item 6), docs/protocol.md §2: ajv 8 in strict mode (strictTypes,
    strictRequired and the rest on) compiles the schema once x-msgpack and x-bytes are
    declared with addKeyword. Runs where node finds ajv (NODE_PATH, or `npm install ajv@8`
    in a folder named by MUNDUS_AJV_DIR); the standard keywords' rules it rests on are
    checked without it by the next test."""
    node = shutil.which("node")
    folder = os.environ.get("MUNDUS_AJV_DIR", "")
    if node is None or not (Path(folder) / "node_modules" / "ajv").is_dir():
        pytest.skip("node and ajv 8 not available: set MUNDUS_AJV_DIR to a folder where "
                    "`npm install ajv@8` ran")
    script = tmp_path / "strict.js"
    script.write_text(_AJV_STRICT)
    done = subprocess.run([node, str(script), str(ROOT / "docs" / "protocol.schema.json")],
                          cwd=folder, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "NODE_PATH": str(Path(folder) / "node_modules")})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr


_AJV_STRICT = """\
const Ajv2020 = require("ajv/dist/2020");
const schema = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
const ajv = new Ajv2020({strict: true});
ajv.addKeyword("x-msgpack");
ajv.addKeyword("x-bytes");
ajv.compile(schema);
console.log("ok");
"""


def test_every_if_of_the_schema_states_its_types_as_ajv_strict_mode_asks() -> None:
    """What ajv's strictTypes and strictRequired refused in the schema before issue 37: an
    object keyword (properties, required) in a sub-schema that does not say "type":
    "object", and a required key its own properties do not name, in every if, then and else."""
    def walk(node: Any) -> Iterator[Schema]:
        if isinstance(node, dict):
            for key in ("if", "then", "else"):
                if isinstance(node.get(key), dict):
                    yield node[key]
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)
    branches = list(walk(schema()))
    assert len(branches) >= 9
    for branch in branches:
        if "properties" in branch or "required" in branch:
            assert branch.get("type") == "object", branch
            assert set(branch.get("required", ())) <= set(branch.get("properties", {})), branch


def test_the_key_port_reply_and_the_beacon_match_the_schema() -> None:
    """The key port's answer (protocol/security.py), secure and insecure, and the beacon of
    a table (host/beacon.py, protocol/beacon.py) as they are sent."""
    reply = _validator("key_port_reply")
    for announcement in (KEYS.announcement(), KeyAnnouncement(None, None, insecure=True)):
        message = as_validated(msgpack.unpackb(encode_key_announcement(announcement),
                                               raw=False))
        assert _refusal(reply, message) is None
        assert _refusal(_validator("key_port_reply", schema()), message) is None
    secure = msgpack.unpackb(encode_key_announcement(KEYS.announcement()), raw=False)
    for wrong in ({**secure, "key": None}, {**secure, "insecure": True},
                  {**secure, "key": secure["key"][:39] + "~"}, {**secure, "v": 4}):
        assert not reply.is_valid(wrong), wrong
    beacon = _validator("beacon")
    clock = FakeClock(0.0)
    waiting = table(clock, players=3, host_bots=1)
    waiting.host_key = KEYS.public_key
    for key in (KEYS.public_key, None):
        waiting.host_key = key
        payload = encode_beacon(table_announcement(waiting, "tcp://127.0.0.1:7700", 7700,
                                                   7701))
        assert _refusal(beacon, json.loads(payload)) is None
    sent = json.loads(payload)
    for wrong in ({**sent, "v": 2}, {**sent, "app": "other"}, {**sent, "free": 7},
                  {k: v for k, v in sent.items() if k != "key"}):
        assert not beacon.is_valid(wrong), wrong


def _received(client: RawClient, until: Any) -> list[tuple[str, Message]]:
    """Every frame the client's DEALER and SUB receive, as the recipe converts them, until
    ``until(frames)`` (within WAIT)."""
    got: list[tuple[str, Message]] = []
    poller = zmq.Poller()
    poller.register(client.dealer, zmq.POLLIN)
    poller.register(client.sub, zmq.POLLIN)
    deadline = time.monotonic() + WAIT
    while not until(got):
        assert time.monotonic() < deadline, [m["t"] for _, m in got]
        for sock, _ in poller.poll(50):
            side = "dealer" if sock is client.dealer else "public"
            got.append((side, as_validated(msgpack.unpackb(sock.recv(), raw=False))))
    return got


@pytest.mark.network
def test_a_running_host_s_messages_key_port_reply_and_beacon_match_the_schema() -> None:
    """What a real host sends, byte for byte as it travels: a player's welcome, private
    messages, snapshot, updates, heartbeat and pong over CURVE sockets, its key port's
    answer to a DEALER (§16) and its beacon datagram on loopback (§14)."""
    host = Host(table(FakeClock(0.0), players=2, host_bots=1), port=0, log=lambda text: None)
    host.start()
    ctx: zmq.Context[Any] = zmq.Context()
    asker = ctx.socket(zmq.DEALER)
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    player = RawClient(ctx, host)
    beacon = None
    try:
        # A heartbeat first: the SUB is subscribed, so the start's update reaches it.
        frames = _received(player, lambda got: any(m["t"] == "heartbeat" for _, m in got))
        player.send(t="hello", name="Ann", role="player")
        frames += _received(player, lambda got: any(m["t"] == "welcome" for _, m in got))
        token = next(m["token"] for _, m in frames if m["t"] == "welcome")
        player.send(t="snapshot", token=token)
        player.send(t="ping", token=token)
        wanted = {"welcome", "private", "snapshot", "update", "pong", "heartbeat"}
        frames += _received(player, lambda got: wanted <= {m["t"] for _, m in frames + got})
        host_messages = _validator("host_message")
        for side, message in frames:
            assert _refusal(host_messages, message) is None, (side, message)
        listener.bind(("127.0.0.1", 0))
        listener.settimeout(WAIT)
        beacon = table_beacon(host, host.address, listener.getsockname(), interval=0.1)
        beacon.start()
        asker.connect(f"tcp://127.0.0.1:{host.key_port}")
        asker.send(b"keys?")
        assert asker.poll(int(WAIT * 1000)), "the key port did not answer"
        reply = as_validated(msgpack.unpackb(asker.recv(), raw=False))
        datagram = json.loads(listener.recv(MAX_BEACON + 1))
    finally:
        if beacon is not None:
            beacon.stop()
        listener.close()
        asker.close(linger=0)
        player.close()
        ctx.destroy(linger=0)
        host.stop()
    assert _refusal(_validator("key_port_reply"), reply) is None
    assert reply["key"] == host.public_key and reply["insecure"] is False
    assert _refusal(_validator("beacon"), datagram) is None
    assert datagram["v"] == PROTOCOL_VERSION and datagram["key"] == host.public_key


def test_the_document_s_examples_match_the_schema() -> None:
    """docs/protocol.md's hello bytes (§13) and beacon (§14) are what this version sends
    (issue 25, items 6 and 7: they said version 2 and 3)."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    hello_hex = re.search(r"The bytes of the `hello` above are `([0-9a-f ]+)`",
                          text.replace("\n", " "))
    assert hello_hex is not None
    hello = msgpack.unpackb(bytes.fromhex(hello_hex.group(1)), raw=False)
    assert hello["v"] == PROTOCOL_VERSION
    assert _refusal(_validator("client_message"), hello) is None
    beacon = re.search(r"```json\n(\{\"app\".*?\})\n```", text, re.S)
    assert beacon is not None
    assert _refusal(_validator("beacon"), json.loads(beacon.group(1))) is None
    assert f"| `version` | `v` is not {PROTOCOL_VERSION} " in text
