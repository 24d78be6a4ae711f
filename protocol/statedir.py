"""Where mundus-net keeps its state on this computer, for the host (its keys and game logs)
and the clients (seat tokens, known host keys) alike."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/mundus-net``, or ``~/.local/state/mundus-net``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or ""
    if not os.path.isabs(base):  # the XDG spec: a relative path is to be ignored
        base = str(Path(env.get("HOME") or Path.home()) / ".local" / "state")
    return Path(base) / "mundus-net"
