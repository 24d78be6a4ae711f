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

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mundus_net.client.connection import OfferSecret
from mundus_net.client.statefile import StateFile
from mundus_net.protocol.statedir import state_dir

FORGET_AFTER_S = 30 * 24 * 3600


@dataclass(frozen=True, slots=True)
class SavedSeat:
    address: str
    token: str
    game: str | None
    seat: int | None
    name: str
    secret: OfferSecret | None
    note: dict[str, Any]  # free-form (the local table's process id, for `mundus play`)


class TokenStore(StateFile):
    """The token file; every method reads it afresh (another client may have written)."""

    FORMAT = "mundus-net/tokens/1"
    SECTION = "tables"

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path or state_dir() / "tokens.json")

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
