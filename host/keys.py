"""The host's long-term keys (docs/security.md): a CURVE key pair that encrypts its sockets
and proves its identity to clients, and an Ed25519 key that signs its game records.

Both are created on the first run in the key directory, ``$XDG_STATE_HOME/mundus-net``
(``~/.local/state/mundus-net``), or ``mundus host --key-dir DIR``:

* ``host-key``: JSON ``{"format", "public", "secret"}``, the CURVE pair in Z85;
* ``host-sign-key``: the Ed25519 private key, PKCS#8 PEM.

Both files are readable by their owner only (0600) in a 0700 directory. Tests and
``mundus play`` may use keys that live in memory only (:meth:`HostKeys.generate`).

The key port (:class:`KeyPort`) answers any request with the public halves, nothing else.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from zmq.utils.monitor import parse_monitor_message

from mundus_net.host.guard import (
    ConnectionGuard,
    KeyedLimiter,
    TokenBucket,
    cut,
    peer_address,
    source_key,
)
from mundus_net.protocol.security import (
    MAX_KEY_REQUEST,
    KeyAnnouncement,
    SecurityError,
    encode_key_announcement,
    fingerprint,
    fingerprint_bytes,
    is_key,
    new_client_keypair,
)
from mundus_net.protocol.statedir import state_dir

__all__ = [
    "CURVE_FILE", "FORMAT", "KEY_PORT_CONNECTIONS", "KEY_PORT_SECONDS", "KEY_REQUESTS_PER_SECOND",
    "KEY_REQUEST_BURST", "SIGN_FILE", "SOURCE_REQUESTS_PER_SECOND", "SOURCE_REQUEST_BURST",
    "HostKeys", "KeyPort", "default_key_dir", "key_port_socket", "own_sign_key", "signed_by"
]

CURVE_FILE = "host-key"
SIGN_FILE = "host-sign-key"
FORMAT = "mundus-net/host-key/1"


def default_key_dir() -> Path:
    """``$XDG_STATE_HOME/mundus-net``, or ``~/.local/state/mundus-net``."""
    return state_dir()


@dataclass(frozen=True)
class HostKeys:
    """The host's CURVE pair (Z85 bytes) and Ed25519 signing key."""

    curve_public: bytes
    curve_secret: bytes
    sign_private: Ed25519PrivateKey
    path: Path | None = None  # the key directory, None for keys kept in memory

    @classmethod
    def generate(cls) -> HostKeys:
        """Fresh keys in memory only (tests, throw-away tables)."""
        public, secret = new_client_keypair()
        return cls(public, secret, Ed25519PrivateKey.generate())

    @classmethod
    def load_or_create(cls, key_dir: Path | None = None,
                       warn: Any = None) -> HostKeys:
        """The keys in ``key_dir`` (the default directory if None), created on first use.
        SecurityError when a file exists but cannot be read as a key."""
        folder = key_dir or default_key_dir()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        curve_path, sign_path = folder / CURVE_FILE, folder / SIGN_FILE
        if not curve_path.exists():
            public, secret = new_client_keypair()
            data = {"format": FORMAT, "public": public.decode(), "secret": secret.decode()}
            _create_secret(curve_path, (json.dumps(data, indent=1) + "\n").encode())
        if not sign_path.exists():
            pem = Ed25519PrivateKey.generate().private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption())
            _create_secret(sign_path, pem)
        for path in (curve_path, sign_path):
            _check_private(path, warn)
        try:
            data = json.loads(curve_path.read_text(encoding="utf-8"))
            public_text, secret_text = data["public"], data["secret"]
            if data.get("format") != FORMAT or not is_key(public_text) or not is_key(
                    secret_text):
                raise ValueError("not a mundus-net host key")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SecurityError(f"cannot read the host key {curve_path}: {exc}") from None
        try:
            sign = serialization.load_pem_private_key(sign_path.read_bytes(), password=None)
        except (OSError, ValueError, TypeError) as exc:
            raise SecurityError(f"cannot read the signing key {sign_path}: {exc}") from None
        if not isinstance(sign, Ed25519PrivateKey):
            raise SecurityError(f"{sign_path} is not an Ed25519 key")
        return cls(public_text.encode(), secret_text.encode(), sign, folder)

    # -- the public halves ------------------------------------------------------------------

    @property
    def public_key(self) -> str:
        """The CURVE public key, Z85 text (what clients pin with --host-key)."""
        return self.curve_public.decode("ascii")

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    @property
    def sign_public(self) -> bytes:
        return _raw_public(self.sign_private)

    @property
    def sign_key(self) -> str:
        """The Ed25519 public key, hex (what `mundus verify --host-key` pins)."""
        return self.sign_public.hex()

    @property
    def sign_fingerprint(self) -> str:
        return fingerprint_bytes(self.sign_public)

    def sign(self, message: bytes) -> bytes:
        return self.sign_private.sign(message)

    def announcement(self) -> KeyAnnouncement:
        return KeyAnnouncement(self.public_key, self.sign_key, insecure=False)


