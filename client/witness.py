"""What this computer's clients witnessed of each game, in the client's state folder
(``witnesses.json``): the chain of the public history they saw and their revealed offers
(:class:`mundus_net.protocol.chain.Witness`; docs/security.md, "A host that goes back in
time"). A client restarted in the middle of a game still sees a host that comes back at an
earlier point than it saw before the restart.

Entries are by game id and seat (two players at one computer, or ``mundus bot --seats N``,
each keep their own: a revealed offer is its seat's); the file keeps the :data:`KEEP` most
recently saved (an entry is a few hundred bytes).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mundus_net.client.statefile import StateFile
from mundus_net.protocol.chain import Witness
from mundus_net.protocol.statedir import atomic_write, state_dir

__all__ = ["KEEP", "WitnessFile"]

KEEP = 200  # entries remembered; the oldest saved is forgotten first


class WitnessFile(StateFile):
    """``{"format": ..., "games": {"GAME/SEAT" (or "GAME/watch"): witness + "saved"}}``."""

    FORMAT = "mundus-net/witnesses/1"
    SECTION = "games"
    INDENT = None  # rewritten at every round and reveal: compact is 15x faster to write

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path or state_dir() / "witnesses.json")
        # The file holds up to KEEP games (380 KB) and is saved at every round and reveal:
        # what it held when this object last read or wrote it, parsed, is used again while
        # its bytes are the same (another process may have written it: then it is parsed
        # afresh), and each entry's JSON is made once.
        self._known: tuple[bytes, dict[str, Any]] | None = None
        self._texts: dict[str, tuple[Any, str]] = {}  # key: (the entry, its JSON)

    def _read(self) -> dict[str, Any]:
        try:
            data = self.path.read_bytes()
        except OSError:
            return {}
        known = self._known
        if known is not None and known[0] == data:
            return dict(known[1])
        try:
            parsed = json.loads(data)
        except ValueError:
            return {}
        found = parsed.get(self.SECTION) if isinstance(parsed, dict) else None
        entries = dict(found) if isinstance(found, dict) else {}
        self._known = (data, entries)
        return dict(entries)

    def _write(self, entries: dict[str, Any]) -> None:
        # What json.dumps(..., separators=(",", ":"), sort_keys=True) makes of the whole file,
        # from each entry's JSON made once.
        texts: dict[str, tuple[Any, str]] = {}
        parts = []
        for key in sorted(entries):
            entry = entries[key]
            cached = self._texts.get(key)
            if cached is None or cached[0] is not entry:
                cached = (entry, json.dumps(entry, separators=(",", ":"), sort_keys=True))
            texts[key] = cached
            parts.append(f"{json.dumps(key)}:{cached[1]}")
        self._texts = texts
        text = (f'{{"format":{json.dumps(self.FORMAT)},"{self.SECTION}":{{'
                f'{",".join(parts)}}}}}\n')
        data = text.encode("utf-8")
        atomic_write(self.path, data)
        self._known = (data, dict(entries))

    def get(self, game: str, seat: int | None) -> Witness | None:
        entry = self._read().get(_key(game, seat))
        if not isinstance(entry, dict):
            return None
        try:
            witness = Witness.from_json(entry)
        except (KeyError, TypeError, ValueError):
            return None  # a damaged entry is no witness: the game's chain starts afresh
        return witness if (witness.game, witness.seat) == (game, seat) else None

    def save(self, witness: Witness) -> None:
        self.save_all([witness])

    def save_all(self, witnesses: Sequence[Witness]) -> None:
        """Save several seats' witnesses in one write (``mundus bot --seats N``)."""
        if not witnesses:
            return
        with self._locked():
            entries = self._read()
            now = time.time()
            for witness in witnesses:
                entry: dict[str, Any] = {**witness.to_json(), "saved": now}
                entries[_key(witness.game, witness.seat)] = entry
            if len(entries) > KEEP:
                oldest = sorted(entries, key=lambda g: _saved(entries[g]))
                for game in oldest[: len(entries) - KEEP]:
                    del entries[game]
            self._write(entries)


def _key(game: str, seat: int | None) -> str:
    return f"{game}/{'watch' if seat is None else seat}"


def _saved(entry: Any) -> float:
    saved = entry.get("saved") if isinstance(entry, dict) else None
    return float(saved) if isinstance(saved, (int, float)) else 0.0
