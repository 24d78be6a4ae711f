"""The lobby: a table whose game has not started (docs/client.md, "The lobby"; docs/protocol.md,
"Before the game starts").

Without sockets: the lobby screen (render.lobby) at 80x24 and 120x40, its words for free,
taken, away and bot seats, and the client's screen (TableModel.draw) fed by a ClientCore that
talks to the real Table in memory: the lobby until the deal, nothing dealt in the core's state,
then the table screen. With the real client in pseudo-terminals and a real `mundus host` on
127.0.0.1 (marked network): players and a spectator see who is seated and the count, chat
works, and the table screen appears when the last seat fills.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from support.clock import FakeClock
from support.net import Net
from support.net import table as core_table
from support.waits import free_ports
from tui_term import ROOT, Term, environment

from mundus_net.client.tui import app as tui_app
from mundus_net.client.tui import render
from mundus_net.client.wire import deck_from_wire
from mundus_net.engine.view import StateView

WAIT = 60.0  # a deadline for every wait: generous, so that a loaded machine is no failure
MUNDUS = [sys.executable, "-m", "mundus_net.cli"]
OPTIONS = {"promo": False, "round_limit": 6, "decision_seconds": None, "first_tm": 0,
           "rules": 2}
# Words of the table screen: none of them is on a lobby (nothing is dealt yet).
TABLE_WORDS = re.compile(r"\b(?:Hand \d|Market|Queue|Display|Round \d|TM:|dev pile)")


# -- without sockets ------------------------------------------------------------------------------


def lobby_lines(width: int, height: int, me: int | None = 1,
                sentences: tuple[str, ...] = ()) -> list[str]:
    shown = render.lobby("Ann's table", ["greedy bot 0", "Ann", "Bo", ""], width, height,
                         players=4, me=me, connected=[True, True, False, False],
                         bots=[True, False, False, False], options=OPTIONS,
                         join="mundus join tcp://192.0.2.7:7700",
                         watch="mundus watch tcp://192.0.2.7:7700", sentences=sentences)
    return render.lines_of(shown)


@pytest.mark.parametrize("size", [(80, 23), (120, 39)], ids=["80x24", "120x40"])
def test_the_lobby_names_every_seat_counts_them_and_says_how_others_join(
        size: tuple[int, int]) -> None:
    width, height = size
    lines = lobby_lines(width, height, sentences=tuple(f"<Bo> line {i}" for i in range(60)))
    assert len(lines) <= height and all(len(line) <= width for line in lines)
    text = "\n".join(lines)
    assert "“Ann's table” · waiting for players" in lines[0]
    assert "3 of 4 seated" in text
    seats = [line.strip() for line in lines if re.match(r"  \d  ", line)]
    assert seats == ["0  greedy bot 0 [bot]", "1  Ann (you)", "2  Bo (away)", "3  (empty)"]
    assert "The game starts when every seat is taken: 1 seat to go." in text
    assert "Others join with:  mundus join tcp://192.0.2.7:7700" in text
    assert "rules edition 2" in text and "at most 6 rounds" in text
    assert "<Bo> line 59" in lines[-1]  # the newest chat line, the log below the seats
    assert not TABLE_WORDS.search(text)


def test_a_spectator_sees_the_same_lobby_without_you() -> None:
    text = "\n".join(lobby_lines(80, 23, me=None))
    assert "you watch" in text and "(you)" not in text
    assert "1  Ann\n" in text and "Players join with: mundus join" in text


def test_a_short_lobby_keeps_the_seats_and_the_count() -> None:
    lines = lobby_lines(40, 8, sentences=("<Bo> hi",))
    assert len(lines) <= 8 and all(len(line) <= 40 for line in lines)
    assert lines[0].startswith("“Ann's table”") and "3 of 4 seated" in lines[1]
    assert [line.strip() for line in lines[2:6]] == [
        "0  greedy bot 0 [bot]", "1  Ann (you)", "2  Bo (away)", "3  (empty)"]
    assert lines[6].startswith("The game starts")
    # The join command, too wide after its label, takes two rows: whole, or not at all.
    assert len(lines) == 7 and "join" not in "\n".join(lines)
    lines = lobby_lines(40, 9, sentences=("<Bo> hi",))
    assert lines[7:] == ["Others join with:", "mundus join tcp://192.0.2.7:7700"]


def test_the_client_shows_the_lobby_until_the_deal_then_the_table() -> None:
    """A ClientCore at the real Table: before the start its state holds no dealt thing and the
    screen is the lobby (F3 too); the last seat taken, the table screen with the hand."""
    clock = FakeClock(0.0)
    net = Net(core_table(clock, host_bots=1, round_limit=6, name="Ann's table"), clock)
    ann = net.join("Ann")
    core = ann.core
    assert not core.started and core.seat == 1
    assert not {"market", "queue", "display", "hand_sizes"} & set(core.state)
    assert "hand" not in core.private
    model = tui_app.TableModel(address="tcp://192.0.2.7:7700")

    def snap() -> tui_app.Snapshot:
        assert core.deck is not None
        table = core.state["table"]
        data = {**core.state, **core.private, "seat": core.seat}
        return tui_app.Snapshot(StateView(data, core.deck), core.ready,
                                tuple(table["names"]), tuple(table["connected"]),
                                tuple(table["bots"]), True, core.seat, core.result,
                                started=core.started, table_name=table["name"],
                                options=table["options"])

    model.snap = snap()
    model.sentences = ["Ann took seat 1", "<Ann> hello"]
    text = render.to_plain(model.draw(80, 23))
    assert "2 of 3 seated" in text and "1  Ann (you)" in text and "2  (empty)" in text
    assert "Ann's table" in text and "<Ann> hello" in text
    assert text.splitlines()[-1].startswith("say TEXT chats")
    assert not TABLE_WORDS.search(text)
    model.open_overlay("players")  # the players' page has nothing to show yet: the lobby
    assert "2 of 3 seated" in render.to_plain(model.draw(80, 23))
    model.open_overlay(None)
    assert model.interpret("1") == tui_app.Say(
        "Nothing to decide now (the game has not started: 2 of 3 seated).")

    net.join("Bo")  # the last seat: the deal
    # Read from the state: after ``assert not core.started`` mypy would take it for False.
    assert core.state["table"]["started"] and set(core.state) >= {"market", "queue", "display"}
    assert core.private["hand"]
    model.snap = snap()
    text = render.to_plain(model.draw(80, 23))
    assert re.search(r"Hand \d", text) and "Round 1" in text and "seated" not in text


def test_the_snapshot_tells_whether_the_game_has_started() -> None:
    snap = tui_app.Snapshot(None, None)
    assert snap.started  # a snapshot built without it (a started game, tests) is the table's
    deck = deck_from_wire([])
    view = StateView({"players": 2, "table": {"started": False, "names": ["Ann", ""]}}, deck)
    assert render.waiting_text(view, ["Ann", ""]) == (
        "the game has not started: 1 of 2 seated", False)


# -- the real client in a pseudo-terminal ------------------------------------------------------


class Host:
    """A `mundus host` process on 127.0.0.1; its output goes to a file read with deadlines."""

    def __init__(self, tmp: Path, *args: str, program: Sequence[str] = MUNDUS,
                 env: dict[str, str] | None = None) -> None:
        self.out = tmp / "host.out"
        with self.out.open("w") as sink:
            self.proc = subprocess.Popen(
                [*program, "host", "--bind", "127.0.0.1", "--no-beacon", "--no-log",
                 "--key-dir", str(tmp / "keys"), *args],
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                env=environment(tmp) if env is None else env)

    def wait_line(self, pattern: str) -> re.Match[str]:
        deadline = time.monotonic() + WAIT
        regex = re.compile(pattern, re.M)
        while time.monotonic() < deadline:
            found = regex.search(self.out.read_text())
            if found:
                return found
            if self.proc.poll() is not None:
                raise AssertionError(f"the host ended without {pattern!r}:\n"
                                     + self.out.read_text())
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} from the host:\n" + self.out.read_text())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(WAIT)


@pytest.fixture
def host_at(tmp_path: Path) -> Iterator[list[Host]]:
    started: list[Host] = []
    yield started
    for host in started:
        host.stop()


def seat_rows(t: Term) -> list[str]:
    return [line.strip() for line in t.lines() if re.match(r"  \d  ", line)]


def seated(count: str, *rows: str) -> Callable[[Term], bool]:
    """A wait: the lobby shows ``count`` ("1 of 3 seated") and exactly these seat rows."""
    return lambda t: count in t.text() and seat_rows(t) == list(rows)


def on_path(env: dict[str, str]) -> dict[str, str]:
    """``env`` with this installation's scripts first on PATH, as for a player who installed
    it: the lobby then shows ``mundus join ...``, which fits 80 columns wherever the checkout
    lies (a whole path to the script may not; tests/test_commands_shown.py runs that form)."""
    scripts = str(Path(sys.executable).parent)
    return {**env, "PATH": os.pathsep.join([scripts, env.get("PATH", os.defpath)])}


@pytest.mark.network
def test_players_wait_in_the_lobby_chat_and_the_table_appears_when_the_last_seat_fills(
        tmp_path: Path, host_at: list[Host]) -> None:
    port = free_ports()
    host_at.append(Host(tmp_path, "--seats", "3", "--port", str(port), "--seed", "3",
                        "--name", "Ann's table"))
    address = host_at[0].wait_line(r"join at (tcp://\S+)").group(1)

    def env(who: str) -> dict[str, str]:  # a state folder each: a saved token is a seat's
        return on_path(environment(tmp_path / who))

    ann = Term(["join", address, "--name", "Ann"], env("ann"), cols=80, rows=24)
    bo: Term | None = None
    cy: Term | None = None
    try:
        ann.wait(seated("1 of 3 seated", "0  Ann (you)", "1  (empty)", "2  (empty)"),
                 what="Ann alone in the lobby")
        ann.wait(lambda t: re.search(r"Others join with:  \S*mundus join " + re.escape(address),
                                     t.text()), what="the lobby's join line")
        assert not TABLE_WORDS.search(ann.text()) and "(away)" not in ann.text()
        assert all(len(line) <= 80 for line in ann.lines())

        bo = Term(["join", address, "--name", "Bo"], env("bo"), cols=120, rows=40)
        two = ("2 of 3 seated",)
        bo.wait(seated(*two, "0  Ann", "1  Bo (you)", "2  (empty)"), what="Bo's lobby")
        ann.wait(seated(*two, "0  Ann (you)", "1  Bo", "2  (empty)"), what="the count to grow")
        assert not TABLE_WORDS.search(bo.text())
        ann.line("say hello Bo")  # chat works in the lobby
        bo.wait_text("<Ann> hello Bo")

        cy = Term(["join", address, "--name", "Cy"], env("cy"), cols=80, rows=24)
        for t, who in ((ann, "Ann"), (bo, "Bo"), (cy, "Cy")):
            t.wait(lambda t: re.search(r"Hand \d", t.text()) and "Round 1 ·" in t.text()
                   and "seated" not in t.text(), what=f"the table screen of {who}")
    finally:
        for term in (ann, bo, cy):
            if term is not None:
                term.close()


@pytest.mark.network
def test_a_spectator_waits_in_the_same_lobby_until_the_deal(
        tmp_path: Path, host_at: list[Host]) -> None:
    port = free_ports()
    host_at.append(Host(tmp_path, "--seats", "2", "--bots", "1", "--port", str(port),
                        "--seed", "3", "--name", "Bot table"))
    address = host_at[0].wait_line(r"join at (tcp://\S+)").group(1)
    env = on_path(environment(tmp_path))
    eve = Term(["watch", address, "--name", "Eve"], env, cols=80, rows=24)
    try:
        eve.wait(seated("1 of 2 seated", "0  greedy bot 0 [bot]", "1  (empty)"),
                 what="the spectator's lobby")
        # the whole lobby (a screen may be caught half redrawn on a loaded machine)
        eve.wait(lambda t: re.search(r"Players join with: \S*mundus join " + re.escape(address),
                                     t.text()), what="the lobby's join line")
        text = eve.text()
        assert "you watch" in text and "(you)" not in text and not TABLE_WORDS.search(text)
        key = host_at[0].wait_line(r"--host-key=([^'\s]+)").group(1)
        bot = subprocess.Popen([*MUNDUS, "bot", "--connect", address, f"--host-key={key}",
                                "--name", "Rob"], cwd=ROOT, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=environment(tmp_path))
        try:
            # the whole table screen (a screen may be caught half redrawn): the lobby is gone;
            # two bots may play the game through before a loaded machine draws it
            eve.wait(lambda t: re.search(r"^Round \d+ ·", t.text(), re.M) is not None
                     and "Spectating" in t.text() and "seated" not in t.text(),
                     what="the table screen")
        finally:
            bot.kill()
            bot.wait(WAIT)
    finally:
        eve.close()
