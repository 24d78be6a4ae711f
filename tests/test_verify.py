"""Signed game records and ``mundus verify`` (mundus_net/tools/verify.py, docs/record.md).

A record signed by the host's Ed25519 key passes every check; a record changed in any byte
fails (every byte position of a small record is flipped); a record changed and signed again
fails at the first check its change breaks, and ``mundus verify`` names it.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.lines import paragraphs
from test_tui_game import ask, first_offer, pick
from tui_term import Term, answer, choices, environment, stop_tables, without_venv

from mundus_net.bots import load_bot
from mundus_net.cli import main
from mundus_net.host.cli import record_text
from mundus_net.host.keys import HostKeys, default_key_dir, own_sign_key, signed_by
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol import fairdeal
from mundus_net.protocol.commitment import commit, new_nonce
from mundus_net.protocol.messages import decode_client, encode
from mundus_net.protocol.signing import deal_digest, sign_record
from mundus_net.tools.verify import CHECKS, UnreadableRecord, verify_text

KEYS = HostKeys.generate()


def finished_table(seed: int | None = None, fixed_seed: bool = False) -> Table:
    """A 2-round table of two host bots and one client seat that contributed, played to its
    end without sockets."""
    table = Table(3, TableSettings(game_id="verify-game", round_limit=2, first_tm=0,
                                   fixed_seed=fixed_seed), seed=seed,
                  bots=[load_bot("greedy", 1), load_bot("random", 2)], bot_names=["g", "r"])
    welcome = table.handle(b"c", decode_client(encode(
        {"t": "hello", "name": "Ana", "role": "player", "bot": True, "contribute": True})))
    # Read into a local: mypy keeps a narrowed ``table.started`` across the calls below.
    started_at_hello = table.started
    assert welcome["contribute"] and not started_at_hello
    token = welcome["token"]
    table.handle(b"c", decode_client(encode({"t": "contribute", "token": token,
                                             "value": b"\x07" * 32})))
    assert table.started
    for _ in range(10_000):  # the client seat answers its first legal choice
        table.advance()
        pending = table.output.private_state(2)["pending"]
        if table.over:
            break
        if pending is None:
            continue
        if pending["kind"] == "commit":
            offer = pending["legal"][0]["cards"]
            nonce = new_nonce()
            table.handle(b"c", {"t": "commit", "token": token, "pending": pending["id"],
                                "commitment": commit("verify-game", pending["detail"]["round"],
                                                     2, offer, nonce)})
            reveal = table.output.private_state(2)["pending"]
            while reveal is None or reveal["kind"] != "reveal":
                table.advance()
                reveal = table.output.private_state(2)["pending"]
            table.handle(b"c", {"t": "reveal", "token": token, "pending": reveal["id"],
                                "offer": offer, "nonce": nonce})
        else:
            table.handle(b"c", {"t": "decide", "token": token, "pending": pending["id"],
                                "decision": pending["legal"][0]})
    assert table.over
    return table


@pytest.fixture(scope="module")
def signed() -> str:
    return record_text(finished_table(), KEYS)


def resign(text: str, change: Callable[[dict[str, Any]], None]) -> str:
    """The record changed by ``change`` and signed again with the host's key."""
    data = json.loads(text)
    change(data)
    return sign_record(json.dumps(data), KEYS.sign, KEYS.sign_public)


def first_failure(text: str) -> str:
    report = verify_text(text)
    failed = report.first_failure
    assert failed is not None and not report.ok
    return failed.name


def test_a_signed_record_passes_every_check(signed: str) -> None:
    report = verify_text(signed, pinned_key=KEYS.sign_key)
    assert report.ok, report
    assert [c.name for c in report.checks] == list(CHECKS)
    data = json.loads(signed)
    fair = data["fairness"]
    assert [c["by"] for c in fair["contributions"]] == ["bot", "bot", "player"]
    assert fair["contributions"][2]["value"] == "07" * 32
    assert data["offers"] and data["decisions"]


def test_the_seed_mixes_the_contributions_and_the_same_inputs_deal_the_same() -> None:
    a, b = finished_table(seed=5), finished_table(seed=5)
    assert a.game.options.seed == b.game.options.seed  # R2.6: the same inputs
    assert a.record.fairness == b.record.fairness
    assert a.record.fairness is not None
    values = [bytes.fromhex(c["value"]) for c in a.record.fairness["contributions"]]
    assert a.game.options.seed == fairdeal.engine_seed("verify-game", a.host_seed, values)
    assert a.game.options.seed != 5
    other = list(values)
    other[2] = b"\x08" * 32  # one client's share changes the whole deal
    assert fairdeal.engine_seed("verify-game", a.host_seed, other) != a.game.options.seed
    fixed = finished_table(seed=5, fixed_seed=True)
    assert fixed.game.options.seed == 5
    report = verify_text(record_text(fixed, KEYS))
    assert report.ok and "FIXED" in report.checks[4].detail


