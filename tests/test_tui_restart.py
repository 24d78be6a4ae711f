"""Nothing a host does shows a person a traceback (docs/client.md, "When the table goes").

With the real client in a pseudo-terminal and real `mundus host` processes on 127.0.0.1: a
host replaced by a new game on the same port (a seated player and a spectator each say so
and J takes them to the new table), a watched game that ends (the result, no reconnecting,
and the client ends), and the commands printed on leaving run from where the player is.
Without sockets: the crash log, `seat_name` without a seat, and the player's name asked once
(the command to type: tests/test_commands_shown.py)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from support.waits import free_ports
from tui_term import ROOT, Term, environment, phase

from mundus_net.client import background
from mundus_net.client.background import ConnectionThread, record_crash
from mundus_net.client.connection import Connection
from mundus_net.client.core import ClientCore, ClientError, ClientSettings
from mundus_net.client.notices import Closed, Notice, Problem
from mundus_net.client.tui import app as tui_app
from mundus_net.client.tui import session
from mundus_net.client.tui.sentences import seat_name

WAIT = 60.0  # a deadline for every wait: generous, so that a loaded machine is no failure
MUNDUS = [sys.executable, "-m", "mundus_net.cli"]


# -- without sockets --------------------------------------------------------------------------


def test_seat_name_without_a_seat_is_a_word_not_a_crash() -> None:
    assert seat_name(["Ana", "Bo"], None) == "nobody"
    assert seat_name(["Ana", "Bo"], -1) == "the host"
    assert seat_name(["Ana", ""], 1) == "Seat 1"  # the 0-based index, as everywhere
    assert seat_name(["Ana", "Bo"], 1) == "Bo"


def test_a_crash_is_appended_to_the_crash_log_with_a_time(tmp_path: Path) -> None:
    log = tmp_path / "state" / "client-crash.log"
    for word in ("first", "second"):
        try:
            raise ValueError(word)
        except ValueError as exc:
            assert record_crash(exc, "a test", log) == log
    text = log.read_text()
    assert text.count("Traceback (most recent call last)") == 2
    assert "ValueError: first" in text and "ValueError: second" in text
    assert re.search(r"^--- \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d.* a test", text, re.M)
    assert oct(log.stat().st_mode & 0o777) == "0o600"


def test_the_crash_log_is_in_the_state_folder(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert background.crash_log_path() == tmp_path / "mundus-net" / "client-crash.log"


class _Boom:
    """Stands in for a Connection whose poll fails in the thread (its core is a real one,
    never started)."""

    address = "tcp://127.0.0.1:1"

    def __init__(self) -> None:
        self.core = ClientCore(ClientSettings("boom"))
        self.calls: list[Any] = []

    def connect(self, timeout: float) -> object:
        return object()

    def poll(self, timeout: float) -> list[Notice]:
        raise RuntimeError("a bug in the loop")

    def close(self, bye: bool = True) -> None:
        self.core.close()

    def call_soon(self, fn: Any) -> None:
        self.calls.append(fn)

    def _run_calls(self) -> bool:
        ran = bool(self.calls)
        while self.calls:
            self.calls.pop(0)()
        return ran


def test_a_crash_in_the_connection_thread_is_logged_and_told(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    told: list[tuple[BaseException, Path | None]] = []
    hooked: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", hooked.append)  # nothing escapes the thread
    boom = _Boom()
    runner = ConnectionThread(cast(Connection, boom), on_error=lambda e, p: told.append((e, p)))
    runner.start(5.0)
    assert runner.thread is not None
    runner.thread.join(WAIT)
    assert not runner.thread.is_alive() and hooked == []
    [(error, log)] = told
    assert isinstance(error, RuntimeError) and boom.core.closed
    assert log == tmp_path / "mundus-net" / "client-crash.log"
    assert "RuntimeError: a bug in the loop" in log.read_text()
    with pytest.raises(ClientError):  # nothing runs it any more: said at once
        runner.chat("anyone?").result(5.0)


def test_without_on_error_a_crashed_thread_closes_with_a_notice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    runner = ConnectionThread(cast(Connection, _Boom()))
    runner.start(5.0)
    notice = runner.notices.get(timeout=WAIT)
    assert notice == Closed(background.CRASHED)
    assert runner.crash_log is not None and runner.crash_log.exists()


@contextlib.contextmanager
def _screen_app() -> Iterator[tui_app.TableApp]:
    """A TableApp on a pipe and a dummy output (no terminal), never connected."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        conn = Connection("tcp://127.0.0.1:1", ClientSettings("Ana"), insecure=True)
        yield tui_app.TableApp(conn, color=False)


