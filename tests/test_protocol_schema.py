"""Every message of whole games matches the protocol's machine-readable description
(docs/protocol.schema.json, made by protocol/schema.py; issue 14): host and client sides, every
decision kind the games reach, spectators, chat, errors, contributions, a lost connection and
its return, time-outs and a stop. The games run in memory with the real Table and client
cores, through the real codec (tests/test_client_core.py's Net); every frame is checked as
msgpack decodes it, binary values as bytes."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

import jsonschema
import msgpack
import pytest
from jsonschema import Draft202012Validator, ValidationError
from test_client_core import DEALER, PUBLIC, Clock, Net, Peer, play, table

from mundus_net.bots import load_bot
from mundus_net.client.core import Action
from mundus_net.protocol.codec import DECISION_KINDS
from mundus_net.protocol.messages import encode
from mundus_net.protocol.schema import (
    EVENTS,
    HOST_MESSAGES,
    client_schemas,
    schema,
    schema_text,
)

ROOT = Path(__file__).resolve().parent.parent
Message = dict[str, Any]
Schema = dict[str, Any]


def _msgpack_keyword(validator: Any, value: str, instance: Any,
                     schema: dict[str, Any]) -> Iterator[ValidationError]:
    """``x-msgpack``: ``bin`` is raw bytes (of ``x-bytes`` length); ``uint64`` an integer
    (its range is checked by ``maximum``)."""
    if value == "bin":
        if not isinstance(instance, bytes):
            yield ValidationError(f"{instance!r} is not msgpack bin")
        elif "x-bytes" in schema and len(instance) != schema["x-bytes"]:
            yield ValidationError(f"bin of {len(instance)} bytes, not {schema['x-bytes']}")


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


Validator = jsonschema.validators.extend(
    Draft202012Validator, {"x-msgpack": _msgpack_keyword, "x-one-of-by": _one_of_by_keyword})


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


def _validator(root: str, whole: Schema | None = None) -> Any:
    """A validator of one definition of the schema (by default the dispatching one)."""
    whole = dispatching(schema()) if whole is None else whole
    return Validator({key: value for key, value in whole.items() if key != "anyOf"}
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


def _games() -> list[tuple[str, bytes]]:
    """Frames of a few whole games and their incidents."""
    frames: list[tuple[str, bytes]] = []
    for players, host_bots, seed, promo in ((3, 1, 5, False), (4, 1, 7, True),
                                            (5, 2, 9, True), (2, 0, 3, False)):
        clock = Clock()
        net = Capture(table(clock, players=players, host_bots=host_bots, seed=seed,
                            promo=promo, decision_seconds=30.0), clock)
        bots = {net.join(f"P{i}"): load_bot("greedy", i) for i in range(players - host_bots)}
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
            net.table.announce_stop("test")
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
    """(direction, side, message) of every frame, as msgpack decodes it."""
    for way, frame in frames:
        yield way, "client" if way == "up" else "host", msgpack.unpackb(
            frame, raw=False, strict_map_key=True)


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
    for union, prefix, field, kinds in (("client_message", "client", "t", client_schemas()),
                                        ("host_message", "host", "t", HOST_MESSAGES),
                                        ("event", "event", "kind", EVENTS),
                                        ("decision", "decision", "kind", DECISION_KINDS)):
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