def test_every_byte_changed_fails(signed: str) -> None:
    data = signed.encode("utf-8")
    assert len(data) < 20_000  # small enough to try every position
    passed = []
    for flip in (0x01, 0x20):
        for i in range(len(data)):
            changed = bytearray(data)
            changed[i] ^= flip
            try:
                ok = verify_text(changed.decode("utf-8")).ok
            except (UnreadableRecord, UnicodeDecodeError):
                ok = False
            if ok:
                passed.append((i, flip))
    assert passed == []
    # Bytes removed count too: the final newline, the last byte of every kind.
    assert first_failure(signed.rstrip("\n")) == "layout"
    failed = verify_text(signed.rstrip("\n")).first_failure
    assert failed is not None and "final newline was removed" in failed.detail


@pytest.mark.parametrize("change, check", [
    (lambda d: d["fairness"].__setitem__("host_seed", "00" * 32), "seed commitment"),
    (lambda d: d["options"].__setitem__("seed", d["options"]["seed"] + 1), "seed derivation"),
    (lambda d: d["fairness"]["contributions"][2].__setitem__("value", "08" * 32),
     "seed derivation"),
    (lambda d: d["fairness"].__setitem__("deal_digest", "0" * 64), "deal"),
    (lambda d: d["offers"][0].__setitem__("nonce", "00" * 32), "offer commitments"),
    (lambda d: d["decisions"][0].__setitem__(0, (d["decisions"][0][0] + 1) % 3), "replay"),
    (lambda d: d["result"]["doubloons"].__setitem__(0, 99), "result"),
    (lambda d: d.__setitem__("format", "other"), "record"),
])
def test_a_changed_record_signed_again_fails_at_the_first_broken_check(
        signed: str, change: Callable[[dict[str, Any]], None], check: str) -> None:
    assert first_failure(resign(signed, change)) == check


def test_the_offers_played_must_be_the_ones_committed(signed: str) -> None:
    def swap(d: dict[str, Any]) -> None:  # a commitment that opens, to another offer
        offer = d["offers"][0]
        offer["offer"] = [1] if offer["offer"] != [1] else [2]
        offer["commitment"] = commit(d["game"], offer["round"], offer["seat"], offer["offer"],
                                     bytes.fromhex(offer["nonce"])).hex()
    assert first_failure(resign(signed, swap)) == "offers match decisions"


def test_the_signature_and_the_pinned_key(signed: str) -> None:
    other = HostKeys.generate()
    # Signed again by another key: a consistent record, but not by the pinned host.
    impostor = sign_record(signed, other.sign, other.sign_public)
    assert verify_text(impostor).ok
    report = verify_text(impostor, pinned_key=KEYS.sign_key)
    assert report.first_failure is not None and report.first_failure.name == "signature"
    assert "not by the pinned key" in report.first_failure.detail
    unsigned = json.loads(signed)
    del unsigned["signature"]
    assert first_failure(json.dumps(unsigned)) == "signature"
    assert first_failure(signed.replace(" ", "  ", 1)) == "layout"


def test_a_new_game_digest_depends_on_the_seed() -> None:
    from mundus_net.engine.game import Game
    assert deal_digest(Game.new(3, 1)) == deal_digest(Game.new(3, 1))
    assert deal_digest(Game.new(3, 1)) != deal_digest(Game.new(3, 2))


