"""A small JSON file of entries by host address in the client's state folder, for the seat
tokens (``tokens.py``) and the known host keys (``known_hosts.py``).

The folder is :func:`mundus_net.protocol.statedir.state_dir` (``~/.local/state/mundus-net`` by
default). A file is readable by its owner only (0600, in a 0700 folder); writes are atomic and,
where the system has ``fcntl``, locked, so two clients on one computer do not lose each other's
entries; every read is afresh (another client may have written).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

if sys.platform != "win32":
    import fcntl


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
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            if hasattr(os, "fchmod"):  # even if an old temporary file said otherwise
                os.fchmod(out.fileno(), 0o600)
            json.dump({"format": self.FORMAT, self.SECTION: entries}, out, indent=1,
                      sort_keys=True)
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
