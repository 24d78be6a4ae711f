"""``mundus host --resume`` after the host is killed (docs/security.md, "Nothing lost").

Real processes on 127.0.0.1: a host with two greedy host bots and two ``mundus bot`` players
(a deterministic strategy: the same question gets the same answer however often it is
asked). The host is SIGKILLed mid-round, resumed from its game log on the same port with the
same keys, the bots come back by themselves with their seat tokens, and the game ends exactly
as the same game played without a crash. Every wait is bounded.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mundus_net.engine.record import GameRecord

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parent.parent
WAIT = 120.0  # a deadline for every wait, generous: a loaded machine is no failure
SEED = 5
MUNDUS = [sys.executable, "-m", "mundus_net.cli"]


class Process:
    """A command whose output lines are collected by a thread (so no pipe ever fills)."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.lines: list[str] = []
        self.proc = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.err: list[str] = []
        self._threads = [threading.Thread(target=self._read, args=(stream, out), daemon=True)
                         for stream, out in ((self.proc.stdout, self.lines),
                                             (self.proc.stderr, self.err))]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _read(stream: Any, out: list[str]) -> None:
        for line in stream:
            out.append(line.rstrip("\n"))

    def wait_line(self, pattern: str, timeout: float = WAIT) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while time.monotonic() < deadline:
            for line in list(self.lines):
                found = regex.search(line)
                if found:
                    return found
            if self.proc.poll() is not None and not any(regex.search(x) for x in self.lines):
                time.sleep(0.1)  # the reader threads may still be catching up
                if not any(regex.search(x) for x in self.lines):
                    break
            time.sleep(0.01)
        raise AssertionError(f"no line matching {pattern!r} from {self.command[3:5]}:\n"
                             + "\n".join(self.lines[-20:] + self.err[-20:]))

    def finish(self, timeout: float = WAIT) -> int:
        code = self.proc.wait(timeout)
        for thread in self._threads:
            thread.join(5)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(WAIT)


@pytest.fixture
def processes() -> Iterator[list[Process]]:
    started: list[Process] = []
    yield started
    for process in started:
        process.kill()


def start_host(processes: list[Process], tmp: Path, *extra: str) -> Process:
    host = Process([*MUNDUS, "host", "--bind", "127.0.0.1", "--no-beacon",
                    "--state-dir", str(tmp / "games"), "--key-dir", str(tmp / "keys"), *extra])
    processes.append(host)
    return host


def seat_network_bots(processes: list[Process], host: Process, *extra: str
                      ) -> tuple[str, str, str, list[Process]]:
    """Read the host's address, key and game id from its console, and seat two network bots
    (seats 2 and 3, the keyed test bot, with ``extra`` options); returns the address, key,
    game id and the bots."""
    address = host.wait_line(r"join at (tcp://\S+)").group(1)
    key = host.wait_line(r"^host key: (\S{40})\s").group(1)
    game = host.wait_line(r"game log: \S+ \(after a crash: .*host --resume (\w+)[ )]").group(1)
    bots = []
    for seat in (2, 3):
        bot = Process([*MUNDUS, "bot", "--connect", address, f"--host-key={key}",
                       "--strategy", "tests/keyed_bot.py:KeyedBot", "--seed", str(seat),
                       "--name", f"net{seat}", "--json", "--timeout", str(WAIT), *extra])
        processes.append(bot)
        bots.append(bot)
        host.wait_line(rf"net{seat} took seat {seat}")
    return address, key, game, bots


