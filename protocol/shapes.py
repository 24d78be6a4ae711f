"""The wire's main message shapes as ``TypedDict``s (docs/protocol.md, docs/protocol.schema.json).

Blobs (commitments, nonces, contributions) are msgpack binary, so ``bytes`` here; the schema,
which checks captures written as JSON, shows them as strings.

What a type checker reads; nothing is checked at run time here (``messages.decode_client``
checks a client's message field by field; a client reads a host's message through these shapes
and turns a wrong one into a ``Problem`` notice). ``v`` is added by ``messages.encode``; the
request ``id`` may ride on any client message and is echoed in the reply. Events, private
state, pending decisions and the public state stay maps (:data:`Message`): their shapes are
the engine's and are listed in the schema.
"""

# No "from __future__ import annotations": TypedDict reads NotRequired from evaluated
# annotations (its __required_keys__, which tests/test_protocol_shapes.py compares).
from typing import Any, Literal, NotRequired, TypedDict

__all__ = [
    "ByeMessage",
    "ChatMessage",
    "ClientMessage",
    "CommitMessage",
    "ContributeMessage",
    "DecideMessage",
    "ErrorMessage",
    "HeartbeatMessage",
    "HelloMessage",
    "HostMessage",
    "HostPingMessage",
    "Message",
    "OkMessage",
    "PingMessage",
    "PongMessage",
    "PrivateMessage",
    "RevealMessage",
    "SnapshotMessage",
    "SnapshotRequest",
    "TakenOverMessage",
    "UpdateMessage",
    "WelcomeMessage",
]

Message = dict[str, Any]  # any map on the wire (an event, a state, a message not named below)


# -- client -> host (docs/protocol.md §3-§15) ------------------------------------------------------

class HelloMessage(TypedDict):
    t: Literal["hello"]
    name: str
    role: str  # "player" or "spectator"
    token: NotRequired[str]
    bot: NotRequired[bool]
    contribute: NotRequired[bool]
    invite: NotRequired[str]
    client: NotRequired[str]  # the client program's id: its reconnects keep the seat (§3)
    take_over: NotRequired[bool]
    id: NotRequired[int]


class DecideMessage(TypedDict):
    t: Literal["decide"]
    token: str
    pending: int
    decision: Message  # a decision in wire form (protocol.codec.decision_to_wire)
    id: NotRequired[int]


class CommitMessage(TypedDict):
    t: Literal["commit"]
    token: str
    pending: int
    commitment: bytes
    id: NotRequired[int]


class RevealMessage(TypedDict):
    t: Literal["reveal"]
    token: str
    pending: int
    offer: list[int]
    nonce: bytes
    id: NotRequired[int]


class ContributeMessage(TypedDict):
    t: Literal["contribute"]
    token: str
    value: bytes
    id: NotRequired[int]


class ChatMessage(TypedDict):
    t: Literal["chat"]
    token: str
    text: str
    id: NotRequired[int]


class SnapshotRequest(TypedDict):
    t: Literal["snapshot"]
    token: NotRequired[str]
    id: NotRequired[int]


class PingMessage(TypedDict):
    t: Literal["ping"]
    token: NotRequired[str]
    id: NotRequired[int]


class ByeMessage(TypedDict):
    t: Literal["bye"]
    token: NotRequired[str]
    id: NotRequired[int]


ClientMessage = (HelloMessage | DecideMessage | CommitMessage | RevealMessage
                 | ContributeMessage | ChatMessage | SnapshotRequest | PingMessage | ByeMessage)


# -- host -> client ------------------------------------------------------------------------------

class WelcomeMessage(TypedDict):
    t: Literal["welcome"]
    seat: int | None
    token: str | None
    game: str
    name: str
    players: int
    names: list[str]
    options: Message
    deck: list[Any]
    heartbeat_ms: int
    pub_port: int
    host_key: str | None
    sign_key: str | None
    seed_commitment: bytes
    contribute: bool
    invite: NotRequired[str]
    id: NotRequired[int]


class OkMessage(TypedDict):
    t: Literal["ok"]
    id: NotRequired[int]


class ErrorMessage(TypedDict):
    t: Literal["error"]
    code: str  # one of protocol.errors.ERROR_CODES
    message: str
    rule: str | None
    id: NotRequired[int]


class UpdateMessage(TypedDict):
    t: Literal["update"]
    seq: int
    changed: Message  # the public state's keys that changed (§5)
    events: list[Message]


class PrivateMessage(TypedDict):
    t: Literal["private"]
    seq: int
    private: Message  # the seat's private state (§6)


class SnapshotMessage(TypedDict):
    t: Literal["snapshot"]
    seq: int
    state: Message
    private: Message | None
    events: list[Message]
    id: NotRequired[int]


class PongMessage(TypedDict):
    t: Literal["pong"]
    id: NotRequired[int]


class HeartbeatMessage(TypedDict):
    t: Literal["heartbeat"]
    seq: int


class HostPingMessage(TypedDict):
    t: Literal["ping"]


class TakenOverMessage(TypedDict):
    t: Literal["taken_over"]
    seat: int
    message: str


HostMessage = (WelcomeMessage | OkMessage | ErrorMessage | UpdateMessage | PrivateMessage
               | SnapshotMessage | PongMessage | HeartbeatMessage | HostPingMessage
               | TakenOverMessage)
