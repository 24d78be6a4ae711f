"""Every command's human output fits 80 columns (issue 36, item 9): ``mundus verify``'s
lines, the PhaseBot fallback sentence on stderr, the host's key lines and ``mundus rules
show``, each run on a small example. A word longer than a line is not cut (a key stands whole
on its line, to be copied): the one such line here is the record signing key's, whose label
and 64 hex digits are 84 columns, and which programs read as it is (docs/client.md)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import pytest
from support.lines import WIDTH, paragraphs, too_wide
from support.positions import bot_positions
from test_verify import KEYS, finished_table, resign

from mundus_net.bots.sdk import PhaseBot
from mundus_net.cli import main
from mundus_net.engine.decisions import Decision
from mundus_net.engine.notation import format_position
from mundus_net.engine.view import PlayerView
from mundus_net.host import cli as host_cli
from mundus_net.host.cli import record_text
from mundus_net.host.keys import HostKeys


def test_mundus_verify_prints_no_line_wider_than_80_columns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # the record's path as a person types it
    signed = record_text(finished_table(), KEYS)
    Path("game.json").write_text(signed, encoding="utf-8")
    Path("changed.json").write_text(
        resign(signed, lambda d: d["result"]["doubloons"].__setitem__(0, 99)), encoding="utf-8")
    runs = [(["game.json"], 0), (["game.json", "--host-key", KEYS.sign_key], 0),
            (["game.json", "--host-key", "ab" * 32], 1), (["changed.json"], 1)]
    for arguments, status in runs:
        assert main(["verify", *arguments]) == status
        out = capsys.readouterr().out
        assert too_wide(out.splitlines()) == [], arguments
        assert max(map(len, paragraphs(out))) > WIDTH  # (it had lines to wrap)


class WrappedOnlyTakes(PhaseBot):  # a name of its own: the sentence is said once a process
    def on_take(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return legal[0]


def test_the_phasebot_fallback_sentence_fits_80_columns(
        capsys: pytest.CaptureFixture[str]) -> None:
    WrappedOnlyTakes(1)
    said = capsys.readouterr().err.splitlines()
    assert said[0].startswith("WrappedOnlyTakes handles take; ") and len(said) > 1
    assert too_wide(said) == []


def test_the_hosts_key_lines_fit_80_columns_but_the_signing_key_read_by_programs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = HostKeys.generate()  # kept in memory only
    host_cli.print_identity(keys)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"host key: {keys.public_key}  fingerprint",  # as bots read it
                     f"  {keys.fingerprint}  (memory only)",
                     f"record signing key: {keys.sign_key}",  # 84 columns: one token
                     f"  fingerprint {keys.sign_fingerprint}"]
    assert too_wide(lines) == [lines[2]]
    kept = HostKeys.load_or_create(tmp_path / "mundus-net")  # where it is kept: a path
    host_cli.print_identity(kept)
    lines = capsys.readouterr().out.splitlines()
    assert f"({kept.path})" in [part for line in lines for part in line.split("  ")]
    assert too_wide(lines) == [f"record signing key: {kept.sign_key}"]


def test_mundus_rules_show_fits_80_columns_whoever_looks(
        capsys: pytest.CaptureFixture[str]) -> None:
    wrapped = 0
    for game in itertools.islice(bot_positions(5, 13, True), 0, None, 40):
        text = format_position(game)
        for viewer in ([], ["--as", "0"], ["--as", "spectator"]):
            assert main(["rules", "show", *viewer, text]) == 0
            lines = capsys.readouterr().out.splitlines()
            assert too_wide(lines) == [], viewer
            wrapped += sum(line.startswith("    ") for line in lines)
    assert wrapped  # (some lines were long enough to wrap)
