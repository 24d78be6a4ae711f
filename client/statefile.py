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

__all__ = ["StateFile"]


class StateFile:
    """The file at ``path``: ``{"format": FORMAT, SECTION: {address: entry}}``."""

    FORMAT: ClassVar[str]
    SECTION: ClassVar[str]  # the key of the entries in the file

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
        atomic_write(self.path, json.dumps({"format": self.FORMAT, self.SECTION: entries},
                                           indent=1, sort_keys=True) + "\n")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with FileLock(self.path.with_name(self.path.name + ".lock"), mode=0o600):
            yield
