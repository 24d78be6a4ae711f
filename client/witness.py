"""What this computer's clients witnessed of each game, in the client's state folder
(``witnesses/``): the chain of the public history they saw and their revealed offers
(:class:`mundus_net.protocol.chain.Witness`; docs/security.md, "A host that goes back in
time"). A client restarted in the middle of a game still sees a host that comes back at an
earlier point than it saw before the restart.

One small file per game and seat (two players at one computer, or ``mundus bot --seats N``,
each keep their own: a revealed offer is its seat's), named by a digest of the game id and
the seat, so that a host's game id never names a path. A seat's file is written by its one
client, so no lock is needed: four bot processes saving at the start of a round never wait
on each other (one shared file, locked, made them take turns). The folder keeps the
:data:`KEEP` most recently saved files (a file is a few hundred bytes). A witness saved by
an earlier version in the one file ``witnesses.json`` is still read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mundus_net.protocol.chain import Witness
from mundus_net.protocol.statedir import atomic_write, state_dir

__all__ = ["KEEP", "WitnessFile"]

KEEP = 200  # files kept; the oldest saved is forgotten first
FORMAT = "mundus-net/witness/1"
LEGACY_FORMAT = "mundus-net/witnesses/1"  # the one file of every game (witnesses.json)


class WitnessFile:
    """The witnesses of this computer's clients: ``folder/DIGEST.json``, each
    ``{"format": FORMAT, "witness": witness + "saved"}``."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or state_dir() / "witnesses"
        self._legacy: tuple[float, dict[str, Any]] | None = None  # (mtime, entries)

    def path(self, game: str, seat: int | None) -> Path:
        """The file of ``game``'s ``seat`` (None: watching)."""
        digest = hashlib.blake2b(_key(game, seat).encode("utf-8"), digest_size=12).hexdigest()
        return self.folder / f"{digest}.json"

    def get(self, game: str, seat: int | None) -> Witness | None:
        """What this computer saw of ``game`` at ``seat``, or None (nothing, or a damaged
        file: the game's chain then starts afresh)."""
        try:
            data = json.loads(self.path(game, seat).read_bytes())
            entry = data["witness"] if isinstance(data, dict) and \
                data.get("format") == FORMAT else None
        except (OSError, ValueError, KeyError):
            entry = None
        if entry is None:
            entry = self._legacy_entries().get(_key(game, seat))
        if not isinstance(entry, dict):
            return None
        try:
            witness = Witness.from_json(entry)
        except (KeyError, TypeError, ValueError):
            return None
        return witness if (witness.game, witness.seat) == (game, seat) else None

    def save(self, witness: Witness) -> None:
        self.save_all([witness])

    def save_all(self, witnesses: Sequence[Witness]) -> None:
        """Save each witness to its own file."""
        if not witnesses:
            return
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        now = time.time()
        added = False
        for witness in witnesses:
            path = self.path(witness.game, witness.seat)
            added = added or not path.exists()
            text = json.dumps({"format": FORMAT, "witness": {**witness.to_json(), "saved": now}},
                              separators=(",", ":"), sort_keys=True)
            atomic_write(path, text + "\n")
        if added:
            self._forget_the_oldest()

    def _forget_the_oldest(self) -> None:
        """Keep the KEEP most recently saved files (another client may prune at once: a file
        already gone is fine)."""
        files = []
        for path in self.folder.glob("*.json"):
            with contextlib.suppress(OSError):
                files.append((path.stat().st_mtime, path))
        if len(files) <= KEEP:
            return
        files.sort()
        for _, path in files[: len(files) - KEEP]:
            path.unlink(missing_ok=True)

    def _legacy_entries(self) -> dict[str, Any]:
        """The entries of ``witnesses.json`` beside the folder (an earlier version's one
        file), parsed once while it is unchanged."""
        legacy = self.folder.with_name("witnesses.json")
        try:
            mtime = os.stat(legacy).st_mtime
        except OSError:
            return {}
        if self._legacy is None or self._legacy[0] != mtime:
            entries: dict[str, Any] = {}
            with contextlib.suppress(OSError, ValueError):
                data = json.loads(legacy.read_bytes())
                if isinstance(data, dict) and data.get("format") == LEGACY_FORMAT \
                        and isinstance(data.get("games"), dict):
                    entries = data["games"]
            self._legacy = (mtime, entries)
        return self._legacy[1]


def _key(game: str, seat: int | None) -> str:
    return f"{game}/{'watch' if seat is None else seat}"
