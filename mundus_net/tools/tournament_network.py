"""``mundus tournament --network``: one tournament game through the real programs.

For game ``i`` it starts ``mundus host --bind 127.0.0.1 --port 0 --bots 0 --seed <game seed>
--record FILE`` and then, one after the other, a ``mundus bot --strategy <spec> --seed <bot
seed>`` per seat, each started only once the host has seated the one before (the host seats
players in the order they join), so seat ``s`` holds the same bot with the same seed as in the
in-process game ``i``. The host's record gives the result. The engine knows nothing of the
network: this module only runs commands and reads what they print and write.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.engine.seeds import bot_seed, game_seed
from mundus_net.tools.games import (
    Settings,
    TournamentError,
    exit_words,
    make_row,
    record_path,
    seat_names,
    seating,
)
from mundus_net.tools.results import Row

__all__ = ["GAME_TIMEOUT", "START_TRIES", "STEP_TIMEOUT", "mundus_command", "play_network_game"]

GAME_TIMEOUT = 300.0  # seconds a networked game may take, start to end
STEP_TIMEOUT = 30.0  # seconds for the host to listen, or to seat one bot
START_TRIES = 3
_JOIN = re.compile(r"^join at (tcp://\S+)")
_KEY = re.compile(r"^host key: (\S{40})\s")  # the host's CURVE key: the bots pin it
_SEATED = re.compile(r"took seat (\d+)")


def mundus_command() -> list[str]:
    """How to run ``mundus``: this Python with ``-P``, so that nothing in the current folder
    can stand in for the installed package."""
    return [sys.executable, "-P", "-m", "mundus_net"]


class _Lines:
    """A process's stdout, read line by line in a thread (so its pipe never fills)."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, pattern: re.Pattern[str], timeout: float) -> re.Match[str] | None:
        """The first new line matching ``pattern`` (None at the end of the output or after
        ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                return None
            self.seen.append(line)
            found = pattern.search(line)
            if found:
                return found


def _stop(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):  # ignores SIGKILL: leave it
            proc.wait(timeout=10)


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def play_network_game(settings: Settings, index: int, *, timeout: float = GAME_TIMEOUT) -> Row:
    """Play game ``index`` of ``settings`` through a host and bot processes; return its row
    (the same fields as an in-process game's)."""
    seats = seating(index, len(settings.bots), settings.players, settings.rotate,
                    settings.seed)
    seed = game_seed(settings.seed, index)
    with tempfile.TemporaryDirectory(prefix="mundus-tournament-") as tmp:
        work = Path(tmp)
        record_file = (record_path(settings.records, index) if settings.records is not None
                       else work / "record.json")
        last_error = ""
        for _ in range(START_TRIES):
            try:
                outputs = _run_table(settings, index, seats, seed, record_file, work, timeout)
                break
            except _Retry as exc:  # the host could not start: try again
                last_error = str(exc)
        else:
            raise TournamentError(f"game {index}: the host did not start: {last_error}")
        try:
            record = GameRecord.from_json(record_file.read_text(encoding="utf-8"))
        except (OSError, RecordError) as exc:
            raise TournamentError(f"game {index}: no usable record from the host: {exc}\n"
                                  f"{_tail(work / 'host.err')}") from None
    result = record.result
    if result is None:
        raise TournamentError(f"game {index}: the host's record has no result")
    faults: list[dict[str, int]] = [{} for _ in seats]
    listed: list[dict[str, object]] = []
    texts: dict[str, int] = {}
    decisions = []
    for s, output in enumerate(outputs):
        for kind, count in (output.get("faults") or {}).items():
            faults[s][kind] = faults[s].get(kind, 0) + int(count)
        decisions.append(int(output.get("decisions") or 0))
        for fault in output.get("fault_list") or ():
            trace = fault.get("traceback")
            listed.append({"seat": s, **{k: fault.get(k) for k in
                                         ("kind", "phase", "round", "reason")},
                           "decision": None, "seat_decision": fault.get("seat_decision"),
                           "traceback": None if not isinstance(trace, str)
                           else texts.setdefault(trace, len(texts))})
    for violation in record.violations:  # the host's deadlines: the client cannot see them
        if violation.get("reason") == "timeout":
            s = int(violation["seat"])
            faults[s]["timeout"] = faults[s].get("timeout", 0) + 1
            decisions[s] += 1  # the host played the default: the bot never answered it
            listed.append({"seat": s, "kind": "timeout", "phase": violation.get("phase", ""),
                           "round": violation.get("round", 0),
                           "decision": violation.get("decision"), "seat_decision": None,
                           "reason": "timeout: no answer before the host's deadline "
                                     "(wall clock, --time-limit)", "traceback": None})
    names = seat_names(settings, seats)
    if record.names and names != record.names:
        raise TournamentError(f"game {index}: the seats were taken out of order: "
                              f"{record.names} instead of {names}")
    return make_row(index, seed, seats, result.winners, result.places, result.doubloons,
                    result.rounds, result.reason, faults, decisions, listed, list(texts))


class _Retry(Exception):
    pass


def _run_table(settings: Settings, index: int, seats: tuple[int, ...], seed: int, record_file: Path,
               work: Path, timeout: float) -> list[dict[str, Any]]:
    """Run the host and the bots of one game; return each seat's bot output (``--json``)."""
    mundus = mundus_command()
    # --fixed-seed: game i is dealt exactly as the in-process game i (docs/tournament.md);
    # keys made for this game only, in its work folder; the bots pin the printed key.
    # --lang en: the lines read below are the English ones, whatever the user's locale.
    host_cmd = [*mundus, "host", "--lang", "en", "--bind", "127.0.0.1", "--port", "0",
                "--no-beacon",
                "--seats", str(settings.players), "--bots", "0", "--seed", str(seed),
                "--fixed-seed", "--key-dir", str(work / "keys"),
                "--state-dir", str(work / "games"),  # its game log, never the user's
                "--record", str(record_file), "--name", f"tournament game {index}"]
    if settings.round_limit is not None:
        host_cmd += ["--round-limit", str(settings.round_limit)]
    if settings.promo:
        host_cmd.append("--promo")
    # The host's deadline for network bots is the time limit (none: a day, its longest).
    limit = 86400.0 if settings.time_limit is None else settings.time_limit
    host_cmd += ["--bot-seconds", f"{limit:g}"]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    procs: list[subprocess.Popen[str]] = []
    try:
        with (work / "host.err").open("w", encoding="utf-8") as host_err:
            host = subprocess.Popen(host_cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=host_err, text=True, env=env)
        procs.append(host)
        assert host.stdout is not None
        out = _Lines(host.stdout)
        joined = out.wait_for(_JOIN, STEP_TIMEOUT)
        if joined is None:
            _stop(procs)
            raise _Retry(f"{' '.join(out.seen[-3:])} {_tail(work / 'host.err', 5)}".strip())
        address = joined.group(1)
        keyed = out.wait_for(_KEY, STEP_TIMEOUT)
        if keyed is None:
            raise TournamentError(f"game {index}: the host printed no key:\n"
                                  f"{_tail(work / 'host.err')}")
        names = seat_names(settings, seats)
        bot_files = []
        for s, j in enumerate(seats):
            spec = settings.bots[j]
            cmd = [*mundus, "bot", "--lang", "en", "--connect", address, "--strategy", spec,
                   "--seed", str(bot_seed(settings.seed, index, j)), "--name", names[s],
                   "--json", "--timeout", str(STEP_TIMEOUT),
                   # one word: a key may start with "-", which argparse takes for an option
                   f"--host-key={keyed.group(1)}"]
            out_path, err_path = work / f"bot{s}.out", work / f"bot{s}.err"
            with out_path.open("w", encoding="utf-8") as bot_out, \
                    err_path.open("w", encoding="utf-8") as bot_err:
                procs.append(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=bot_out,
                                              stderr=bot_err, text=True, env=env))
            bot_files.append((out_path, err_path))
            seated = out.wait_for(_SEATED, STEP_TIMEOUT)
            if seated is None or int(seated.group(1)) != s:
                raise TournamentError(f"game {index}: bot {spec!r} was not seated at seat {s} "
                                      f"({seated.group(0) if seated else 'no answer'}):\n"
                                      f"{_tail(err_path)}")
        deadline = time.monotonic() + timeout
        while any(proc.poll() is None for proc in procs):
            for s, proc in enumerate(procs[1:]):  # a bot gone for good: say so at once
                if proc.returncode not in (None, 0):
                    raise TournamentError(
                        f"game {index}: the bot at seat {s} ({names[s]}) ended its process "
                        f"({exit_words(proc.returncode)}):\n{_tail(bot_files[s][1])}")
            if time.monotonic() > deadline:
                raise TournamentError(f"game {index} did not end within {timeout:g} s")
            time.sleep(0.05)
        if host.returncode != 0:
            raise TournamentError(f"game {index}: mundus host exited {host.returncode}:\n"
                                  f"{_tail(work / 'host.err')}")
        outputs = []
        for s, (out_path, err_path) in enumerate(bot_files):
            lines = out_path.read_text(encoding="utf-8").strip().splitlines()
            try:
                outputs.append(json.loads(lines[-1]) if lines else {})
            except ValueError:
                outputs.append({})
            if procs[s + 1].returncode != 0:
                raise TournamentError(f"game {index}: the bot at seat {s} ended its process "
                                      f"({exit_words(procs[s + 1].returncode)}):\n"
                                      f"{_tail(err_path)}")
        return outputs
    finally:
        _stop(procs)
