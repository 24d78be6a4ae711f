"""Seats only for the invited (issue 13, item 5; docs/security.md): a table with an invite
code gives a seat, or a view, only to a hello that carries it; a returning player's token is
proof enough. The socket-free Table with an injected clock; then `mundus host` itself."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support.clock import FakeClock
from support.table import A, B, make_table, send

from mundus_net.host.guard import FREE_GUESSES, GUESS_BURST, GUESSES_PER_SECOND
from mundus_net.host.table import Table
from mundus_net.protocol.invite import ALPHABET, matches, new_code, normal
from mundus_net.protocol.messages import decode_client, encode

ROOT = Path(__file__).resolve().parent.parent
CODE = "K7QF-M2XD"


def test_a_fresh_code_is_two_groups_of_unambiguous_characters() -> None:
    code = new_code()
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", code), code
    assert set(normal(code)) <= set(ALPHABET) and not set("01OIL") & set(code)


def test_a_code_matches_in_any_case_with_or_without_its_dash() -> None:
    assert matches(CODE, "k7qf-m2xd") and matches(CODE, "K7QFM2XD") and matches(CODE, "k7qf m2xd")
    assert not matches(CODE, "K7QF-M2XE") and not matches(CODE, "")


def test_without_the_code_no_seat_and_no_view_and_the_error_says_what_to_do() -> None:
    table = make_table(FakeClock(), invite=CODE)
    refused = send(table, A, t="hello", name="Ana", role="player")
    assert refused["code"] == "invite_needed" and "invite code" in refused["message"]
    assert send(table, B, t="hello", name="Eve", role="spectator")["code"] == "invite_needed"
    wrong = send(table, A, t="hello", name="Ana", role="player", invite="AAAA-BBBB")
    assert wrong["code"] == "bad_invite"
    assert table.free_seats() == 2 and not table.connections()


def test_with_the_code_a_seat_and_a_returning_player_needs_only_its_token() -> None:
    table = make_table(FakeClock(), invite=CODE)
    ana = send(table, A, t="hello", name="Ana", role="player", invite="k7qfm2xd")
    assert ana["t"] == "welcome" and ana["seat"] == 1
    assert send(table, B, t="hello", name="Eve", role="spectator", invite=CODE)["t"] == \
        "welcome"
    assert send(table, A, t="bye", token=ana["token"])["t"] == "ok"  # Ana leaves ...
    back = send(table, b"conn-a-later", t="hello", name="Ana", role="player",
                token=ana["token"])  # ... and comes back with only her token
    assert back["t"] == "welcome" and back["seat"] == 1


def test_a_table_without_a_code_takes_anyone() -> None:
    table = make_table(FakeClock())
    assert send(table, A, t="hello", name="Ana", role="player")["t"] == "welcome"


# -- guesses (docs/security.md, "Guessing the invite code") -----------------------------------


def _guess(table: Table, clock: FakeClock, source: str, code: str, conn: bytes = b"guesser"
           ) -> str:
    """A hello with ``code`` from ``source``: the reply's code, or ``welcome``."""
    hello = decode_client(encode({"t": "hello", "name": "Eve", "role": "spectator",
                                  "invite": code}))
    reply, later = table.answer(conn, hello, source)
    assert later is None
    if reply["t"] == "welcome":
        send(table, conn, t="bye")
        return "welcome"
    return str(reply["code"])


def test_wrong_codes_from_one_source_make_it_wait_longer_and_longer() -> None:
    clock = FakeClock()
    table = make_table(clock, invite=CODE)
    lines: list[str] = []
    table.invite_guesses.log = lines.append
    for _ in range(FREE_GUESSES):  # typos go unnoticed
        assert _guess(table, clock, "192.0.2.9", "AAAA-AAAA") == "bad_invite"
    assert _guess(table, clock, "192.0.2.9", "AAAA-AAAA") == "bad_invite"  # now it waits 1 s
    assert _guess(table, clock, "192.0.2.9", CODE) == "rate_limited"  # not even compared
    for wait in (1, 2, 4, 8):
        clock.now += wait - 0.01
        assert _guess(table, clock, "192.0.2.9", CODE) == "rate_limited"
        clock.now += 0.01
        assert _guess(table, clock, "192.0.2.9", "AAAA-AAAA") == "bad_invite"
    assert lines[0] == "host: 6 wrong invite codes from 192.0.2.9: its next guess waits 1 s"
    clock.now += 16
    assert _guess(table, clock, "192.0.2.9", CODE) == "welcome"  # the right one, in time
    assert _guess(table, clock, "192.0.2.9", "AAAA-AAAA") == "bad_invite"  # forgiven


