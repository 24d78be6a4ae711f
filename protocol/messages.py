"""Message framing and validation (docs/protocol.md).

Every message is one msgpack map with the protocol version ``v`` and a type ``t``. Incoming
messages are checked here (size, shape, version, type, every field's type and range, no
unknown fields) before anything acts on them; a failure raises ProtocolError.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgpack

from mundus_net.protocol.commitment import NONCE_BYTES
from mundus_net.protocol.errors import ProtocolError
from mundus_net.protocol.fairdeal import CONTRIBUTION_BYTES
from mundus_net.protocol.shapes import Message

__all__ = [
    "CLIENT_MESSAGES", "COMMITMENT_BYTES", "DEFAULT_HEARTBEAT_MS", "MAX_CHAT", "MAX_CLIENT_FRAME",
    "MAX_CLIENT_ID", "MAX_HOST_FRAME", "MAX_INVITE", "MAX_NAME", "PROTOCOL_VERSION", "REQUEST_ID",
    "TOKEN_HEX", "Validator", "anything_map", "blob", "cards", "choice", "decode_client",
    "decode_host", "encode", "encode_sharing", "flag", "text", "token", "unpack", "whole"
]

PROTOCOL_VERSION = 4  # 4: a seat held by a live connection is taken over only on request (§3)
MAX_CLIENT_FRAME = 8 * 1024  # what a client may send the host: its largest message is under 2 KiB
MAX_HOST_FRAME = 16 * 1024 * 1024  # what a host may send a client (snapshots carry the log)
TOKEN_HEX = 32  # seat tokens: 32 hex digits (128 bits)
COMMITMENT_BYTES = 32
DEFAULT_HEARTBEAT_MS = 1000  # until a welcome says otherwise (§11)
MAX_NAME = 32
MAX_CHAT = 200
MAX_INVITE = 32
MAX_CLIENT_ID = 32

Validator = Callable[[str, Any], Any]


def _fail(field: str, message: str) -> ProtocolError:
    return ProtocolError("bad_field", f"field {field!r}: {message}")


def text(lo: int, hi: int) -> Validator:
    def check(field: str, value: Any) -> str:
        if not isinstance(value, str) or not lo <= len(value) <= hi:
            raise _fail(field, f"expected text of {lo}-{hi} characters")
        if any(ord(ch) < 32 for ch in value):
            raise _fail(field, "control characters are not allowed")
        return value
    return check


def choice(*options: str) -> Validator:
    def check(field: str, value: Any) -> str:
        if value not in options:
            raise _fail(field, f"expected one of {', '.join(options)}")
        return str(value)
    return check


_HEX_DIGITS = frozenset("0123456789abcdef")


def token(field: str, value: Any) -> str:
    if not isinstance(value, str) or len(value) != TOKEN_HEX or not _HEX_DIGITS.issuperset(
            value):
        raise _fail(field, f"expected a seat token of {TOKEN_HEX} lowercase hex digits")
    return value


def whole(lo: int, hi: int) -> Validator:
    def check(field: str, value: Any) -> int:
        if type(value) is not int or not lo <= value <= hi:
            raise _fail(field, f"expected a whole number {lo}-{hi}")
        return value
    return check


def blob(size: int) -> Validator:
    def check(field: str, value: Any) -> bytes:
        if not isinstance(value, bytes) or len(value) != size:
            raise _fail(field, f"expected {size} bytes (msgpack bin)")
        return value
    return check


def cards(field: str, value: Any) -> list[int]:
    if not isinstance(value, list) or len(value) > 30 or not all(
            type(c) is int and 1 <= c <= 10 for c in value):
        raise _fail(field, "expected an array of at most 30 cards (1-9, 10 = relic)")
    return sorted(value)


def flag(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(field, "expected true or false")
    return value


def anything_map(field: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(field, "expected a map")
    return value


REQUEST_ID = whole(0, 2**31 - 1)

# Client -> host messages: type -> {field: (required, validator)}. "v", "t" and the optional
# request "id" (echoed in the reply) are allowed on every message.
CLIENT_MESSAGES: dict[str, dict[str, tuple[bool, Validator]]] = {
    "hello": {"name": (True, text(1, MAX_NAME)), "role": (True, choice("player", "spectator")),
              "token": (False, token), "bot": (False, flag), "contribute": (False, flag),
              "invite": (False, text(1, MAX_INVITE)),
              # One client program: its reconnects keep the seat without take_over (§3).
              "client": (False, text(1, MAX_CLIENT_ID)), "take_over": (False, flag)},
    # Fair deals (§15): this seat's random contribution to the engine seed.
    "contribute": {"token": (True, token), "value": (True, blob(CONTRIBUTION_BYTES))},
    "snapshot": {"token": (False, token)},
    "decide": {"token": (True, token), "pending": (True, whole(0, 2**31 - 1)),
               "decision": (True, anything_map)},
    "commit": {"token": (True, token), "pending": (True, whole(0, 2**31 - 1)),
               "commitment": (True, blob(COMMITMENT_BYTES))},
    "reveal": {"token": (True, token), "pending": (True, whole(0, 2**31 - 1)),
               "offer": (True, cards), "nonce": (True, blob(NONCE_BYTES))},
    "chat": {"token": (True, token), "text": (True, text(1, MAX_CHAT))},
    "ping": {"token": (False, token)},
    "bye": {"token": (False, token)},
}


def encode(message: Mapping[str, Any]) -> bytes:
    """Pack a message (adds the protocol version)."""
    packed: bytes = msgpack.packb({"v": PROTOCOL_VERSION, **message}, use_bin_type=True)
    return packed


def encode_sharing(message: Mapping[str, Any], packed: dict[str, tuple[object, bytes]]) -> bytes:
    """:func:`encode`, byte for byte, with large values packed once for many messages: for a
    key of ``packed`` whose value *is* (identity, not equality) the object held there, its
    packed bytes are reused; otherwise the value is packed and kept there for the next
    message (the host packs a snapshot's history once per state, not once per request)."""
    full = {"v": PROTOCOL_VERSION, **message}
    packer = msgpack.Packer(use_bin_type=True)
    parts = [packer.pack_map_header(len(full))]
    for key, value in full.items():
        parts.append(packer.pack(key))
        if key not in packed:
            parts.append(packer.pack(value))
            continue
        held, data = packed[key]
        if held is not value:
            data = packer.pack(value)
            packed[key] = (value, data)
        parts.append(data)
    return b"".join(parts)


def unpack(frame: bytes, limit: int) -> Message:
    """Bytes -> a map with a type and our version, or ProtocolError."""
    if len(frame) > limit:
        raise ProtocolError("too_large", f"frame of {len(frame)} bytes; the limit is {limit}")
    try:
        # unpackb bounds every declared length by the frame's size (already checked).
        message = msgpack.unpackb(frame, raw=False, strict_map_key=True)
    except Exception as exc:  # msgpack raises several unrelated types for bad input
        raise ProtocolError("malformed", f"not valid msgpack ({type(exc).__name__})") from None
    if not isinstance(message, dict):
        raise ProtocolError("malformed", "a message is a msgpack map")
    version = message.get("v")
    if version != PROTOCOL_VERSION:
        raise ProtocolError("version", f"protocol version {version!r}; this side speaks "
                                       f"{PROTOCOL_VERSION}")
    if not isinstance(message.get("t"), str):
        raise ProtocolError("malformed", "a message has a type 't' (text)")
    return message


def decode_client(frame: bytes) -> Message:
    """Validate a client's frame completely; return the message with checked fields."""
    message = unpack(frame, MAX_CLIENT_FRAME)
    kind = message["t"]
    schema = CLIENT_MESSAGES.get(kind)
    if schema is None:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:40]!r}; known: "
                                            f"{', '.join(sorted(CLIENT_MESSAGES))}")
    out: Message = {"t": kind}
    for name in message:
        if name not in schema and name not in ("v", "t", "id"):
            raise _fail(str(name)[:40], f"not a field of {kind}")
    if "id" in message:
        out["id"] = REQUEST_ID("id", message["id"])
    for name, (required, check) in schema.items():
        if name in message:
            out[name] = check(name, message[name])
        elif required:
            raise _fail(name, f"missing from {kind}")
    return out


def decode_host(frame: bytes) -> Message:
    """A host's frame as a client reads it (shape and version only; clients trust their
    pinned host for content, but never crash on it)."""
    return unpack(frame, MAX_HOST_FRAME)