def test_mundus_verify_prints_each_check_and_names_the_first_failure(
        signed: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text(signed, encoding="utf-8")
    assert main(["verify", str(good), "--host-key", KEYS.sign_key]) == 0
    out = "\n".join(paragraphs(capsys.readouterr().out))
    assert all(f"ok   {name}:" in out for name in CHECKS) and "every check holds" in out

    bad = tmp_path / "bad.json"
    bad.write_text(resign(signed, lambda d: d["result"]["doubloons"].__setitem__(0, 99)),
                   encoding="utf-8")
    assert main(["verify", str(bad)]) == 1
    out = "\n".join(paragraphs(capsys.readouterr().out))
    assert "FAIL result:" in out and "DOES NOT HOLD: result" in out

    assert main(["verify", str(good), "--host-key", "ab" * 32]) == 1
    assert "not by the pinned key" in "\n".join(paragraphs(capsys.readouterr().out))

    (tmp_path / "junk.json").write_text("{not json", encoding="utf-8")
    assert main(["verify", str(tmp_path / "junk.json")]) == 2
    assert main(["verify", str(tmp_path / "missing.json")]) == 2


def test_a_changed_result_is_told_in_words_both_ways(signed: str) -> None:
    changed = resign(signed, lambda d: d["result"]["doubloons"].__setitem__(0, 99))
    failed = verify_text(changed).first_failure
    assert failed is not None and failed.name == "result"
    assert failed.detail.startswith("the replay ends with the game won by ")
    assert "but the record says: won by " in failed.detail and "99/" in failed.detail
    assert "None" not in failed.detail and "Result(" not in failed.detail


def test_a_file_that_is_no_record_is_unreadable_with_its_kind_named() -> None:
    with pytest.raises(UnreadableRecord, match="it is empty"):
        verify_text("")
    with pytest.raises(UnreadableRecord, match="it is the results of a tournament"):
        verify_text(json.dumps({"summary": {}, "games": []}))
    with pytest.raises(UnreadableRecord, match="it is cut short"):
        verify_text('{"format": "mundus-record/1", "decisions": [[0, "anno')


# -- which key signed: this computer's own, or another's (docs/record.md, "Whose key") ----------


def _verify(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    record = tmp_path / "game.json"
    record.write_text(text, encoding="utf-8")
    status = main(["verify", str(record)])
    return status, "\n".join(paragraphs(capsys.readouterr().out))


def test_a_record_signed_by_this_computers_host_key_is_said_to_be_its_own(
        signed: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    own = HostKeys.load_or_create()  # the user's state folder (the test's own: conftest.py)
    status, out = _verify(sign_record(signed, own.sign, own.sign_public), tmp_path, capsys)
    words = f"signed by this computer's host key, fingerprint {own.sign_fingerprint}"
    assert status == 0
    assert f"ok   signature: {words}: the record was made here" in out
    assert "nothing to compare" in out and "compare it with" not in out
    assert out.splitlines()[-1] == f"{tmp_path / 'game.json'}: every check holds; {words}"
    assert signed_by(own.sign_key, own_sign_key()) == words  # as mundus host and play print


def test_a_record_signed_by_another_key_is_said_to_be_foreign_with_the_fingerprint_to_compare(
        signed: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    HostKeys.load_or_create()  # this computer has a key of its own: not the one that signed
    status, out = _verify(signed, tmp_path, capsys)
    fp = KEYS.sign_fingerprint
    assert status == 0
    assert f"ok   signature: signed by the record signing key {fp} ({KEYS.sign_key}), not " \
           "this computer's: compare it with the fingerprint" in out
    assert "this computer's host key" not in out
    assert out.splitlines()[-1].endswith(f"every check holds; it is its host's record if {fp} "
                                         "is the fingerprint of the record signing key that "
                                         "host printed")
    assert signed_by(KEYS.sign_key, own_sign_key()) == f"signed by the record signing key {fp}"


def test_verify_makes_no_key_where_this_computer_has_none(
        signed: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _verify(signed, tmp_path, capsys)
    assert status == 0 and "not this computer's" in out
    assert own_sign_key() is None and not list(default_key_dir().glob("host*"))


@pytest.mark.network
def test_mundus_play_names_the_records_key_and_its_check_command_finds_it_is_this_computers(
        tmp_path: Path) -> None:
    """A whole one-round game of `mundus play` in a pseudo-terminal; then the "check it"
    command it printed, run as shown from another folder without the virtual environment on
    PATH, says the record is signed by this computer's host key, with the fingerprint
    `mundus play` printed beside the record's path."""
    env = environment(tmp_path)
    stop = stop_tables(tmp_path)
    t = Term(["play", "--bot-pace", "0", "--bots", "1", "--seed", "7", "--round-limit", "1",
              "--name", "Ana"], env, cols=80, rows=24)
    try:
        first_offer(t)
        combined = False
        while (now := ask(t)) != "over":
            chosen = pick(now, choices(t)[1], combined)
            combined = now == "turn" and chosen.words != "end the turn"
            answer(t, str(chosen.number))
        t.send("\x04")  # Ctrl-D leaves the finished game
        assert t.finish() == 0
    finally:
        t.close()
        stop()
    told = re.search(r"The game's record: (.+?)\r?\n +(signed by .+?)\r?\n +replay it: .+?\r?\n"
                     r" +check it: +(.+?)\r?\n", t.plain())
    assert told is not None, t.tail()
    record, signer, check = told.groups()
    own = HostKeys.load_or_create(tmp_path / "mundus-net")  # the one mundus play signed with
    assert signer == f"signed by this computer's host key, fingerprint {own.sign_fingerprint}"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run(shlex.split(check), cwd=elsewhere, env=without_venv(env),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    said = paragraphs(run.stdout)
    assert f"ok   signature: {signer}: the record was made here" in "\n".join(said)
    assert said[-1] == f"{record}: every check holds; {signer}"
