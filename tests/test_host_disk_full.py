"""A host whose disk fills (issue 27, item 1; docs/security.md, "Nothing lost"): it stops,
tells the players in a sentence and its operator in plain words first, loses nothing it
answered, and the ``--resume`` command it printed resumes the game once there is room; a
record that cannot be written is an error.

Real processes on 127.0.0.1 and a small filesystem (a 2 MB tmpfs, which needs root on
Linux: skipped elsewhere, with the reason). Every wait is bounded.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_host_resume import (
    MUNDUS,
    SEED,
    WAIT,
    Process,
    per_seat,
    play,
    processes,
    seat_network_bots,
    start_host,
)

from mundus_net.client.connection import Connection
from mundus_net.client.core import ClientSettings
from mundus_net.client.notices import PublicEvents
from mundus_net.engine.record import GameRecord
from mundus_net.host.gamelog import read_mark

pytestmark = pytest.mark.network
__all__ = ["processes"]  # the fixture, used by name


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB filesystem of its own (tmpfs), unmounted afterwards."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("a small filesystem of the test's own needs root on Linux "
                    "(mount -t tmpfs)")
    where = tmp_path / "small"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs",
                              str(where)], capture_output=True, text=True, check=False,
                             timeout=WAIT)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False, timeout=WAIT)


def fill(where: Path) -> Path:
    """Fill the filesystem of ``where`` to the last byte (the file that does it)."""
    filler = where / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        block = bytes(4096)
        while True:
            try:
                os.write(fd, block)
            except OSError:  # ENOSPC: full
                break
        for size in (512, 64, 1):  # the last partial block
            while True:
                try:
                    os.write(fd, bytes(size))
                except OSError:
                    break
    finally:
        os.close(fd)
    return filler


def test_a_host_stopped_by_a_full_disk_tells_everyone_and_resumes_with_nothing_lost(
        processes: list[Process], tmp_path: Path, small_disk: Path) -> None:
    whole = play(processes, tmp_path / "whole", None)
    games = small_disk / "games"
    record_file = tmp_path / "record.json"
    host = Process([*MUNDUS, "host", "--bind", "127.0.0.1", "--no-beacon", "--port", "0",
                    "--state-dir", str(games), "--key-dir", str(tmp_path / "keys"),
                    "--seats", "4", "--bots", "greedy,greedy", "--seed", str(SEED),
                    "--fixed-seed", "--record", str(record_file)])
    processes.append(host)
    address, key, game, bots = seat_network_bots(processes, host)
    watcher = Connection(address, ClientSettings("Watcher", "spectator"), server_key=key)
    events: list[dict[str, Any]] = []
    try:
        watcher.connect(WAIT)
        # The watcher is polled all along: a client that is not polled neither pings nor
        # fills a gap, and the host may be gone before it looks again.
        deadline = time.monotonic() + WAIT
        while "round 3" not in host.lines:
            assert time.monotonic() < deadline, "the game never reached round 3"
            events += [e for n in watcher.poll(0.1) if isinstance(n, PublicEvents)
                       for e in n.events]
        filler = fill(small_disk)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and not any(
                e["kind"] == "stopping" for e in events):
            events += [e for n in watcher.poll(0.1) if isinstance(n, PublicEvents)
                       for e in n.events]
    finally:
        watcher.close(bye=False)
    assert host.finish() == 1
    assert {"kind": "stopping", "reason": "its disk is full"} in events, \
        (host.err, [e["kind"] for e in events][-8:])
    said = [line for line in host.err if line.strip()]
    assert said[0].startswith("mundus host: the table stopped: cannot write the game log"), said
    assert "full" in said[0] and not any("Traceback" in line for line in host.err), said
    hint = next(line for line in said if "resume it with: " in line)
    committed = read_mark(games / f"{game}.sqlite3")
    assert committed is not None

    command = shlex.split(hint.split("resume it with: ", 1)[1])
    early = subprocess.run(command, capture_output=True, text=True, timeout=WAIT, check=False)
    assert early.returncode == 1  # no room yet: said so, and the log is left as it was
    assert "make room and run the command again" in early.stderr, early.stderr
    assert "Traceback" not in early.stderr

    filler.unlink()  # room again: the printed command resumes the game
    resumed = Process(command)
    processes.append(resumed)
    rows = int(resumed.wait_line(rf"resuming game {game} from .*, (\d+) log rows").group(1))
    assert rows >= committed[0]  # every row it had committed (answered) is there
    results = []
    for bot in bots:
        assert bot.finish() == 0, bot.err[-20:]
        results.append(bot.lines[-1])
    assert resumed.finish() == 0, resumed.lines[-20:] + resumed.err[-20:]
    record = GameRecord.from_json(record_file.read_text(encoding="utf-8"))
    assert record.result == whole["record"].result
    assert per_seat(record) == per_seat(whole["record"])
    assert record.meta["resumed"] == 1


def test_a_record_that_cannot_be_written_is_an_error_and_can_be_made_again(
        processes: list[Process], tmp_path: Path, small_disk: Path) -> None:
    fill(small_disk)
    record_file = small_disk / "record.json"
    host = start_host(processes, tmp_path, "--port", "0", "--seats", "2", "--bots", "2",
                      "--record", str(record_file))
    assert host.finish() == 1
    assert any("cannot write the record" in line for line in host.err), host.err
    again = next(line for line in host.err if "its record was not written" in line)
    assert host.wait_line(r"^game over after")
    command = again.split("once the problem is fixed, ", 1)[1].split(" writes it again")[0]
    (small_disk / "filler").unlink()
    remade = Process([*shlex.split(command.replace("FILE", str(record_file)))])
    processes.append(remade)
    assert remade.finish() == 0, remade.err
    assert GameRecord.from_json(record_file.read_text(encoding="utf-8")).result is not None
