"""A small JSON file of entries by host address in the client's state folder, for the seat
tokens (``tokens.py``) and the known host keys (``known_hosts.py``).

The folder is :func:`mundus_net.protocol.statedir.state_dir` (``~/.local/state/mundus-net`` by
default). A file is readable by its owner only (0600, in a 0700 folder); writes are atomic
(:func:`~mundus_net.protocol.statedir.atomic_write`) and locked (filelock), so two clients on
one computer do not lose each other's entries; every read is afresh (another client may have
written).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from filelock import FileLock

from mundus_net.protocol.statedir import atomic_write

__all__ = ["LOCK_POLL_S", "StateFile"]

LOCK_POLL_S = 0.001  # how often a held lock is tried again


class StateFile:
    """The file at ``path``: ``{"format": FORMAT, SECTION: {address: entry}}``."""

    FORMAT: ClassVar[str]
    SECTION: ClassVar[str]  # the key of the entries in the file
    # Indented for people to read; None: compact, for a file rewritten often (json's C
    # encoder only runs without indent: 15 ms against 1 ms for 200 witnesses).
    INDENT: ClassVar[int | None] = 1

    def __init__(self, path: Path) -> None:
        self.path = path

    def forget(self, address: str) -> None:
        with self._locked():
            entries = self._read()
            if entries.pop(address, None) is not None:
                self._write(entries)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        entries = data.get(self.SECTION) if isinstance(data, dict) else None
        return dict(entries) if isinstance(entries, dict) else {}

    def _write(self, entries: dict[str, Any]) -> None:
        separators = None if self.INDENT is not None else (",", ":")
        atomic_write(self.path, json.dumps({"format": self.FORMAT, self.SECTION: entries},
                                           indent=self.INDENT, separators=separators,
                                           sort_keys=True) + "\n")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Polled every millisecond, not filelock's 50: four `mundus bot` processes saving at
        # the start of a round slept 50 ms each in turn, the game waiting on them.
        lock = FileLock(self.path.with_name(self.path.name + ".lock"), mode=0o600)
        with lock.acquire(poll_interval=LOCK_POLL_S):
            yield
