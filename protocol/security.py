"""Encryption and host identity (docs/protocol.md §16, docs/security.md).

Both host sockets (ROUTER and PUB) are ZeroMQ CURVE servers: every connection is encrypted
and the client knows it talks to the holder of the host's secret key. A client needs the
host's public key *before* it connects; it pins it (``--host-key``), hears it in the LAN
beacon, has it saved from an earlier visit (trust on first use), or asks the host's **key
port**, PORT+2: a plain (unencrypted) ZeroMQ ROUTER that answers any one-frame request with
the host's public keys and nothing else.

Keys travel as Z85 text (40 characters, ZeroMQ's own encoding of the 32-byte CURVE key);
people compare the short fingerprint: the first 16 hex digits of SHA-256 of the raw key,
in groups of four.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgpack
import zmq
from zmq.utils import z85

from mundus_net.engine.errors import MundusError

__all__ = [
    "KEY_PORT_OFFSET", "KEY_PORT_VERSION", "KEY_TIMEOUT_S", "MAX_KEY_REQUEST", "Z85_ALPHABET",
    "Z85_KEY_CHARS", "KeyAnnouncement", "SecurityError", "decode_key_announcement",
    "encode_key_announcement", "fetch_key", "fingerprint", "fingerprint_bytes", "is_key",
    "key_address", "make_client", "make_server", "new_client_keypair", "parse_key", "require_curve"
]

KEY_PORT_OFFSET = 2  # the key port is the ROUTER's port + 2 (the PUB's is + 1)
Z85_KEY_CHARS = 40
MAX_KEY_REQUEST = 256  # bytes: a key request is one small frame
KEY_TIMEOUT_S = 3.0
Z85_ALPHABET = ("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                ".-:+=^!/*?&<>()[]{}@%$#")
_Z85 = frozenset(Z85_ALPHABET)
KEY_PORT_VERSION = 1  # the key port's answer keeps its own version, whatever the protocol's


class SecurityError(MundusError):
    """Encryption cannot be set up (no CURVE in this ZeroMQ, a malformed key...)."""


def require_curve() -> None:
    """Raise a clear SecurityError when this ZeroMQ has no CURVE (libsodium) support."""
    if not zmq.has("curve"):
        raise SecurityError(
            "this ZeroMQ library was built without CURVE (libsodium) support, so the table "
            "cannot be encrypted: install a pyzmq wheel (pip install --force-reinstall pyzmq) "
            "or a libzmq with libsodium, or run with --insecure (no encryption: anyone on the "
            "network can read every hand)")


def is_key(text: object) -> bool:
    return isinstance(text, str) and len(text) == Z85_KEY_CHARS and _Z85.issuperset(text)


def parse_key(text: str) -> str:
    """A Z85 public key as typed (spaces around it ignored); SecurityError if malformed."""
    key = text.strip()
    if not is_key(key):
        raise SecurityError(f"{text!r} is not a host key: a host key is {Z85_KEY_CHARS} "
                            "characters of Z85 text, as `mundus host` prints it")
    try:
        raw = z85.decode(key.encode("ascii"))
    except Exception:  # the z85 decoder raises several types for bad input
        raise SecurityError(f"{text!r} is not valid Z85") from None
    if len(raw) != 32:
        raise SecurityError(f"{text!r} does not decode to a 32-byte key")
    return key


def fingerprint_bytes(raw: bytes) -> str:
    """``1a2b 3c4d 5e6f 7a8b``: the first 16 hex digits of SHA-256 of ``raw``."""
    digits = hashlib.sha256(raw).hexdigest()[:16]
    return " ".join(digits[i:i + 4] for i in range(0, 16, 4))


def fingerprint(key: str) -> str:
    """The fingerprint of a Z85 CURVE public key (of its 32 raw bytes)."""
    return fingerprint_bytes(z85.decode(key.encode("ascii")))


def new_client_keypair() -> tuple[bytes, bytes]:
    """A fresh (public, secret) CURVE key pair, Z85: clients use one per connection."""
    public, secret = zmq.curve_keypair()
    return public, secret


def make_client(sock: zmq.Socket[Any], server_key: str) -> None:
    """Make ``sock`` (before it connects) a CURVE client of the host with ``server_key``,
    with a fresh key pair of its own (the host knows clients by their seat tokens)."""
    require_curve()
    public, secret = new_client_keypair()
    sock.curve_serverkey = server_key.encode("ascii")
    sock.curve_publickey = public
    sock.curve_secretkey = secret


def make_server(sock: zmq.Socket[Any], public: bytes, secret: bytes) -> None:
    """Make ``sock`` (before it binds) a CURVE server with this key pair (Z85 bytes)."""
    require_curve()
    sock.curve_secretkey = secret
    sock.curve_publickey = public
    sock.curve_server = True


# -- the key port ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyAnnouncement:
    """What a host's key port says: its CURVE key (None: the table is not encrypted) and the
    Ed25519 key that signs its game records (hex)."""

    key: str | None
    sign_key: str | None
    insecure: bool


def encode_key_announcement(a: KeyAnnouncement) -> bytes:
    packed: bytes = msgpack.packb({"v": KEY_PORT_VERSION, "t": "host_key", "key": a.key,
                                   "sign_key": a.sign_key, "insecure": a.insecure},
                                  use_bin_type=True)
    return packed


def decode_key_announcement(frame: bytes) -> KeyAnnouncement:
    try:
        data = msgpack.unpackb(frame, raw=False, strict_map_key=True)
    except Exception:  # msgpack raises several types for garbage
        raise SecurityError("the key port's answer is not msgpack") from None
    if not isinstance(data, dict) or data.get("t") != "host_key":
        raise SecurityError("the key port's answer is not a host_key message")
    key, sign_key, insecure = data.get("key"), data.get("sign_key"), data.get("insecure")
    if not isinstance(insecure, bool) or (key is not None and not is_key(key)) or (
            not insecure and key is None) or (sign_key is not None and (
                not isinstance(sign_key, str) or len(sign_key) != 64)):
        raise SecurityError("the key port's answer is malformed")
    return KeyAnnouncement(key, sign_key, insecure)


def key_address(address: str) -> str:
    """``tcp://HOST:PORT`` -> ``tcp://HOST:PORT+2``, the key port."""
    scheme, sep, rest = address.partition("://")
    host, colon, port = rest.rpartition(":")
    if not sep or not colon or not port.isdigit():
        raise ValueError(f"{address!r} is not tcp://HOST:PORT")
    return f"{scheme}://{host}:{int(port) + KEY_PORT_OFFSET}"


def fetch_key(address: str, timeout: float = KEY_TIMEOUT_S,
              context: zmq.Context[Any] | None = None) -> KeyAnnouncement | None:
    """Ask the key port of the table at ``address``; None when nothing answers in time.
    The answer is not authenticated: it is as good as trust on first use."""
    ctx = context or zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    try:
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.MAXMSGSIZE, 4096)
        sock.connect(key_address(address))
        sock.send(msgpack.packb({"v": KEY_PORT_VERSION, "t": "key"}), zmq.NOBLOCK)
        if not sock.poll(max(1, int(timeout * 1000))):
            return None
        return decode_key_announcement(sock.recv(zmq.NOBLOCK))
    except zmq.ZMQError:
        return None
    finally:
        sock.close(linger=0)
