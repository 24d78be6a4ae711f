"""Two people at one computer: one login, one state folder, two terminals (docs/client.md,
"Two players at one computer").

The real client in pseudo-terminals against a real `mundus host` on 127.0.0.1: two players
with different names each sit and play a round against each other and two host bots, and
never take the seat from each other; a third terminal that comes with a seat's saved token
is told who sits there and from where, takes the seat over when asked, and the terminal that
sat there says so in a sentence and stops (the command to take the seat back printed when it
leaves). Without sockets: which saved seat `mundus join` without --name comes back to, and
the token file's seats kept per name.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.waits import free_ports
from test_tui_lobby import Host, host_at  # noqa: F401 (host_at: a fixture)
from tui_term import ROOT, Term, choices, environment, phase

from mundus_net.client.connection import HostError
from mundus_net.client.tokens import Holder, SavedSeat, TokenStore
from mundus_net.client.tui import session
from mundus_net.client.tui.join import seat_to_resume
from mundus_net.client.tui.session import Seating

ADDRESS = "tcp://127.0.0.1:7700"
LOST = ("Connection lost", "Reconnect")
MUNDUS = [sys.executable, "-m", "mundus_net.cli"]
WAIT = 60.0  # a deadline for every wait  # what a seat taken back and forth would show


def answer_something(t: Term) -> bool:
    """Answer the question on the screen the way a quick player would (the take as it is,
    the turn ended at once, else the first choice); False when nothing is asked."""
    if phase(t) is None:
        return False
    _, items = choices(t)
    if not items:
        return False
    words = {item.words: item for item in items}
    picked = words.get("end the turn") or words.get("keep it") or items[0]
    t.line(str(picked.number))
    return True


def play_until(terms: list[Term], done: str, deadline_s: float = 240.0) -> None:
    """Both terminals answer what they are asked until each screen shows ``done``; no
    screen ever shows a lost connection."""
    deadline = time.monotonic() + deadline_s
    while not all(done in t.text() for t in terms):
        if time.monotonic() > deadline:
            raise AssertionError(f"no {done!r} in time; the screens:\n" +
                                 "\n----\n".join(t.text() for t in terms))
        for t in terms:
            t.pump(0.05)
            for word in LOST:
                assert word not in t.text(), f"{word!r} on a screen:\n{t.text()}"
            if done not in t.text() and answer_something(t):
                t.wait(lambda t: t.lines()[-1].rstrip().endswith(">") or phase(t) is None,
                       what="the answer to be taken")


@pytest.mark.network
def test_two_players_with_one_state_folder_each_sit_and_play_a_round(
        tmp_path: Path, host_at: list[Host]) -> None:  # noqa: F811
    port = free_ports()
    host_at.append(Host(tmp_path, "--seats", "4", "--bots", "2", "--port", str(port),
                        "--seed", "3", "--no-invite", "--name", "Party"))
    address = host_at[0].wait_line(r"join at (tcp://\S+)").group(1)
    env = environment(tmp_path / "one-login")  # one state folder for both terminals
    dee = Term(["join", address, "--name", "Dee"], env, cols=80, rows=24)
    bea: Term | None = None
    third: Term | None = None
    try:
        dee.wait_text("Dee (you)")
        bea = Term(["join", address, "--name", "Bea"], env, cols=120, rows=40)
        for t, me in ((dee, "Dee"), (bea, "Bea")):
            t.wait(lambda t: "Round 1" in t.text() and re.search(r"Hand \d", t.text()),
                   what=f"the table screen of {me}")
        play_until([dee, bea], "Round 2")
        assert "Bea (you)" not in dee.text() and "Dee (you)" not in bea.text()

        # A third terminal of the same login, with no name: both saved seats are held, so
        # it comes with the name used last (Bea's) and is told who sits there.
        third = Term(["join", address], env, cols=80, rows=24)
        third.wait_text("Which? [1-3]")
        prompt = " ".join(third.text().split())  # (wrapped at 80 columns)
        assert re.search(r"from another terminal of this computer \(.*process \d+\)", prompt)
        assert "1) take the seat over" in prompt and "2) sit as a new player" in prompt \
            and "3) watch the table" in prompt
        third.line("1")
        third.wait(lambda t: re.search(r"Hand \d", t.text()), what="the third at the table")
        bea.wait_text("Your seat was taken over")
        third.wait_text("You took seat 3 over")
        # The terminal taken over stops: it never comes back for the seat.
        for _ in range(60):
            bea.pump(0.05)
            third.pump(0.05)
        assert "Reconnected" not in bea.text() and "taken over" not in third.text()
        bea.send("\x04")  # Ctrl-D: it leaves and prints the way back
        bea.wait_raw(r"Take it back with:\s+\S*mundus\S* join \S+ --name Bea --take-over")
    finally:
        for term in (dee, bea, third):
            if term is not None:
                term.close()


@pytest.mark.network
def test_two_bots_with_one_token_file_never_take_the_seat_from_each_other(
        tmp_path: Path, host_at: list[Host]) -> None:  # noqa: F811
    port = free_ports()
    host_at.append(Host(tmp_path, "--seats", "3", "--bots", "1", "--port", str(port),
                        "--seed", "3", "--no-invite"))
    address = host_at[0].wait_line(r"join at (tcp://\S+)").group(1)
    key = host_at[0].wait_line(r"--host-key=([^'\s]+)").group(1)
    tokens = tmp_path / "rob.json"

    def bot(*extra: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*MUNDUS, "bot", "--connect", address, f"--host-key={key}", "--name", "Rob",
             "--token-file", str(tokens), *extra], cwd=ROOT, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=environment(tmp_path))

    first = bot()
    second: subprocess.Popen[str] | None = None
    try:
        host_at[0].wait_line(r"Rob .*seat 1|seat 1.*Rob")
        deadline = time.monotonic() + WAIT
        while "holder" not in (tokens.read_text() if tokens.exists() else ""):
            assert time.monotonic() < deadline, "the bot wrote no token file"
            time.sleep(0.05)
        again = bot()  # the same token file, while the first plays: refused, and says why
        _, err = again.communicate(timeout=WAIT)
        assert again.returncode == 1, err
        assert "seat_in_use" in err and "--take-over takes it over" in err
        assert first.poll() is None  # the first plays on
        second = bot("--take-over")
        _, err = first.communicate(timeout=WAIT)  # the first is told, and stops
        assert first.returncode == 1 and "taken_over" in err, err
        deadline = time.monotonic() + WAIT
        while json.loads(tokens.read_text()).get("holder", {}).get("pid") != second.pid:
            assert time.monotonic() < deadline and second.poll() is None, \
                "the second bot did not take the seat"
            time.sleep(0.05)
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(WAIT)


# -- without sockets ---------------------------------------------------------------------------


def seat(name: str, holder: Holder | None = None) -> SavedSeat:
    return SavedSeat(ADDRESS, "a" * 32, "g", 1, name, None, {}, holder)


def test_join_without_a_name_comes_back_to_the_seat_no_running_terminal_holds() -> None:
    running = Holder(os.getpid(), Holder.this_program().host, None)
    dee, bea = seat("Dee", running), seat("Bea")
    assert seat_to_resume([dee, bea], "Dee") == bea  # Dee plays in the other terminal
    def name(seats: list[SavedSeat], last: str) -> str | None:
        chosen = seat_to_resume(seats, last)
        return None if chosen is None else chosen.name

    assert name([dee, seat("Bea", running)], "Bea") == "Bea"  # both held: the last name
    assert name([seat("Dee"), seat("Bea")], "Bea") == "Bea"  # the last name
    assert name([seat("Dee"), seat("Bea")], "Cy") == "Dee"  # the one saved last
    assert seat_to_resume([], "Dee") is None


def test_the_token_file_keeps_a_seat_per_name_and_who_holds_it(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    me = Holder.this_program()
    store.save(ADDRESS, "a" * 32, game="g", seat=1, name="Dee", holder=me)
    store.save(ADDRESS, "b" * 32, game="g", seat=2, name="Bea")
    assert {s.name for s in store.seats(ADDRESS)} == {"Bea", "Dee"}
    dee = store.get(ADDRESS, "dee")  # any case
    assert dee is not None and dee.token == "a" * 32 and dee.holder == me
    assert dee.holder.here and dee.holder.running
    store.release(ADDRESS, "Dee")
    released = store.get(ADDRESS, "Dee")
    assert released is not None and released.holder is None
    store.forget(ADDRESS, "Dee")
    assert store.get(ADDRESS, "Dee") is None and store.get(ADDRESS, "Bea") is not None


def test_a_token_file_of_the_first_format_still_gives_its_seat(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"format": "mundus-net/tokens/1", "tables": {ADDRESS: {
        "token": "c" * 32, "game": "g", "seat": 3, "name": "Ana", "secret": None, "note": {},
        "saved": 1}}}))
    saved = TokenStore(path).get(ADDRESS, "Ana")
    assert saved is not None and saved.seat == 3 and saved.holder is None


def test_a_holder_whose_process_ended_is_not_running() -> None:
    gone = Holder(2**22 + 12345, Holder.this_program().host, None)  # above any pid_max
    assert gone.here and not gone.running
    elsewhere = Holder(1, "another-computer.invalid", None)
    assert not elsewhere.here and elsewhere.running  # unknown elsewhere: counted as playing


def _refusal() -> HostError:
    return HostError("seat_in_use", "Bea sits at seat 3 already, from another connection")


def test_without_a_terminal_a_seat_in_use_prints_the_three_ways(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    s = Seating(ADDRESS, "Bea")
    assert session.seat_in_use(s, seat("Bea"), _refusal()) is None
    out = capsys.readouterr().out
    assert "Bea sits at this table already (seat 1), from another connection" in out
    for line in (f"join {ADDRESS} --name Bea --take-over", f"join {ADDRESS} --name OTHER",
                 f"watch {ADDRESS}"):
        assert line in out
    assert not s.take_over and not s.spectator


@pytest.mark.parametrize(("typed", "taken", "spectator", "name"), [
    (["1"], True, False, "Bea"), (["3"], False, True, "Bea"),
    (["9", "2", "bea", "Cy"], False, False, "Cy")])  # a wrong number, then a name not Bea's
def test_a_seat_in_use_is_taken_over_left_for_a_new_seat_or_watched_as_chosen(
        monkeypatch: pytest.MonkeyPatch, typed: list[str], taken: bool, spectator: bool,
        name: str) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    answers = iter(typed)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    s = Seating(ADDRESS, "Bea")
    assert session.seat_in_use(s, seat("Bea"), _refusal()) is not None
    assert (s.take_over, s.spectator, s.name) == (taken, spectator, name)


def test_saving_a_seat_keeps_the_first_formats_seats_at_other_tables(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    other = "tcp://127.0.0.1:7800"
    path.write_text(json.dumps({"format": "mundus-net/tokens/1", "tables": {other: {
        "token": "c" * 32, "game": "g", "seat": 3, "name": "Ana", "secret": None, "note": {},
        "saved": int(time.time())}}}))
    store = TokenStore(path)
    store.save(ADDRESS, "a" * 32, game="g", seat=1, name="Dee")
    kept = store.get(other, "Ana")
    assert kept is not None and kept.token == "c" * 32
