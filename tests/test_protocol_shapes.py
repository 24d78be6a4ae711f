"""protocol/shapes.py's TypedDicts say what docs/protocol.schema.json says: the same fields,
the same ones required (``v`` aside: ``encode`` adds it). No rule of the game is checked here;
the wire is docs/protocol.md's (§3-§15)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mundus_net.protocol import shapes

SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "protocol.schema.json")
                    .read_text("utf-8"))["$defs"]

SHAPES: dict[str, Any] = {  # TypedDict classes (mypy has no type for them as values)
    "client_hello": shapes.HelloMessage, "client_decide": shapes.DecideMessage,
    "client_commit": shapes.CommitMessage, "client_reveal": shapes.RevealMessage,
    "client_contribute": shapes.ContributeMessage, "client_chat": shapes.ChatMessage,
    "client_snapshot": shapes.SnapshotRequest, "client_ping": shapes.PingMessage,
    "client_bye": shapes.ByeMessage,
    "host_welcome": shapes.WelcomeMessage, "host_ok": shapes.OkMessage,
    "host_error": shapes.ErrorMessage, "host_update": shapes.UpdateMessage,
    "host_private": shapes.PrivateMessage, "host_snapshot": shapes.SnapshotMessage,
    "host_pong": shapes.PongMessage, "host_heartbeat": shapes.HeartbeatMessage,
    "host_ping": shapes.HostPingMessage, "host_taken_over": shapes.TakenOverMessage,
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_message_shape_has_the_schemas_fields_and_requires_the_same(name: str) -> None:
    shape, schema = SHAPES[name], SCHEMA[name]
    assert shape.__required_keys__ | shape.__optional_keys__ == set(schema["properties"]) - {"v"}
    assert shape.__required_keys__ == set(schema["required"]) - {"v"}


def test_every_message_of_the_schema_has_a_shape() -> None:
    named = {ref["$ref"].rsplit("/", 1)[1] for side in ("client_message", "host_message")
             for ref in SCHEMA[side].get("oneOf", SCHEMA[side].get("anyOf", []))}
    assert named - set(SHAPES) == set()
