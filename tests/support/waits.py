"""Waiting with deadlines, and free loopback ports: for the tests that run real sockets and
processes. Every wait has a deadline, generous so that a loaded machine is no failure, and
fails with what it waited for."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

WAIT = 60.0  # seconds: the deadline of a wait unless a test gives its own


def wait_until(found: Callable[[], Any], timeout: float = WAIT, what: str = "",
               poll: float = 0.005) -> Any:
    """``found()``'s first true value, asked every ``poll`` seconds; AssertionError naming
    ``what`` once ``timeout`` seconds have passed without one."""
    deadline = time.monotonic() + timeout
    while True:
        value = found()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or found}")
        time.sleep(poll)


def free_udp_port() -> int:
    """A UDP port free on 127.0.0.1 (for a beacon)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def free_ports() -> int:
    """A port P with P, P+1 and P+2 free on 127.0.0.1 (a host uses all three)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port + 2 > 65535:
            continue
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port + 1))
                b.bind(("127.0.0.1", port + 2))
        except OSError:
            continue
        return port
    raise AssertionError("no three free ports in a row")