def play(processes: list[Process], tmp: Path, crash_round: int | None) -> dict[str, Any]:
    """One game; with ``crash_round``, the host is killed when that round begins and
    resumed. Returns the record and what each bot printed."""
    record_file = tmp / "record.json"
    host = start_host(processes, tmp, "--port", "0", "--seats", "4", "--bots", "greedy,greedy",
                      "--seed", str(SEED), "--fixed-seed", "--record", str(record_file))
    address, _, game, bots = seat_network_bots(processes, host)
    resumed = None
    if crash_round is not None:
        host.wait_line(rf"^round {crash_round}$")
        host.kill()  # mid-round: whatever it had not committed is lost with it
        assert host.proc.returncode == -signal.SIGKILL
        listing = Process([*MUNDUS, "host", "--list", "--state-dir", str(tmp / "games")])
        assert listing.finish() == 0
        assert any(line.startswith(game) and "playing" in line for line in listing.lines), \
            listing.lines
        resumed = start_host(processes, tmp, "--resume", game[:8])  # a prefix is enough
        resumed.wait_line(rf"resuming game {game} from ")
        resumed.wait_line(re.escape(f"join at {address}"))  # the same port, by default
        # The commands again, for a player who comes back after the crash (issue 36, item 11).
        resumed.wait_line(r"^  players join with:\s+\S*mundus join " + re.escape(address))
        resumed.wait_line(r"^  spectators watch with:\s+\S*mundus watch " + re.escape(address))
        host = resumed
    results = []
    for bot in bots:
        assert bot.finish() == 0, bot.err[-20:]
        results.append(json.loads(bot.lines[-1]))
    assert host.finish() == 0, host.lines[-20:] + host.err[-20:]
    host.wait_line(r"^game over after")
    record = GameRecord.from_json(record_file.read_text(encoding="utf-8"))
    return {"record": record, "bots": results, "resumed": resumed, "host": host,
            "bot_processes": bots}


def per_seat(record: GameRecord) -> dict[int, list[str]]:
    from mundus_net.engine.notation import format_decision

    out: dict[int, list[str]] = {}
    for d in record.decisions:
        out.setdefault(d.seat, []).append(f"{format_decision(d.decision)} {d.by}")
    return out


def test_a_killed_host_resumes_and_finishes_the_same_game(processes: list[Process],
                                                          tmp_path: Path) -> None:
    whole = play(processes, tmp_path / "whole", None)
    crashed = play(processes, tmp_path / "crashed", 3)
    assert crashed["record"].result == whole["record"].result
    assert crashed["record"].result.rounds > 3  # the crash was mid-game
    # Every seat saw the same end. (How often a bot was asked may differ by the question
    # pending when the host died: the resumed host asks it again.)
    ends = [[{k: v for k, v in bot.items() if k not in ("decisions", "chain")}
             for bot in run["bots"]] for run in (crashed, whole)]
    assert ends[0] == ends[1]
    # Each bot witnessed the history the resumed host signed (docs/security.md, "A host that
    # goes back in time"); the two games' differ (the bots' shares of the seed are random).
    for run in (crashed, whole):
        chain = run["record"].meta["chain"]
        assert [bot["chain"] for bot in run["bots"]] == \
            [{"events": chain["events"], "digest": chain["digest"]}] * 2
    for again, once in zip(crashed["bots"], whole["bots"], strict=True):
        assert 0 <= again["decisions"] - once["decisions"] <= 1
    assert per_seat(crashed["record"]) == per_seat(whole["record"])
    assert crashed["record"].meta["resumed"] == 1
    for bot in crashed["bot_processes"]:  # each came back to its seat by itself
        assert any("back at the table" in line for line in bot.err), bot.err
    assert crashed["record"].replay().result == whole["record"].result
    assert not any("MISMATCH" in line for p in processes for line in p.err)


def test_damaged_logs_are_refused_and_no_other_game_starts(processes: list[Process],
                                                           tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir(mode=0o700)
    (games / "0123456789abcdef.sqlite3").write_bytes(b"not a log")
    host = start_host(processes, tmp_path, "--resume", "0123")
    assert host.finish() == 1
    assert any("cannot resume 0123" in line and "not a game log" in line for line in host.err)
    host = start_host(processes, tmp_path, "--resume", "feed")
    assert host.finish() == 1
    assert any("no game 'feed'" in line for line in host.err)
    assert not any("join at" in line for line in host.lines)
