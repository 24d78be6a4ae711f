"""Host keys this client has met, per address: trust on first use (docs/security.md).

The file is ``$XDG_STATE_HOME/mundus-net/known_hosts.json`` (``~/.local/state/...`` by
default), readable by its owner only (0600, in a 0700 folder). The first time a client joins
an address it learns the host's key (from the LAN beacon or the host's key port, PORT+2),
says so with the key's fingerprint, and saves it. Later joins use the saved key; when the
host announces another key, the client warns loudly and refuses, until the new key is
pinned with ``--host-key KEY`` or the entry is removed from the file.

:func:`trust_host` makes that decision; it never touches a socket itself (the caller hands
it a function that asks the key port), so it is easy to test.
"""

from __future__ import annotations

import argparse
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mundus_net.client.i18n import N_, current
from mundus_net.client.statefile import StateFile
from mundus_net.engine.errors import MundusError
from mundus_net.protocol.security import (
    KeyAnnouncement,
    SecurityError,
    fingerprint,
    is_key,
    parse_key,
)
from mundus_net.protocol.statedir import state_dir

__all__ = [
    "INSECURE_LINE", "Fetch", "KnownHost", "KnownHosts", "Trust", "UntrustedHost",
    "add_security_arguments", "trust_host"
]


@dataclass(frozen=True, slots=True)
class KnownHost:
    address: str
    key: str  # Z85
    sign_key: str | None  # hex, the host's record-signing key, once seen in a welcome
    first_seen: int


class KnownHosts(StateFile):
    """The known-hosts file; every method reads it afresh."""

    FORMAT = "mundus-net/known-hosts/1"
    SECTION = "hosts"

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path or state_dir() / "known_hosts.json")

    def get(self, address: str) -> KnownHost | None:
        entry = self._read().get(address)
        if not isinstance(entry, dict) or not is_key(entry.get("key")):
            return None
        sign_key = entry.get("sign_key")
        first = entry.get("first_seen")
        return KnownHost(address, str(entry["key"]),
                         sign_key if isinstance(sign_key, str) else None,
                         first if isinstance(first, int) else 0)

    def save(self, address: str, key: str, sign_key: str | None = None) -> None:
        with self._locked():
            hosts = self._read()
            old = hosts.get(address)
            entry: dict[str, Any] = {"key": key, "sign_key": sign_key,
                                     "first_seen": int(time.time())}
            if isinstance(old, dict) and old.get("key") == key:
                entry["first_seen"] = old.get("first_seen", entry["first_seen"])
                if sign_key is None:
                    entry["sign_key"] = old.get("sign_key")
            hosts[address] = entry
            self._write(hosts)


class UntrustedHost(MundusError):
    """The client refuses to connect; the message says why and what to do."""


@dataclass
class Trust:
    """The key to connect with (None: no encryption) and what to tell the user."""

    key: str | None
    how: str  # pinned, known, first-use, insecure
    lines: list[str] = field(default_factory=list)


Fetch = Callable[[], KeyAnnouncement | None]


def add_security_arguments(p: argparse.ArgumentParser) -> None:
    """``--host-key`` and ``--insecure``, for every client command."""
    p.add_argument("--host-key", metavar="KEY", default=None,
                   help="the host's key (Z85, as `mundus host` prints it): connect only to "
                        "the host that holds it (default: the key saved for this address, "
                        "or the one the host announces, trusted on first use)")
    p.add_argument("--insecure", action="store_true",
                   help="no encryption, for a host run with --insecure: anyone on the "
                        "network can read the game, and nothing proves who the host is")
    p.add_argument("--invite", metavar="CODE", default=None,
                   help="the table's invite code, as its host prints it (a host that "
                        "listens beyond this computer asks for one; a person is asked for it "
                        "when it is missing)")

INSECURE_LINE = N_("INSECURE: encryption is off (--insecure): anyone on the network can read "
                   "this game, hands and offers included, and nothing proves who the host is.")


