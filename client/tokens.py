"""Seat tokens kept between runs, per host address, so that ``mundus join ADDRESS`` again
gives the seat back (docs/client.md, "Coming back").

The file is ``$XDG_STATE_HOME/mundus-net/tokens.json`` (``~/.local/state/...`` by default),
readable by its owner only (0600, in a 0700 folder): a token is the key to a seat. Beside the
token it keeps the open offer commitment, if any, so that a client restarted between its
commit and its reveal can still reveal (docs/protocol.md §7). Writes are atomic and, where
the system has ``fcntl``, locked, so two clients on one computer do not lose each other's
entries.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .connection import OfferSecret

if sys.platform != "win32":
    import fcntl

FORMAT = "mundus-net/tokens/1"
FORGET_AFTER_S = 30 * 24 * 3600


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/mundus-net``, or ``~/.local/state/mundus-net``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or ""
    if not os.path.isabs(base):  # the XDG spec: a relative path is to be ignored
        base = str(Path(env.get("HOME") or Path.home()) / ".local" / "state")
    return Path(base) / "mundus-net"


@dataclass(frozen=True, slots=True)
class SavedSeat:
    address: str
    token: str
    game: str | None
    seat: int | None
    name: str
    secret: OfferSecret | None
    note: dict[str, Any]  # free-form (the local table's process id, for `mundus play`)


class TokenStore:
    """The token file; every method reads it afresh (another client may have written)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_dir() / "tokens.json"

    def get(self, address: str) -> SavedSeat | None:
        entry = self._read().get(address)
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            return None
        secret = None
        if isinstance(entry.get("secret"), dict):
            try:
                secret = OfferSecret.from_json(entry["secret"])
            except (KeyError, TypeError, ValueError):
                secret = None
        seat = entry.get("seat")
        return SavedSeat(address, entry["token"], entry.get("game"),
                         seat if isinstance(seat, int) else None, str(entry.get("name") or ""),
                         secret, dict(entry.get("note") or {}))

    def save(self, address: str, token: str, *, game: str | None, seat: int | None, name: str,
             secret: OfferSecret | None = None, note: Mapping[str, Any] | None = None) -> None:
        with self._locked():
            tables = self._read()
            old = tables.get(address)
            kept = dict(old.get("note") or {}) if isinstance(old, dict) and \
                old.get("token") == token else {}
            kept.update(note or {})
            stale = time.time() - FORGET_AFTER_S
            for other in [a for a, e in tables.items()
                          if not isinstance(e, dict) or e.get("saved", 0) < stale]:
                del tables[other]  # a seat nobody came back to in a month
            tables[address] = {"token": token, "game": game, "seat": seat, "name": name,
                               "secret": None if secret is None else secret.to_json(),
                               "note": kept, "saved": int(time.time())}
            self._write(tables)

    def forget(self, address: str) -> None:
        with self._locked():
            tables = self._read()
            if tables.pop(address, None) is not None:
                self._write(tables)

    # -- the file -------------------------------------------------------------------------------

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        tables = data.get("tables") if isinstance(data, dict) else None
        return dict(tables) if isinstance(tables, dict) else {}

    def _write(self, tables: dict[str, Any]) -> None:
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            if hasattr(os, "fchmod"):  # even if an old temporary file said otherwise
                os.fchmod(out.fileno(), 0o600)
            json.dump({"format": FORMAT, "tables": tables}, out, indent=1, sort_keys=True)
            out.write("\n")
        os.replace(tmp, self.path)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if sys.platform == "win32":  # no lock (one client per computer is the usual case)
            yield
            return
        fd = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT,
                     0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock
