"""Seat tokens kept between runs, per host address and player name, so that ``mundus join
ADDRESS`` again gives each person their seat back (docs/client.md, "Coming back", and "Two
players at one computer").

The file is ``$XDG_STATE_HOME/mundus-net/tokens.json`` (``~/.local/state/...`` by default),
readable by its owner only (0600, in a 0700 folder): a token is the key to a seat. A seat is
kept under the name its player sat with, so two people who share a login (two terminals,
one state folder) each keep their own. Beside the token it keeps the open offer commitment,
if any, so that a client restarted between its commit and its reveal can still reveal
(docs/protocol.md §7), and which program on which computer holds the seat now (its process
id): a second terminal can then say who sits there, and a client restarted after a crash
takes its seat back without asking. Writes are atomic and locked, so two clients on one
computer do not lose each other's entries.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mundus_net.client.core import OfferSecret
from mundus_net.client.statefile import StateFile
from mundus_net.protocol.statedir import state_dir

__all__ = ["FORGET_AFTER_S", "Holder", "SavedSeat", "TokenStore"]

FORGET_AFTER_S = 30 * 24 * 3600


@dataclass(frozen=True, slots=True)
class Holder:
    """The program that holds a seat now: its process on its computer, and its terminal."""

    pid: int
    host: str
    tty: str | None

    @classmethod
    def this_program(cls) -> Holder:
        try:
            tty: str | None = os.ttyname(sys.stdin.fileno())
        except (OSError, ValueError):
            tty = None
        return cls(os.getpid(), socket.gethostname(), tty)

    @property
    def here(self) -> bool:
        """On this computer."""
        return self.host == socket.gethostname()

    @property
    def running(self) -> bool:
        """Still running (on this computer; elsewhere, who knows: True)."""
        if not self.here:
            return True
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def to_json(self) -> dict[str, Any]:
        return {"pid": self.pid, "host": self.host, "tty": self.tty}

    @classmethod
    def from_json(cls, data: Any) -> Holder | None:
        if not isinstance(data, dict) or type(data.get("pid")) is not int:
            return None
        tty = data.get("tty")
        return cls(data["pid"], str(data.get("host") or ""), tty if isinstance(tty, str) else None)


@dataclass(frozen=True, slots=True)
class SavedSeat:
    address: str
    token: str
    game: str | None
    seat: int | None
    name: str  # the name its player sat with (the table may show it made unique, "Ann (2)")
    secret: OfferSecret | None
    note: dict[str, Any]  # free-form (the local table's process id, for `mundus play`)
    holder: Holder | None = None  # the program that holds the seat now, if one does


def _key(name: str) -> str:
    return name.strip().casefold()


class TokenStore(StateFile):
    """The token file; every method reads it afresh (another client may have written)."""

    FORMAT = "mundus-net/tokens/2"
    SECTION = "tables"

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path or state_dir() / "tokens.json")

    def get(self, address: str, name: str | None = None) -> SavedSeat | None:
        """The seat kept at ``address`` for the player called ``name`` (any case); without a
        name, the one saved last there."""
        seats = self.seats(address)
        if name is None:
            return seats[0] if seats else None
        return next((seat for seat in seats if _key(seat.name) == _key(name)), None)

    def seats(self, address: str) -> list[SavedSeat]:
        """Every seat kept at ``address``, the one saved last first."""
        entries = _seats_of(self._read().get(address))
        entries.sort(key=lambda e: -_saved_at(e))
        return [seat for e in entries if (seat := _saved_seat(address, e)) is not None]

    def save(self, address: str, token: str, *, game: str | None, seat: int | None, name: str,
             secret: OfferSecret | None = None, note: Mapping[str, Any] | None = None,
             holder: Holder | None = None) -> None:
        """Keep the seat of the player called ``name``, held by ``holder`` (None: by no
        program now)."""
        with self._locked():
            tables = self._read()
            entries = {_key(str(e.get("name") or "")): e
                       for e in _seats_of(tables.get(address))}
            old = entries.get(_key(name))
            kept = dict(old.get("note") or {}) if isinstance(old, dict) and \
                old.get("token") == token else {}
            kept.update(note or {})
            entries[_key(name)] = {
                "token": token, "game": game, "seat": seat, "name": name,
                "secret": None if secret is None else secret.to_json(), "note": kept,
                "holder": None if holder is None else holder.to_json(),
                "saved": int(time.time())}
            tables[address] = {"seats": entries}
            stale = time.time() - FORGET_AFTER_S
            for where in list(tables):  # seats nobody came back to in a month
                fresh = {_key(str(e.get("name") or "")): e for e in _seats_of(tables[where])
                         if _saved_at(e) >= stale}
                if fresh:
                    tables[where] = {"seats": fresh}
                else:
                    del tables[where]
            self._write(tables)

    def release(self, address: str, name: str) -> None:
        """The seat of ``name`` is held by no program now (this one leaves it)."""
        saved = self.get(address, name)
        if saved is None or saved.holder is None or saved.holder.pid != os.getpid() \
                or not saved.holder.here:
            return
        self.save(address, saved.token, game=saved.game, seat=saved.seat, name=saved.name,
                  secret=saved.secret)

    def forget(self, address: str, name: str | None = None) -> None:
        """Forget the seat of ``name`` at ``address``; without a name, every seat there."""
        if name is None:
            super().forget(address)
            return
        with self._locked():
            tables = self._read()
            entries = _seats_of(tables.get(address))
            left = {_key(str(e.get("name") or "")): e for e in entries
                    if _key(str(e.get("name") or "")) != _key(name)}
            if len(left) == len(entries):
                return
            if left:
                tables[address] = {"seats": left}
            else:
                tables.pop(address, None)
            self._write(tables)


def _saved_at(entry: dict[str, Any]) -> float:
    """When a seat entry was saved (0 when the file does not say)."""
    saved = entry.get("saved")
    return float(saved) if isinstance(saved, int | float) else 0.0


def _seats_of(entry: Any) -> list[dict[str, Any]]:
    """The seat entries of one address (a file of format 1 kept one seat an address)."""
    if not isinstance(entry, dict):
        return []
    if isinstance(entry.get("token"), str):
        return [entry]
    seats = entry.get("seats")
    if not isinstance(seats, dict):
        return []
    return [e for e in seats.values() if isinstance(e, dict)]


def _saved_seat(address: str, entry: dict[str, Any]) -> SavedSeat | None:
    if not isinstance(entry.get("token"), str):
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
                     secret, dict(entry.get("note") or {}), Holder.from_json(entry.get("holder")))
