"""Leaving and coming back with the real client in a pseudo-terminal: Ctrl-C leaves cleanly
and says how to come back; the seat token is saved (0600, under XDG_STATE_HOME); `mundus
join ADDRESS` gives the seat back as it was. Colours: NO_COLOR and TERM=dumb give no colour
escape codes. At 80x24."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
from pathlib import Path

import pytest
from tui_term import Term, colour_codes, environment, hand, phase, stop_tables

pytestmark = pytest.mark.network


def test_ctrl_c_leaves_and_join_resumes_the_seat(tmp_path: Path) -> None:
    stop = stop_tables(tmp_path)
    first = Term(["play", "--bot-pace", "0", "--bots", "3", "--seed", "5",
                  "--round-limit", "2", "--name", "Ana"],
                 environment(tmp_path, no_color=True), cols=80, rows=24)
    try:
        first.wait(phase, what="the first question")
        asked, cards = phase(first), first.wait(hand, what="the hand")
        first.wait_text("Ana")  # the screen may be drawn in more than one write
        first.send("\x03")  # Ctrl-C
        m = first.wait_raw(r"mundus join (tcp://127\.0\.0\.1:\d+)")
        assert first.finish() == 0
        out = first.plain()
        assert "You left \"Ana's table\"" in out
        assert "seat 0 (Ana) is kept for you" in out  # mundus play seats its player first
        assert re.search(r"runs on in the background \(process \d+\)", out)
        address = m.group(1)
        assert not colour_codes(bytes(first.raw)), "NO_COLOR must give no colour codes"

        tokens = tmp_path / "mundus-net" / "tokens.json"
        assert stat.S_IMODE(os.stat(tokens).st_mode) == 0o600
        entry = json.loads(tokens.read_text())["tables"][address]["seats"]["ana"]
        assert entry["seat"] == 0 and len(entry["token"]) == 32 and entry["name"] == "Ana"
        assert entry["holder"] is None  # the client left: no program holds the seat now

        # TERM=dumb, no NO_COLOR: plain text too.
        again = Term(["join", address], environment(tmp_path, term="dumb"), cols=80, rows=24)
        try:
            again.wait_text("Welcome back: seat 0 is yours again")
            again.wait(lambda t: phase(t) == asked, what=f"the same question ({asked})")
            again.wait(lambda t: hand(t) == cards, what=f"the same hand ({cards})")
            again.wait(lambda t: re.search(r"^> Ana\b", t.text(), re.M), what="Ana's seat")
            # the header's TM is at the right edge
            again.wait(lambda t: len(t.lines()[0]) == 80, what="the whole header")
            again.resize(120, 40)  # laid out again for the new size
            again.wait(lambda t: len(t.lines()[0]) == 120
                       and re.search(r"TM: greedy \d$", t.lines()[0]) is not None
                       and phase(t) == asked, what="the screen at 120 columns")
            again.wait(lambda t: hand(t) == cards, what=f"the same hand ({cards})")
            again.send("\x04")  # Ctrl-D
            again.wait_raw(r"Come back with:\s+\S*mundus join " + re.escape(address))
            assert again.finish() == 0
        finally:
            again.close()
        assert not colour_codes(bytes(again.raw)), "TERM=dumb must give no colour codes"
    finally:
        first.close()
        stop()


def test_a_lost_connection_says_so_and_comes_back_by_itself(tmp_path: Path) -> None:
    """The table's process is paused: after 5 silent heartbeats the client says the
    connection is lost, and once the table answers again it is back, still asked."""
    stop = stop_tables(tmp_path)
    t = Term(["play", "--bot-pace", "0", "--bots", "3", "--seed", "5",
                  "--round-limit", "2", "--name", "Ana"],
             environment(tmp_path), cols=80, rows=24)
    pid = None
    try:
        t.wait(phase, what="the first question")
        tokens = json.loads((tmp_path / "mundus-net" / "tokens.json").read_text())
        pid = next(iter(tokens["tables"].values()))["seats"]["ana"]["note"]["pid"]
        os.kill(pid, signal.SIGSTOP)
        t.wait_text("Connection lost: reconnecting by itself", timeout=15)
        assert "your move: choose an offer" in t.text()  # still this seat's question
        assert phase(t) is None  # but nothing can be sent meanwhile
        os.kill(pid, signal.SIGCONT)
        t.wait_text("Reconnected: back at the table", timeout=15)
        t.wait(lambda t: phase(t) == "offer", what="the question again")
        t.line("1")
        t.wait(lambda t: phase(t) == "take", what="the next question")
        t.send("\x03")
        assert t.finish() == 0
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGCONT)
        t.close()
        stop()