def test_a_source_that_guesses_does_not_hold_back_another() -> None:
    clock = FakeClock()
    table = make_table(clock, invite=CODE)
    for _ in range(FREE_GUESSES + 3):
        _guess(table, clock, "192.0.2.9", "AAAA-AAAA")
    assert _guess(table, clock, "192.0.2.9", CODE) == "rate_limited"
    assert _guess(table, clock, "198.51.100.4", CODE, b"newcomer") == "welcome"
    # an IPv6 guesser is one source for its whole /64
    for n in range(FREE_GUESSES + 1):
        _guess(table, clock, f"2001:db8::{n + 1}", "AAAA-AAAA")
    assert _guess(table, clock, "2001:db8::ffff", CODE) == "rate_limited"


def test_one_source_gets_a_few_guesses_an_hour() -> None:
    clock = FakeClock()
    table = make_table(clock, invite=CODE)
    compared = 0
    for _ in range(3600 * 10):  # a guess every 0.1 s for an hour
        compared += _guess(table, clock, "192.0.2.9", "AAAA-AAAA") == "bad_invite"
        clock.now += 0.1
    assert compared <= FREE_GUESSES + 12  # 1 + 2 + ... + 2048 s of waits fill the hour


def test_everyone_together_gets_at_most_a_guess_a_second() -> None:
    """A thousand sources at once: a burst is compared, then one a second, and a newcomer
    with the right code waits its turn like everyone."""
    clock = FakeClock()
    table = make_table(clock, invite=CODE)
    lines: list[str] = []
    table.invite_guesses.log = lines.append
    first = [_guess(table, clock, f"10.1.{n // 200}.{n % 200}", "AAAA-AAAA")
             for n in range(1000)]
    assert first.count("bad_invite") == GUESS_BURST
    assert first.count("rate_limited") == 1000 - GUESS_BURST
    assert _guess(table, clock, "198.51.100.4", CODE, b"newcomer") == "rate_limited"
    assert any("wrong invite codes in all" in line for line in lines), lines
    compared = 0
    for n in range(100):  # ten seconds of the thousand sources guessing 10 a second
        clock.now += 0.1
        compared += _guess(table, clock, f"10.2.0.{n}", "AAAA-AAAA") == "bad_invite"
    assert compared == 10 * GUESSES_PER_SECOND
    clock.now += 1.0
    assert _guess(table, clock, "198.51.100.4", CODE, b"newcomer") == "welcome"


def _host(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mundus_net", "host", "--bind", "127.0.0.1", "--no-beacon",
         "--port", "0", "--seats", "2", "--bots", "1", "--state-dir", str(tmp_path / "games"),
         "--key-dir", str(tmp_path / "keys"), *extra],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)


def _lines_until(proc: subprocess.Popen[str], pattern: str) -> str:
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:  # the host prints these at once; the test's deadline bounds it
        seen.append(line)
        if re.search(pattern, line):
            return "".join(seen)
    raise AssertionError("".join(seen))


@pytest.mark.network
@pytest.mark.timeout(120)
def test_the_host_prints_its_code_in_the_join_commands_and_a_bot_without_it_is_refused(
        tmp_path: Path) -> None:
    host = _host(tmp_path, "--invite", CODE)
    try:
        out = _lines_until(host, r"a bot joins with:")
        assert f"invite code: {CODE}" in out
        join = re.search(r"players join with: (.*)", out)
        assert join is not None and f"--invite {CODE}" in join.group(1)
        bot = re.search(r"a bot joins with:\s+(.*)", out)
        assert bot is not None
        words = shlex.split(bot.group(1))  # as a shell reads the printed line
        address = words[words.index("--connect") + 1]
        key = next(w for w in words if w.startswith("--host-key="))
        base = [sys.executable, "-m", "mundus_net", "bot", "--connect", address, key,
                "--timeout", "20"]
        refused = subprocess.run(base, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert refused.returncode != 0
        assert "invite" in (refused.stdout + refused.stderr), refused.stderr
        played = subprocess.run([*base, "--invite", CODE.lower()], cwd=ROOT,
                                capture_output=True, text=True, timeout=100)
        assert played.returncode == 0, played.stderr
    finally:
        host.kill()
        host.wait(30)