def _changed(address: str, old: str, new: str, path: Path) -> UntrustedHost:
    t = current()
    bar = "@" * 72
    return UntrustedHost("\n".join((
        bar,
        t._("WARNING: THE HOST KEY OF THIS ADDRESS HAS CHANGED!"),
        bar,
        # TRANSLATORS: keep the line breaks (lines of at most 80 cells).
        t._("{address} now announces the key {new}, but the key saved when you\n"
            "first joined it is {old}. Someone may be pretending to be the host\n"
            "(a man-in-the-middle), or the host was set up anew with a new key.\n"
            "Refusing to connect. If you trust the new key (ask the host for the fingerprint it\n"
            "printed), join with {option}\n"
            "or remove the entry for {address} from {path}.").format(
            address=address, new=fingerprint(new), old=fingerprint(old), path=path,
            option=shlex.quote(f"--host-key={new}")),
    )))


def trust_host(address: str, *, pinned: str | None = None, offered: str | None = None,
               insecure: bool = False, store: KnownHosts | None = None,
               fetch: Fetch | None = None, remember: bool = True) -> Trust:
    """Decide which host key to connect to ``address`` with (docs/security.md):

    * ``insecure``: none (and say so);
    * ``pinned`` (``--host-key``): that key; if the key port answers with another, refuse;
    * a key saved in ``store`` for the address: it, unless the host now announces another
      (``offered`` by its beacon, or the key port's answer): then refuse, loudly;
    * else the key the beacon offered or the key port announces, trusted on first use and
      saved (with ``remember``).

    Raises UntrustedHost (with what to do) when it cannot or will not connect. Its words are
    in the process's language (i18n.current(): English for a bot)."""
    t = current()
    if insecure:
        return Trust(None, "insecure", [t._(INSECURE_LINE)])
    known = store.get(address) if store is not None else None
    if pinned is not None:
        try:
            key = parse_key(pinned)
        except SecurityError as exc:
            raise UntrustedHost(str(exc)) from None
        announced = fetch() if fetch is not None else None
        if announced is not None and announced.insecure:
            raise UntrustedHost(t._("{address} runs without encryption (--insecure), so the "
                                    "pinned key cannot be checked; join with --insecure to "
                                    "accept that").format(address=address))
        if announced is not None and announced.key != key:
            assert announced.key is not None
            raise UntrustedHost(t._("{address} announces the key {announced}, not the pinned "
                                    "key {pinned}: refusing to connect").format(
                address=address, announced=fingerprint(announced.key), pinned=fingerprint(key)))
        lines = [t._("Host key pinned: {fingerprint}.").format(fingerprint=fingerprint(key))]
        if store is not None and remember:
            if known is not None and known.key != key:
                lines.append(t._("It replaces the key saved for {address} ({fingerprint}).")
                             .format(address=address, fingerprint=fingerprint(known.key)))
            store.save(address, key)
        return Trust(key, "pinned", lines)
    announced_key = offered
    if announced_key is None and fetch is not None:
        announced = fetch()
        if announced is not None:
            if announced.insecure:
                raise UntrustedHost(t._(
                    "{address} runs without encryption (--insecure): anyone on the network "
                    "could read the game. Join with --insecure to accept that.").format(
                        address=address))
            announced_key = announced.key
    if announced_key is not None and not is_key(announced_key):
        announced_key = None
    if known is not None:
        if announced_key is not None and announced_key != known.key:
            assert store is not None
            raise _changed(address, known.key, announced_key, store.path)
        return Trust(known.key, "known", [])
    if announced_key is None:
        raise UntrustedHost(t._(
            "cannot learn the host key of {address}: its key port (PORT+2) does not answer. "
            "Is the host running? Pin its key with --host-key KEY (`mundus host` prints it), "
            "or join with --insecure if the host runs with --insecure.").format(
                address=address))
    lines = [t._("First visit to {address}: trusting its host key on first use. "
                 "Fingerprint {fingerprint}: it should be the one the host printed.").format(
        address=address, fingerprint=fingerprint(announced_key))]
    if store is not None and remember:
        store.save(address, announced_key)
        lines[0] += " " + t._("Saved in {path}.").format(path=store.path)
    return Trust(announced_key, "first-use", lines)
