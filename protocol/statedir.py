"""Where mundus-net keeps its state on this computer, and how a state file is written: for the
host (its keys, game logs and records) and the clients (seat tokens, known host keys) alike.

The folder is the platform's per-user state folder (platformdirs): ``$XDG_STATE_HOME/mundus-net``
or ``~/.local/state/mundus-net`` on Linux, ``~/Library/Application Support/mundus-net`` on
macOS, ``%LOCALAPPDATA%\\mundus-net`` on Windows.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from platformdirs import user_state_path

__all__ = ["atomic_write", "new_record_path", "state_dir"]


def state_dir() -> Path:
    """The folder for mundus-net's state (read from the environment at each call)."""
    return user_state_path("mundus-net", appauthor=False, ensure_exists=False)


def new_record_path() -> Path:
    """Where a game record goes when none is asked for (``mundus play`` and ``mundus host``
    keep their records by default): ``records/game-DATE-TIME.json`` in the state folder,
    named for the moment the game starts."""
    return state_dir() / "records" / f"game-{time.strftime('%Y-%m-%d-%H%M%S')}.json"


def atomic_write(path: Path, data: str | bytes, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` so that a crash or a power cut leaves either the old file
    or the new one whole, never a mix: a temporary file beside it (created with ``mode``),
    flushed to disk, renamed over ``path``, and the folder's entry flushed too."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "wb") as out:
            if hasattr(os, "fchmod"):  # even if an old temporary file said otherwise
                os.fchmod(out.fileno(), mode)
            out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if hasattr(os, "O_DIRECTORY"):  # the rename itself survives a power cut
        with contextlib.suppress(OSError):
            dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
