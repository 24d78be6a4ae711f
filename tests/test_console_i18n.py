"""The consoles of ``mundus host`` and ``mundus bot`` in the reader's language (issue 28):
``--lang``, else the system locale's, else English; the machine-read lines stay English with
``--lang en`` (docs/client.md, "The host and the bot in your language"); the client's Problem
notices in the player's language, their detail kept."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from support.waits import WAIT

from mundus_net.bots import load_bot
from mundus_net.cli import main
from mundus_net.client import bot as bot_cli
from mundus_net.client.core import ClientCore, ClientSettings
from mundus_net.client.notices import Problem, problem_sentence
from mundus_net.engine.game import REASON_WORDS, Result
from mundus_net.host import cli as host_cli
from mundus_net.i18n import ENDINGS, translator, use

ROOT = Path(__file__).resolve().parent.parent


def fake_bot(seat: int, names: list[str]) -> bot_cli.NetworkBot:
    core = ClientCore(ClientSettings(names[seat]))
    core.seat, core.state = seat, {"table": {"names": names}}
    return bot_cli.NetworkBot(cast(Any, SimpleNamespace(core=core)), load_bot("random", 0),
                              log=lambda _: None)


RESULT = Result((2,), "round_limit", (13, 3, 15), (2, 3, 1), 3)
NAMES = ["Ann", "Bob", "Cy"]


def test_the_endings_are_the_engines_words() -> None:
    """The host's and the bot's "ended ..." say in English what the engine says."""
    assert ENDINGS == REASON_WORDS


def test_the_bots_game_over_line_is_in_its_language() -> None:
    ann = fake_bot(0, NAMES)
    assert bot_cli.game_over_line(ann, RESULT, translator("it")) == (
        "partita finita dopo 3 round, conclusa al limite di round; vince Cy (posto 2); "
        "Ann (posto 0) arriva 2º con 13 dobloni")
    assert bot_cli.game_over_line(fake_bot(2, NAMES), RESULT, translator("ko")) == (
        "3라운드 후 게임 종료, 라운드 제한에서 끝남; 승자: Cy (2번 자리); "
        "Cy (2번 자리): 15더블룬으로 승리")
    assert bot_cli.game_over_line(ann, RESULT, translator("ru")).endswith(
        "Ann (место 0): 2-е место, 13 дублонов")
    assert bot_cli.game_over_line(ann, RESULT, translator("en")) == (
        "game over after 3 rounds, ended at the round limit; won by Cy (seat 2); "
        "Ann (seat 0) placed 2nd with 13 doubloons")


def test_the_bot_prints_its_game_over_line_in_the_language_in_use(
        capsys: pytest.CaptureFixture[str]) -> None:
    use("nl")
    bot_cli.report_result(argparse.Namespace(json=False), fake_bot(0, NAMES), RESULT)
    assert capsys.readouterr().out == (
        "spel voorbij na 3 rondes, geëindigd bij de rondelimiet; gewonnen door Cy (plaats 2); "
        "Ann (plaats 0) werd 2e met 13 dubloenen\n")


def test_the_bots_json_line_is_the_same_in_every_language(
        capsys: pytest.CaptureFixture[str]) -> None:
    lines = []
    for language in ("en", "ko"):
        use(language)
        bot_cli.report_result(argparse.Namespace(json=True), fake_bot(0, NAMES), RESULT)
        lines.append(capsys.readouterr().out)
    assert lines[0] == lines[1] and '"reason": "round_limit"' in lines[0]


def test_the_host_tells_events_and_standings_in_its_language() -> None:
    use("it")
    assert host_cli.describe_event({"kind": "away", "seat": 1}, NAMES) == \
        "Bob (posto 1) è assente"
    assert host_cli.describe_event({"kind": "joined", "seat": 2, "name": "Cy", "bot": True},
                                   NAMES) == "Cy occupa il posto 2 (un bot)"
    shared = Result((1, 2), "doubloons", (40, 80, 80), (3, 1, 1), 9)
    assert host_cli.standings(shared, NAMES) == [
        "  posto 1: Bob (posto 1), 80 dobloni (vittoria condivisa)",
        "  posto 1: Cy (posto 2), 80 dobloni (vittoria condivisa)",
        "  posto 3: Ann (posto 0), 40 dobloni"]
    assert host_cli.game_over(shared, NAMES, translator("it")) == (
        "partita finita dopo 9 round, conclusa quando un giocatore ha raggiunto 75 dobloni; "
        "vince Bob (posto 1) e Cy (posto 2)")


def test_the_host_speaks_the_system_locales_language_without_lang(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    assert main(["host", "--list", "--state-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"нет игр в {tmp_path}\n"
    assert main(["host", "--list", "--state-dir", str(tmp_path), "--lang", "en"]) == 0
    assert capsys.readouterr().out == f"no games in {tmp_path}\n"


def test_a_language_the_game_has_not_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["host", "--list"], ["bot", "--connect", "tcp://127.0.0.1:1"]):
        with pytest.raises(SystemExit):
            main([*command, "--lang", "de"])
        assert "'de' is not a language of the game" in capsys.readouterr().err


def test_a_problem_is_told_in_the_language_with_its_detail() -> None:
    problem = Problem("unreadable message from the host", "Unpack failed: incomplete input")
    assert problem_sentence(problem, translator("it")) == \
        "messaggio illeggibile dall'host: Unpack failed: incomplete input"
    assert problem_sentence(problem, translator("en")) == \
        "unreadable message from the host: Unpack failed: incomplete input"
    alone = Problem("no reply to an answer; the decision is open again")
    assert problem_sentence(alone, translator("nl")) == \
        "geen antwoord op een verzonden beslissing; de beslissing staat weer open"


def _host(tmp_path: Path, *options: str, env: dict[str, str] | None = None) -> list[str]:
    """A short all-bots game of ``mundus host`` (a fixed seed, loopback, no beacon): its
    standard output, line by line."""
    run = subprocess.run(
        [sys.executable, "-P", "-m", "mundus_net", "host", "--bind", "127.0.0.1", "--port",
         "0", "--no-beacon", "--seats", "3", "--bots", "3", "--seed", "7", "--fixed-seed",
         "--round-limit", "2", "--key-dir", str(tmp_path / "keys"), "--state-dir",
         str(tmp_path / "games"), *options],
        cwd=tmp_path, capture_output=True, text=True, timeout=WAIT,
        env=env if env is not None else dict(os.environ))
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout.splitlines()


@pytest.mark.network
def test_mundus_host_lang_it_prints_its_lines_in_italian_and_ends_with_the_standings(
        tmp_path: Path) -> None:
    lines = _host(tmp_path, "--lang", "it", "--record", str(tmp_path / "game.json"))
    text = "\n".join(lines)
    assert lines[0].startswith('tavolo "Mundus table": 3 posti, 3 bot dell\'host, partita ')
    assert lines[1].startswith("registro della partita: ")
    assert lines[2].startswith("entra su tcp://127.0.0.1:")
    assert lines[3].startswith("chiave dell'host: ")
    assert "greedy bot 0 occupa il posto 0 (un bot)" in lines
    assert "tutti i posti sono occupati: la partita comincia" in lines
    assert f"registrazione scritta in {tmp_path / 'game.json'}, firmata " in text
    assert any(line.startswith("partita finita dopo 2 round, conclusa al limite di round; "
                               "vince ") for line in lines)
    at = lines.index("classifica finale:")
    assert len(lines) == at + 4  # the standings end it: one line a seat
    assert all(line.startswith("  posto ") and line.endswith(("dobloni", "doblone", ")"))
               for line in lines[at + 1:])
    for english in ("join at", "host key", "took seat", "game over", "final standings",
                    "place ", "doubloons", "record written"):
        assert english not in text, english


@pytest.mark.network
def test_mundus_host_keeps_the_english_lines_programs_read_whatever_the_locale(
        tmp_path: Path) -> None:
    """LANG=ko_KR with --lang en: the lines of docs/client.md's "Lines that programs read"."""
    lines = _host(tmp_path, "--lang", "en", env={**os.environ, "LANG": "ko_KR.UTF-8"})
    assert lines[1].startswith("game log: ") and " (after a crash: " in lines[1]
    assert lines[2].startswith("join at tcp://127.0.0.1:")
    assert lines[3].startswith("host key: ")
    assert "greedy bot 0 took seat 0 (a bot)" in lines
    assert lines[-4] == "final standings:"


def test_the_english_lines_programs_read_are_as_they_were() -> None:
    """With --lang en (or no language of ours) a seated network bot is still "NAME took seat
    N (a bot)": tests and scripts wait for "NAME took seat N"."""
    assert host_cli.describe_event({"kind": "joined", "seat": 2, "name": "net2", "bot": True},
                                   NAMES) == "net2 took seat 2 (a bot)"
    assert host_cli.describe_event({"kind": "round", "round": 4}, NAMES) == "round 4"
