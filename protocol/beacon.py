"""The LAN beacon's datagram (docs/protocol.md §14): one JSON object a host sends by UDP
every second so that clients on the LAN can list its table without knowing its address.

The host's sender is :mod:`mundus_net.host.beacon`, the client's listener
:mod:`mundus_net.client.discovery`; both read and write the datagram only through this module.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mundus_net.engine.errors import MundusError
from mundus_net.protocol.messages import PROTOCOL_VERSION
from mundus_net.protocol.security import is_key

__all__ = [
    "BEACON_BROADCAST", "BEACON_PORT", "BEACON_TAG", "MAX_BEACON", "MAX_TABLE_NAME",
    "Announcement", "BeaconError", "decode_beacon", "encode_beacon", "parse_endpoint"
]

BEACON_PORT = 7799
BEACON_BROADCAST = "255.255.255.255"
BEACON_TAG = "mundus-net"
MAX_BEACON = 1024  # bytes: a datagram larger than this is not a beacon
MAX_TABLE_NAME = 64


class BeaconError(MundusError, ValueError):
    """The datagram is not a mundus-net beacon."""


@dataclass(frozen=True, slots=True)
class Announcement:
    """What a beacon says about one table."""

    name: str  # the table's name
    game: str  # the game id
    port: int  # the ROUTER port: join tcp://SENDER:port
    pub_port: int
    players: int
    free: int  # seats nobody has taken yet
    started: bool
    address: str  # the address the host printed (for people; join the sender's address)
    version: int = PROTOCOL_VERSION  # the table's protocol version
    key: str | None = None  # the host's CURVE public key (Z85); None: not encrypted


def encode_beacon(a: Announcement) -> bytes:
    data = {"app": BEACON_TAG, "v": a.version, "name": a.name[:MAX_TABLE_NAME],
            "game": a.game, "port": a.port, "pub_port": a.pub_port, "players": a.players,
            "free": a.free, "started": a.started, "address": a.address, "key": a.key}
    packed = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(packed) > MAX_BEACON:
        raise BeaconError(f"a beacon is at most {MAX_BEACON} bytes, not {len(packed)}")
    return packed


def _field(data: dict[str, Any], key: str, kind: type, lo: int = 0, hi: int = 65535) -> Any:
    value = data.get(key)
    if kind is int:
        if type(value) is not int or not lo <= value <= hi:
            raise BeaconError(f"field {key!r}: expected a whole number {lo}-{hi}")
    elif not isinstance(value, kind):
        raise BeaconError(f"field {key!r}: expected {kind.__name__}")
    return value


def decode_beacon(packet: bytes) -> Announcement:
    """The announcement in ``packet``; BeaconError if it is not a beacon. Fields this version
    does not know are ignored, so that a newer host's beacon still lists."""
    if len(packet) > MAX_BEACON:
        raise BeaconError("too large")
    try:
        data = json.loads(packet.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BeaconError("not JSON") from None
    if not isinstance(data, dict) or data.get("app") != BEACON_TAG:
        raise BeaconError(f"not a {BEACON_TAG} beacon")
    key = data.get("key")  # optional: older hosts do not send it
    if key is not None and not is_key(key):
        raise BeaconError("field 'key': expected a host key (40 characters of Z85) or null")
    return Announcement(
        name=_field(data, "name", str)[:MAX_TABLE_NAME], game=_field(data, "game", str),
        port=_field(data, "port", int, 1), pub_port=_field(data, "pub_port", int, 1),
        players=_field(data, "players", int, 2, 6), free=_field(data, "free", int, 0, 6),
        started=_field(data, "started", bool), address=_field(data, "address", str),
        version=_field(data, "v", int, 1, 2**31 - 1), key=key)


def parse_endpoint(text: str, default_host: str, default_port: int = BEACON_PORT
                   ) -> tuple[str, int]:
    """``"ADDR:PORT"``, ``"ADDR"`` or ``"PORT"`` -> (address, port); ValueError if malformed."""
    text = text.strip()
    host, sep, port_text = text.rpartition(":")
    if not sep:
        if text.isdigit():
            host, port_text = default_host, text
        else:
            host, port_text = text, str(default_port)
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"{text!r}: the port must be 1-65535")
    return host or default_host, int(port_text)