@pytest.mark.parametrize("where", ["notice", "thread"])
def test_a_crash_under_the_screen_ends_it_with_the_log(
        where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error in a notice's handling (an event-loop callback, where prompt_toolkit would
    print the traceback on the screen) or in the connection thread ends the screen with
    CRASHED and the traceback in the crash log."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    with _screen_app() as table:
        def broken(notice: Notice, snap: tui_app.Snapshot) -> list[Any]:
            raise KeyError("no such seat")

        monkeypatch.setattr(table.model, "on_notice", broken)

        async def tick() -> None:  # runs once the screen is up
            if where == "notice":
                table.notice_arrived(Problem("something"))  # handled in a loop callback
            else:
                try:
                    raise OSError("the token file")
                except OSError as exc:
                    table.thread_failed(exc, record_crash(exc, "the connection thread"))
            await asyncio.sleep(WAIT)

        monkeypatch.setattr(table, "_tick", tick)
        assert table.run() == tui_app.CRASHED
    log = tmp_path / "mundus-net" / "client-crash.log"
    assert table.crash_log == log
    assert ("KeyError: 'no such seat'" if where == "notice" else "OSError: the token file") \
        in log.read_text()


def test_the_crash_sentence_says_where_the_log_is(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    session.say_crashed(tmp_path / "client-crash.log")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"written to {tmp_path / 'client-crash.log'}" in err


def test_the_name_is_asked_once_and_saved(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    questions: list[str] = []

    def ask(question: str) -> str:
        questions.append(question)
        return "  Ana \t"

    assert session.default_name(ask) == "Ana"
    assert questions == ["Your name at the table [Player]: "]
    assert session.default_name(ask) == "Ana" and len(questions) == 1  # saved: not again
    assert (tmp_path / "mundus-net" / "name.txt").read_text() == "Ana\n"


def test_an_empty_answer_is_player(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    assert session.default_name(lambda q: "") == "Player"


def test_without_a_terminal_nothing_is_asked(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False, raising=False)

    def ask(question: str) -> str:
        raise AssertionError("asked without a terminal")

    assert session.default_name(ask) == "Player"
    assert not (tmp_path / "mundus-net" / "name.txt").exists()
    session.save_name("Bo")  # a name used at a table is the next default
    assert session.default_name(ask) == "Bo"


# -- real hosts and clients -------------------------------------------------------------------


class Host:
    """A `mundus host` process; its output goes to a file read with deadlines."""

    def __init__(self, tmp: Path, out: str, *args: str) -> None:
        self.out = tmp / out
        with self.out.open("w") as sink:
            self.proc = subprocess.Popen(
                [*MUNDUS, "host", "--bind", "127.0.0.1", "--no-beacon", "--no-log",
                 "--key-dir", str(tmp / "keys"), *args],
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                env=environment(tmp))

    def wait_line(self, pattern: str) -> re.Match[str]:
        deadline = time.monotonic() + WAIT
        regex = re.compile(pattern, re.M)
        while time.monotonic() < deadline:
            found = regex.search(self.out.read_text())
            if found:
                return found
            if self.proc.poll() is not None:
                found = regex.search(self.out.read_text())
                if found:
                    return found
                raise AssertionError(f"the host ended without {pattern!r}:\n"
                                     + self.out.read_text())
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} from the host:\n" + self.out.read_text())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(WAIT)


@pytest.fixture
def hosts() -> Iterator[list[Host]]:
    started: list[Host] = []
    yield started
    for host in started:
        host.stop()


def flat(t: Term) -> str:
    """The screen's words in one line (a sentence of the log may be wrapped)."""
    return " ".join(t.text().split())


def no_traceback(t: Term) -> None:
    assert "Traceback" not in t.plain() and "Error" not in t.plain(), t.tail()


def runnable(command: str, env: dict[str, str]) -> None:
    """The first word of a printed command runs from the client's folder (ROOT)."""
    program = shlex.split(command)[0]
    if "/" not in program:
        found = shutil.which(program, path=env.get("PATH"))
        assert found is not None, f"{program} is not on PATH"
    else:
        assert (ROOT / program).is_file(), f"{program} is no file"
    run = subprocess.run([*shlex.split(command)[:-2], "--help"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=WAIT)
    assert run.returncode == 0 and "usage: mundus" in run.stdout, run.stdout + run.stderr


@pytest.mark.network
def test_a_host_replaced_by_a_new_game_is_said_and_j_joins_the_new_table(
        tmp_path: Path, hosts: list[Host]) -> None:
    port = free_ports()
    table = ["--seats", "2", "--bots", "1", "--port", str(port), "--seed", "3"]
    hosts.append(Host(tmp_path, "first.out", *table, "--name", "First table"))
    address = hosts[0].wait_line(r"join at (tcp://\S+)").group(1)
    env = environment(tmp_path)
    join = Term(["join", address, "--name", "Bo"], env, cols=100, rows=30)
    watch = Term(["watch", address, "--name", "Cy"], env, cols=100, rows=30)
    try:
        join.wait(lambda t: phase(t) == "offer", what="Bo's first question")
        watch.wait_text("Spectating")
        watch.wait_text("waiting for Bo")

        hosts[0].stop()  # the host is stopped ...
        hosts.append(Host(tmp_path, "second.out", *table, "--name", "Second table"))
        hosts[1].wait_line(r"waiting for 1 player")  # ... and a new game runs there

        said = "now runs a new game: your seat in the old one is gone. Press J to join " \
               "the new table, or Ctrl-D to leave."
        join.wait(lambda t: said in flat(t), what="the sentence about the new game")
        join.wait(lambda t: "J to join it" in t.lines()[-2], what="the status line")
        watched = "now runs a new game: the game you watched is gone. Press J to watch " \
                  "the new game, or Ctrl-D to leave."
        watch.wait(lambda t: watched in flat(t), what="the spectator's sentence")
        for t in (join, watch):
            assert "Refused" not in t.plain() and "bad_token" not in t.plain()
            no_traceback(t)

        join.send("j")
        join.wait_raw(r"Joining the new table at " + re.escape(address))
        hosts[1].wait_line(r"^Bo took seat 1$")  # a new player at the new table
        join.wait(lambda t: phase(t) == "offer" and "now runs a new game" not in flat(t),
                  what="a question at the new table")
        watch.send("J")
        watch.wait_raw(r"Watching the new game at " + re.escape(address))
        hosts[1].wait_line(r"^Cy is watching$")
        watch.wait(lambda t: "waiting for Bo" in t.text() and "now runs a new game" not in flat(t),
                   what="the new game watched")
        for t in (join, watch):
            no_traceback(t)
            t.send("\x04")
        m = join.wait_raw(r"Come back with:\s+(.+ join " + re.escape(address) + ")")
        runnable(m.group(1).strip(), env)
        m = watch.wait_raw(r"Watch again with:\s+(.+ watch " + re.escape(address) + ")")
        runnable(m.group(1).strip(), env)
        assert join.finish() == 0 and watch.finish() == 0
    finally:
        join.close()
        watch.close()


@pytest.mark.network
def test_a_watched_game_that_ends_shows_the_result_and_the_client_ends(
        tmp_path: Path, hosts: list[Host]) -> None:
    hosts.append(Host(tmp_path, "host.out", "--seats", "2", "--bots", "1", "--round-limit",
                      "1", "--port", "0", "--seed", "3", "--name", "Short table",
                      "--linger", "1"))  # the host goes 1 s after the game, not 10
    address = hosts[0].wait_line(r"join at (tcp://\S+)").group(1)
    key = hosts[0].wait_line(r"^host key: (\S{40})\s").group(1)
    env = environment(tmp_path)
    watch = Term(["watch", address, "--name", "Cy"], env, cols=100, rows=30)
    bot = None
    try:
        watch.wait_text("Cy is watching")
        bot = subprocess.Popen([*MUNDUS, "bot", "--connect", address, f"--host-key={key}",
                                "--name", "Net"], cwd=ROOT, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        watch.wait_text("The game is over")
        hosts[0].proc.wait(WAIT)  # the host stops after its game ...
        # ... and the client, after its silence, says so rather than reconnecting.
        watch.wait(lambda t: "The game is over and its host has stopped." in flat(t),
                   what="the end of the host")
        assert "reconnecting" not in watch.plain() and "Connection lost" not in watch.plain()
        watch.send("\r")
        watch.wait_raw(r"Game over after 1 round \(.*\): \S.* (wins?|share the victory)\.")
        watch.wait_raw(r"1\. \S.*: \d+ doubloons?")  # "1 doubloon" since the English singular fix
        assert watch.finish() == 0
        no_traceback(watch)
    finally:
        watch.close()
        if bot is not None:
            bot.kill()
            bot.wait(WAIT)
