"""``mundus host`` stopped by SIGTERM or SIGHUP stops as Ctrl-C stops it: it says so, tells
how to resume the game, and exits 130 (not killed without a word)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

WAIT = 60.0

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


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP"])
def test_a_signal_stops_the_host_as_ctrl_c_does(stop: str, tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mundus_net.cli", "host", "--seats", "2", "--bots", "1",
         "--bind", "127.0.0.1", "--port", "0", "--no-beacon", "--insecure",
         "--state-dir", str(tmp_path / "state")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(proc, "waiting for 1 player")
        proc.send_signal(getattr(signal, stop))
        _, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=WAIT)
    assert proc.returncode == 130, err
    assert f"stopping the table ({stop})" in err
    assert "resume it with: " in err and " host --resume " in err


def test_a_stopped_game_that_can_resume_keeps_its_seeds_out_of_any_record(
        tmp_path: Path) -> None:
    """Stopped before its end with a game log, the game can go on after a resume: no record
    (which would hold the secret host seed and the engine seed) is written yet."""
    record = tmp_path / "game.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mundus_net.cli", "host", "--seats", "2", "--bots", "1",
         "--bind", "127.0.0.1", "--port", "0", "--no-beacon", "--insecure",
         "--state-dir", str(tmp_path / "state"), "--record", str(record)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(proc, "waiting for 1 player")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=WAIT)
    assert proc.returncode == 130, err
    assert not record.exists()
    assert "its seeds stay secret" in err and " host --resume " in err


def test_the_log_keeps_how_the_game_was_served_for_resume(tmp_path: Path) -> None:
    """How the log is synced (durable by default) and --no-beacon are kept by the game log,
    so that --resume serves the game as it was served (issue 13, item 7)."""
    from mundus_net.host.gamelog import GameLog, find_game

    proc = subprocess.Popen(
        [sys.executable, "-m", "mundus_net.cli", "host", "--seats", "2", "--bots", "1",
         "--bind", "127.0.0.1", "--port", "0", "--no-beacon", "--insecure",
         "--state-dir", str(tmp_path / "state")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out = _wait_for(proc, "waiting for 1 player")
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=WAIT)
    game = out.split("game ", 1)[1].split()[0]
    log = GameLog.open(find_game(tmp_path / "state", game))
    try:
        served = log.params["host"]
    finally:
        log.close()
    assert served["durable"] is True and served["no_beacon"] is True
