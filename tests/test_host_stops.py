"""How ``mundus host`` stops and what it leaves behind (issue 13, items 7, 8, 9, 11): the
resume hint it prints is a command that works as printed (where the log is, and nothing
else: the log keeps every other option), the record of a finished game is written when the
game ends and can be made again from the game log, and the ``mundus play`` table stops on
SIGTERM as the host does."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mundus_net.host import local
from mundus_net.host.gamelog import GameLog, find_game
from mundus_net.host.keys import HostKeys
from mundus_net.protocol.statedir import state_dir

WAIT = 60.0
MUNDUS = [sys.executable, "-m", "mundus_net.cli"]

pytestmark = pytest.mark.network


def _wait_for(proc: subprocess.Popen[str], text: str) -> str:
    """Lines of standard output until one holds ``text`` (a deadline for every wait)."""
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if text in line:
            return "".join(seen)
    raise AssertionError(f"no {text!r} in the host's output:\n{''.join(seen)}")


def _stop(proc: subprocess.Popen[str], how: signal.Signals) -> tuple[str, str]:
    proc.send_signal(how)
    try:
        return proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=WAIT)


def _run(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=WAIT, cwd=cwd,
                          check=False)


def test_the_printed_resume_command_resumes_the_game_as_it_was_served(tmp_path: Path) -> None:
    """The hint names the state directory (the one thing the log cannot keep); the resumed
    host serves on the same address, announces nothing (--no-beacon kept), and keeps the
    table's options (a new --seats is said not to be used)."""
    first = subprocess.Popen(
        [*MUNDUS, "host", "--seats", "2", "--bots", "1", "--bind", "127.0.0.1", "--port", "0",
         "--no-beacon", "--insecure", "--decision-seconds", "30", "--fast-log",
         "--state-dir", str(tmp_path / "state")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = _wait_for(first, "waiting for 1 player")
    address = out.split("join at ", 1)[1].split()[0]
    _, err = _stop(first, signal.SIGTERM)
    assert first.returncode == 130, err
    hint = err.split("resume it with: ", 1)[1].splitlines()[0]
    assert f"--state-dir {tmp_path / 'state'}" in hint, hint
    assert "--fast-log" not in hint and "--no-beacon" not in hint  # the log keeps them

    resumed = subprocess.Popen([*shlex.split(hint), "--seats", "3"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    out = _wait_for(resumed, "waiting for 1 player")
    _, err = _stop(resumed, signal.SIGHUP)
    assert resumed.returncode == 130, err
    assert f"join at {address} " in out  # the same address
    assert "announced to" not in out  # --no-beacon kept
    assert "note: --seats is not used: a resumed game keeps the options it was made with" in err
    assert "stopping the table (SIGHUP)" in err and "resume it with: " in err
    game = hint.split("--resume ", 1)[1].split()[0]
    log = GameLog.open(find_game(tmp_path / "state", game))
    try:
        assert log.params["decision_seconds"] == 30
        assert log.params["host"]["durable"] is False  # --fast-log kept
        assert not log.durable
    finally:
        log.close()


def test_a_finished_games_record_is_made_again_from_its_log(tmp_path: Path) -> None:
    """The record is written when the game ends; lost afterwards (the host killed while it
    lingered, the file deleted), ``--resume GAME`` writes the same bytes again, signed by the
    same key, without serving anything or changing the log."""
    record = tmp_path / "game.json"
    state = ["--state-dir", str(tmp_path / "state"), "--key-dir", str(tmp_path / "keys")]
    done = _run([*MUNDUS, "host", "--seats", "2", "--bots", "2", "--bind", "127.0.0.1",
                 "--port", "0", "--no-beacon", "--seed", "5", "--round-limit", "2",
                 "--record", str(record), *state])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # The key that signs it is said with the path, as mundus verify names it.
    keys = HostKeys.load_or_create(tmp_path / "keys")
    said = f"record written to {record}, signed by the record signing key {keys.sign_fingerprint}"
    written = lines.index(said)
    assert written < next(i for i, line in enumerate(lines) if line.startswith("game over"))
    original = record.read_bytes()
    game = json.loads(original)["game"]
    record.unlink()

    again = _run([*MUNDUS, "host", "--resume", game, *state])  # where its host wrote it
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == [
        f"game {game} is over (after 2 rounds): its record is made again from its log",
        said]
    assert record.read_bytes() == original
    other = tmp_path / "copy.json"
    again = _run([*MUNDUS, "host", "--resume", game, "--record", str(other), *state])
    assert again.returncode == 0, again.stderr
    assert other.read_bytes() == original
    verified = _run([*MUNDUS, "verify", str(other)])
    assert verified.returncode == 0, verified.stdout
    log = GameLog.open(find_game(tmp_path / "state", game))
    try:
        assert not any(row.kind == "resumed" for row in log.rows)
    finally:
        log.close()


def test_a_finished_game_without_a_record_file_says_how_to_write_one(tmp_path: Path) -> None:
    state = ["--state-dir", str(tmp_path / "state")]
    done = _run([*MUNDUS, "host", "--seats", "2", "--bots", "2", "--bind", "127.0.0.1",
                 "--port", "0", "--no-beacon", "--insecure", "--round-limit", "1", "--no-record",
                 *state])
    assert done.returncode == 0, done.stderr
    game = done.stdout.split(" game ", 1)[1].split()[0]
    again = _run([*MUNDUS, "host", "--resume", game, *state])
    assert again.returncode == 1
    assert f"game {game} is over (after 1 round): there is nothing to resume; " in again.stderr
    assert f"--resume {game} --state-dir {tmp_path / 'state'} --record FILE writes its " \
           "record again" in again.stderr


def test_a_host_keeps_its_record_by_default_as_mundus_play_does(tmp_path: Path) -> None:
    """Without --record the record goes to the state folder's records/, as mundus play's
    does, so that the game over's `mundus verify` on the game's record has a record to run
    on (issue 36, item 6); the console says where."""
    state = ["--state-dir", str(tmp_path / "state"), "--key-dir", str(tmp_path / "keys")]
    done = _run([*MUNDUS, "host", "--seats", "2", "--bots", "2", "--bind", "127.0.0.1",
                 "--port", "0", "--no-beacon", "--round-limit", "1", *state])
    assert done.returncode == 0, done.stderr
    records = sorted((state_dir() / "records").glob("game-*.json"))
    assert len(records) == 1, records
    assert f"record written to {records[0]}, signed by " in done.stdout
    verified = _run([*MUNDUS, "verify", str(records[0])])
    assert verified.returncode == 0, verified.stdout


def test_the_play_table_stops_on_sigterm_telling_why_and_keeping_the_record(
        tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    table = local.start(bots=1, strategy="greedy", name="t", idle_minutes=5,
                        log=tmp_path / "table.log", record=record, insecure=True)
    try:
        table.process.send_signal(signal.SIGTERM)
        assert table.process.wait(WAIT) == 0
    finally:
        if table.process.poll() is None:
            table.process.kill()
            table.process.wait(WAIT)
    assert "stopping the table (SIGTERM)" in (tmp_path / "table.log").read_text()
    assert json.loads(record.read_text())["result"] is None  # nobody joined: not begun
