"""Every message of whole games matches the protocol's machine-readable description
(docs/protocol.schema.json, made by protocol/schema.py; issue 14): host and client sides, every
decision kind the games reach, spectators, chat, errors, contributions, a lost connection and
its return, time-outs and a stop. The games run in memory with the real Table and client
cores, through the real codec (tests/test_client_core.py's Net); every frame is checked as
msgpack decodes it, binary values as bytes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import msgpack
import pytest
from jsonschema import Draft202012Validator, ValidationError
from test_client_core import DEALER, PUBLIC, Clock, Net, Peer, play, table

from mundus_net.bots import load_bot
from mundus_net.client.core import Action
from mundus_net.protocol.messages import encode
from mundus_net.protocol.schema import EVENTS, HOST_MESSAGES, schema, schema_text

ROOT = Path(__file__).resolve().parent.parent
Message = dict[str, Any]


def _msgpack_keyword(validator: Any, value: str, instance: Any,
                     schema: dict[str, Any]) -> Iterator[ValidationError]:
    """``x-msgpack``: ``bin`` is raw bytes (of ``x-bytes`` length); ``uint64`` an integer
    (its range is checked by ``maximum``)."""
    if value == "bin":
        if not isinstance(instance, bytes):
            yield ValidationError(f"{instance!r} is not msgpack bin")
        elif "x-bytes" in schema and len(instance) != schema["x-bytes"]:
            yield ValidationError(f"bin of {len(instance)} bytes, not {schema['x-bytes']}")


Validator = jsonschema.validators.extend(Draft202012Validator,
                                         {"x-msgpack": _msgpack_keyword})


def _validator(root: str) -> Any:
    whole = schema()
    return Validator({**whole, "oneOf": [{"$ref": f"#/$defs/{root}"}]})


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


def test_every_captured_message_matches_the_schema(frames: list[tuple[str, bytes]]) -> None:
    validators: dict[str, Any] = {}
    for way, frame in frames:
        message = msgpack.unpackb(frame, raw=False, strict_map_key=True)
        side = "client" if way == "up" else "host"
        root = f"{side}_{message['t']}"  # the message's own definition: the clearest errors
        if root not in validators:
            validators[root] = _validator(root if root in schema()["$defs"] else
                                          f"{side}_message")
        validator = validators[root]
        errors = sorted(validator.iter_errors(message), key=lambda e: e.path)
        if errors:
            best = jsonschema.exceptions.best_match(errors)
            raise AssertionError(f"{way} {message.get('t')}: {best.message} at "
                                 f"{list(best.absolute_path)}\n{str(message)[:600]}")


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
