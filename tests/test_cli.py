"""The ``mundus`` command table: every command listed without being imported, each one's
module imported only when it runs, and a missing one an error rather than silence."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mundus_net import cli

HEAVY = ("zmq", "prompt_toolkit", "cryptography", "sqlite3")


def loaded_after(*argv: str) -> list[str]:
    """The heavy modules a fresh interpreter holds after ``mundus ARGV`` ran."""
    probe = (
        "import sys\n"
        "from mundus_net.cli import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('\\n' + __import__('json').dumps([m for m in {HEAVY!r} if m in sys.modules]))\n")
    run = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    loaded: list[str] = json.loads(run.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.network  # starts interpreters
@pytest.mark.parametrize("argv", [("--help",), ("rules", "new", "--players", "4", "--seed", "7"),
                                  ("rules", "--help"), ("sim", "--help")])
def test_help_and_the_rules_commands_load_no_network_terminal_or_crypto_module(
        argv: tuple[str, ...]) -> None:
    assert loaded_after(*argv) == []


@pytest.mark.network  # starts an interpreter
def test_a_network_command_loads_what_it_needs() -> None:
    assert {"zmq", "cryptography"} <= set(loaded_after("host", "--help"))


def test_the_help_lists_every_command_with_its_summary(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the summaries
    for name, command in cli.COMMANDS.items():
        assert f"{name} {command.summary}" in out


def test_a_command_gets_its_own_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["sim", "--help"])
    assert "--rotate" in capsys.readouterr().out


def test_an_unknown_command_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["launch"])
    assert info.value.code == 2
    assert "invalid choice: 'launch'" in capsys.readouterr().err


def test_a_command_whose_module_is_missing_is_an_error_not_silence(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(cli.COMMANDS, "ghost", cli.Command("mundus_net.tools.ghost", "nothing"))
    with pytest.raises(ModuleNotFoundError, match=r"mundus_net\.tools\.ghost"):
        cli.main(["ghost"])


def test_every_command_module_exists_and_registers_its_command() -> None:
    for name in cli.COMMANDS:
        parser = cli.build_parser(name)
        assert parser.parse_args([name, *_minimal(name)]).command == name


def _minimal(name: str) -> list[str]:
    """Arguments that make each command's parser accept a line (nothing is run)."""
    return {"bot": ["--connect", "tcp://127.0.0.1:1"], "rules": ["new", "--players", "2"],
            "replay": ["x.json"], "report": ["x.json"], "review": ["x.json"],
            "verify": ["x.json"],
            "tournament": ["--bots", "random,random"]}.get(name, [])


def test_version_comes_from_the_installed_metadata_and_names_the_build(
        capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    from mundus_net.compiled import describe

    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert capsys.readouterr().out.splitlines() == [f"mundus-net {version('mundus-net')}",
                                                    f"build: {describe()}"]


def test_a_host_key_that_starts_with_a_dash_is_passed_as_one_word() -> None:
    """Z85 keys may start with "-" (about 1 in 85): the commands the program writes for
    itself and prints for people use ``--host-key=KEY``, which argparse reads as a value."""
    key = "-" + "a" * 39
    args = cli.build_parser("bot").parse_args(
        ["bot", "--connect", "tcp://127.0.0.1:1", f"--host-key={key}"])
    assert args.host_key == key