def own_sign_key(key_dir: Path | None = None) -> str | None:
    """The public half (hex) of this computer's record signing key, the one ``mundus host``
    and ``mundus play`` sign with (``key_dir``, default the user's state folder); None when
    there is none or it cannot be read. Nothing is created."""
    try:
        sign = serialization.load_pem_private_key(
            ((key_dir or default_key_dir()) / SIGN_FILE).read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return None
    return _raw_public(sign).hex() if isinstance(sign, Ed25519PrivateKey) else None


def _raw_public(sign: Ed25519PrivateKey) -> bytes:
    return sign.public_key().public_bytes(serialization.Encoding.Raw,
                                          serialization.PublicFormat.Raw)


def signed_by(sign_key: str | None, own_key: str | None) -> str:
    """Which key signs a record, in the words every command uses (docs/record.md, "Whose key
    signed"): ``signed by this computer's host key, fingerprint 1a2b 3c4d 5e6f 7a8b`` when it
    is ``own_key`` (:func:`own_sign_key`), else ``signed by the record signing key 1a2b
    ...``; ``not signed (--insecure)`` for None."""
    if sign_key is None:
        return "not signed (--insecure)"
    fp = fingerprint_bytes(bytes.fromhex(sign_key))
    if sign_key == own_key:
        return f"signed by this computer's host key, fingerprint {fp}"
    return f"signed by the record signing key {fp}"


def _create_secret(path: Path, content: bytes) -> None:
    """Write a new secret file, 0600 from its creation; another process that created it
    first wins (its key is kept)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(tmp, path)  # fails if the file appeared meanwhile: keep that one
        except FileExistsError:
            pass
        except OSError:  # no hard links on this file system
            if not path.exists():
                os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _check_private(path: Path, warn: Any) -> None:
    if sys.platform == "win32":
        return
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        message = (f"warning: {path} is readable by others (mode {mode:o}); it holds a "
                   "secret key: chmod 600 it")
        (warn or (lambda text: print(text, file=sys.stderr)))(message)


_WATCHED = int(zmq.EVENT_ACCEPTED) | int(zmq.EVENT_DISCONNECTED) | int(zmq.EVENT_CLOSED)
KEY_REQUESTS_PER_SECOND = 20.0  # answered, from everyone together; the rest are dropped
KEY_REQUEST_BURST = 50.0
# From one source address (an IPv6 /64): a client asks once a join, so one source cannot
# take more than a tenth of everyone's answers.
SOURCE_REQUESTS_PER_SECOND = 2.0
SOURCE_REQUEST_BURST = 5.0
_SRCFD = int(zmq.SRCFD)
KEY_PORT_CONNECTIONS = 64  # at once; beyond, the oldest is closed
KEY_PORT_SECONDS = 5.0  # a connection is closed this long after it opened (one question)


class KeyPort:
    """Serves the key port (PORT+2): a plain ROUTER that answers every one-frame request
    with the host's public keys. It runs in a daemon thread of its own, so the host's loop
    is not involved; :meth:`stop` closes the socket. Bounded whatever peers send: at most
    ``SOURCE_REQUESTS_PER_SECOND`` answers a second to one source address (bursts of
    ``SOURCE_REQUEST_BURST``) and ``KEY_REQUESTS_PER_SECOND`` to everyone together (bursts of
    ``KEY_REQUEST_BURST``), the rest dropped unanswered, so that one flooding source leaves
    the newcomers most of the answers; at most ``KEY_PORT_CONNECTIONS`` connections, each
    closed after ``KEY_PORT_SECONDS``."""

    def __init__(self, sock: zmq.Socket[Any], announcement: KeyAnnouncement,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.sock = sock
        self.reply = encode_key_announcement(announcement)
        self.answered = self.dropped = 0
        self._clock = clock
        self._everyone = TokenBucket(KEY_REQUESTS_PER_SECOND, KEY_REQUEST_BURST, clock())
        self._sources = KeyedLimiter(SOURCE_REQUESTS_PER_SECOND, SOURCE_REQUEST_BURST)
        self._guard = ConnectionGuard(KEY_PORT_CONNECTIONS, join_seconds=KEY_PORT_SECONDS)
        self._monitor = sock.get_monitor_socket(_WATCHED)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mundus-key-port", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        elif not self._thread.is_alive() and not self.sock.closed:
            self._monitor.close(linger=0)
            self.sock.close(linger=0)

    def allow(self, source: str | None, now: float) -> bool:
        """Whether to answer a request from ``source`` (an address; None: not known)."""
        key = "?" if source is None else source_key(source)
        own = self._sources.bucket(key, now)
        if own.ready(now) and self._everyone.take(now):
            own.take(now)
            self.answered += 1
            return True
        self.dropped += 1
        return False

    def _source(self, fd: int) -> str | None:
        peer = self._guard.peers.get(fd)
        address = peer.address if peer is not None and peer.address is not None \
            else peer_address(fd)  # its accept event is still on the way
        return None if address is None else address[0]

    def _run(self) -> None:
        sock = self.sock
        poller = zmq.Poller()
        poller.register(sock, zmq.POLLIN)
        poller.register(self._monitor, zmq.POLLIN)
        swept = self._clock()
        try:
            while not self._stop.is_set():
                ready = dict(poller.poll(100))
                now = self._clock()
                if self._monitor in ready:
                    self._connections(now)
                if now - swept >= 1.0:
                    swept = now
                    for peer in self._guard.sweep(now, joined=lambda identity: False):
                        cut(peer)
                if sock not in ready:
                    continue
                for _ in range(1000):
                    try:
                        parts = sock.recv_multipart(zmq.NOBLOCK, copy=False)
                    except zmq.Again:
                        break
                    frames = [part.bytes for part in parts]
                    # A DEALER's request is identity + one frame; a REQ's has an empty
                    # delimiter before it, and its answer must too. Anything else is noise.
                    envelope = frames[:-1] if len(frames) == 2 or (
                        len(frames) == 3 and frames[1] == b"") else None
                    if envelope is not None and self.allow(
                            self._source(int(parts[-1].get(_SRCFD))), self._clock()):
                        with contextlib.suppress(zmq.ZMQError):
                            sock.send_multipart([*envelope, self.reply], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass  # the context is gone: the host stopped
        finally:
            with contextlib.suppress(zmq.ZMQError):
                sock.disable_monitor()
            self._monitor.close(linger=0)
            if not sock.closed:
                sock.close(linger=0)

    def _connections(self, now: float) -> None:
        while True:
            try:
                event = parse_monitor_message(self._monitor.recv_multipart(zmq.NOBLOCK))
            except zmq.Again:
                return
            fd = int(event["value"])
            if event["event"] == zmq.EVENT_ACCEPTED:
                for peer in self._guard.accepted(fd, now, peer_address(fd),
                                                 joined=lambda identity: False):
                    cut(peer)
            else:
                self._guard.gone(fd)


def key_port_socket(ctx: zmq.Context[Any]) -> zmq.Socket[Any]:
    """The key port's socket, not yet bound."""
    sock: zmq.Socket[Any] = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.MAXMSGSIZE, MAX_KEY_REQUEST)
    sock.setsockopt(zmq.ROUTER_MANDATORY, 0)
    sock.setsockopt(zmq.SNDHWM, 4)  # one answer a question; a peer that does not read loses
    sock.setsockopt(zmq.RCVHWM, 4)
    return sock
