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
from test_host_table import A, B, Clock, make_table, send

from mundus_net.protocol.invite import ALPHABET, matches, new_code, normal

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
    table = make_table(Clock(), invite=CODE)
    refused = send(table, A, t="hello", name="Ana", role="player")
    assert refused["code"] == "invite_needed" and "invite code" in refused["message"]
    assert send(table, B, t="hello", name="Eve", role="spectator")["code"] == "invite_needed"
    wrong = send(table, A, t="hello", name="Ana", role="player", invite="AAAA-BBBB")
    assert wrong["code"] == "bad_invite"
    assert table.free_seats() == 2 and not table.connections()


def test_with_the_code_a_seat_and_a_returning_player_needs_only_its_token() -> None:
    table = make_table(Clock(), invite=CODE)
    ana = send(table, A, t="hello", name="Ana", role="player", invite="k7qfm2xd")
    assert ana["t"] == "welcome" and ana["seat"] == 1
    assert send(table, B, t="hello", name="Eve", role="spectator", invite=CODE)["t"] == \
        "welcome"
    assert send(table, A, t="bye", token=ana["token"])["t"] == "ok"  # Ana leaves ...
    back = send(table, b"conn-a-later", t="hello", name="Ana", role="player",
                token=ana["token"])  # ... and comes back with only her token
    assert back["t"] == "welcome" and back["seat"] == 1


def test_a_table_without_a_code_takes_anyone() -> None:
    table = make_table(Clock())
    assert send(table, A, t="hello", name="Ana", role="player")["t"] == "welcome"


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
