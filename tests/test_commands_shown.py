"""Commands shown to players work as shown (issue 24, item 6; docs/client.md, "Commands to
type").

Without sockets: the program to type (``mundus`` only when PATH finds this installation's
script, else that script's whole path, else ``python -m mundus_net``) and the words of the
command that joins a table (cli_args.join_command). With a real `mundus host` and the real
client in pseudo-terminals (marked network): the join command the host console prints and
the one the lobby shows, and the one printed when a player leaves, each run exactly as shown
(split as a shell splits it) from another folder, with a PATH that does not hold the virtual
environment's scripts: the player sits without being asked for anything.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from support.clock import FakeClock
from support.table import A, B, make_table, send
from support.waits import free_ports
from test_tui_lobby import Host, host_at  # noqa: F401 (host_at: a fixture)
from tui_term import MUNDUS, ROOT, Term, environment, without_venv

from mundus_net import cli_args
from mundus_net.client.notices import Joined, Welcome
from mundus_net.client.tui import app as tui_app
from mundus_net.client.wire import deck_from_wire

WAIT = 60.0  # a deadline for every wait: generous, so that a loaded machine is no failure
CODE = "K7QM-P2XD"


# -- the program to type ----------------------------------------------------------------------


def _script(folder: Path, python: Path, name: str = "mundus") -> Path:
    """A console script as pip writes it: its first line names the Python that runs it."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!{python}\nimport sys\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A virtual environment's bin folder that runs this process: ``sys.executable`` is its
    python, the installation's scripts folder is it, and it holds the ``mundus`` script."""
    bin_dir = tmp_path / "project" / ".venv" / "bin"
    python = bin_dir / "python"
    script = _script(bin_dir, bin_dir / "python3")  # pip names python3 in the first line
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.setattr(sysconfig, "get_path", lambda *a, **k: str(bin_dir))
    monkeypatch.setattr(sys, "argv", [str(script), "host"])
    return bin_dir


def test_the_program_is_mundus_when_path_finds_this_installations_script(
        venv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(venv))
    assert cli_args.mundus_command() == "mundus"
    assert cli_args.join_command("tcp://127.0.0.1:7700") == "mundus join tcp://127.0.0.1:7700"


def test_the_program_is_the_whole_path_of_the_script_when_path_finds_another_or_none(
        venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _script(tmp_path / "elsewhere", Path("/usr/bin/python3"))  # another mundus on PATH
    monkeypatch.setenv("PATH", str(tmp_path / "elsewhere"))
    monkeypatch.chdir(tmp_path / "project")  # inside the project too: never a relative path
    assert cli_args.mundus_command() == str(venv / "mundus")
    monkeypatch.setenv("PATH", "")
    assert cli_args.mundus_command() == str(venv / "mundus")


def test_under_python_m_the_program_is_the_script_beside_this_python(
        venv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", [str(ROOT / "mundus_net" / "__main__.py"), "join"])
    monkeypatch.setenv("PATH", "")
    assert cli_args.mundus_command() == str(venv / "mundus")


def test_without_a_script_of_this_python_the_program_is_python_m_mundus_net(
        venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", [str(ROOT / "mundus_net" / "__main__.py"), "join"])
    (venv / "mundus").unlink()
    _script(venv, Path("/opt/other-python/bin/python3"))  # another Python's script: not ours
    monkeypatch.setenv("PATH", str(venv))
    monkeypatch.chdir(tmp_path)
    assert shlex.split(cli_args.mundus_command()) == [str(venv / "python"), "-m", "mundus_net"]


def test_the_join_command_has_the_invite_the_name_and_insecure_quoted_for_a_shell(
        venv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(venv))
    assert cli_args.join_command("tcp://192.0.2.7:7700", CODE, name="Bo Li") == \
        f"mundus join tcp://192.0.2.7:7700 --invite {CODE} --name 'Bo Li'"
    assert cli_args.join_command("tcp://192.0.2.7:7700", watch=True, insecure=True) == \
        "mundus watch tcp://192.0.2.7:7700 --insecure"


def test_the_host_tells_a_seated_player_the_invite_code_and_not_a_spectator() -> None:
    table = make_table(FakeClock(), invite=CODE)
    ana = send(table, A, t="hello", name="Ana", role="player", invite=CODE.lower())
    assert ana["invite"] == CODE  # as the host was given it, the console's spelling
    assert send(table, A, t="bye", token=ana["token"])["t"] == "ok"  # Ana leaves ...
    back = send(table, b"conn-a-later", t="hello", name="Ana", role="player",
                token=ana["token"])
    assert back["invite"] == CODE  # a returning player, who gave only the token
    assert "invite" not in send(table, B, t="hello", name="Eve", role="spectator", invite=CODE)
    assert "invite" not in send(make_table(FakeClock()), A, t="hello", name="Bo", role="player")


def test_the_lobby_shows_the_code_the_welcome_tells_or_the_one_this_client_gave(
        venv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(venv))
    address = "tcp://192.0.2.7:7700"
    deck = deck_from_wire([])
    welcome = Welcome(seat=1, token="ab" * 16, game="g", name="Ann's table", players=3,
                      names=("greedy bot 0", "Ann", ""), options={}, deck=deck, pub_port=7701,
                      heartbeat_ms=1000, invite=CODE)
    model = tui_app.TableModel(address=address)
    assert model.join_command() == f"mundus join {address} --name NAME"
    model.on_notice(Joined(welcome, resumed=False), tui_app.Snapshot(None, None))
    assert model.join_command() == f"mundus join {address} --invite {CODE} --name NAME"
    spectator = tui_app.TableModel(address=address, invite="k7qm-p2xd", spectator=True,
                                   insecure=True)
    assert spectator.join_command(watch=True) == \
        f"mundus watch {address} --invite k7qm-p2xd --insecure"


@pytest.mark.network
def test_python_m_mundus_net_runs_from_another_folder(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "mundus_net", "join", "--help"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=WAIT)
    assert run.returncode == 0 and "usage: mundus join" in run.stdout, run.stderr


# -- run as shown, with a real host ---------------------------------------------------------------


def _friend(tmp_path: Path, who: str) -> dict[str, str]:
    """A friend's terminal: a state folder of their own, where the name they played with
    last is saved (a first-time player is asked it once, whatever the command), and a PATH
    without the virtual environment."""
    state = tmp_path / who
    (state / "mundus-net").mkdir(parents=True)
    (state / "mundus-net" / "name.txt").write_text(who + "\n")
    return without_venv(environment(state))


def _run_as_shown(command: str, env: dict[str, str], cwd: Path) -> Term:
    words = shlex.split(command)  # as a shell reads the line
    cwd.mkdir(parents=True, exist_ok=True)
    return Term(words[1:], env, program=words[0], cwd=cwd, cols=80, rows=24)


def _lobby_command(t: Term, label: str) -> str | None:
    """The command after ``label`` in the lobby: on its row, or on the rows below it when it
    did not fit beside the label (rows joined with a space, as they were broken)."""
    lines = t.lines()
    for i, line in enumerate(lines):
        if line.startswith(label):
            rest = line[len(label):].strip()
            if rest:
                return rest
            parts = []
            for row in lines[i + 1:]:
                if not row.strip() or "with:" in row:
                    break
                parts.append(row.strip())
            return " ".join(parts) or None
    return None


def _not_asked(t: Term) -> None:
    out = t.plain()
    assert "Invite code" not in out and "Your name" not in out and "not on PATH" not in out, out
    assert "Traceback" not in out, out


@pytest.mark.network
def test_the_join_commands_of_the_host_the_lobby_and_the_leave_message_work_as_shown(
        tmp_path: Path, host_at: list[Host]) -> None:  # noqa: F811 (the fixture)
    """Three seats, one a host bot: Ann runs the host console's command, Bo the one Ann's
    lobby shows, and after leaving, the one printed then. The host runs as a person starts
    it from the project without activating the virtual environment (``.venv/bin/mundus``)."""
    port = free_ports()
    host_env = without_venv(environment(tmp_path / "host"))
    host_at.append(Host(tmp_path, "--seats", "3", "--bots", "1", "--port", str(port),
                        "--seed", "3", "--invite", CODE, "--name", "Friends",
                        program=[MUNDUS], env=host_env))
    printed = host_at[0].wait_line(r"players join with: (.*)$").group(1).strip()
    assert printed.startswith(str(Path(MUNDUS).absolute())) and f"--invite {CODE}" in printed
    ann = _run_as_shown(printed, _friend(tmp_path, "Ann"), tmp_path / "ann-folder")
    bo = again = None
    try:
        ann.wait(lambda t: CODE in (_lobby_command(t, "Others join with:") or ""),
                 what="the lobby's join command, whole")
        shown = _lobby_command(ann, "Others join with:")
        # The host's command, and the name for the person to fill in (issue 36, item 14).
        assert shown is not None and shown == f"{printed} --name NAME", (shown, printed)
        assert all(len(line) <= 80 for line in ann.lines())
        ann.resize(120, 40)  # wide enough: the command beside its label, the same words
        ann.wait(lambda t: any(line.startswith("Others join with:  " + shown)
                               for line in t.lines()), what="the command beside its label")
        _not_asked(ann)

        bo_env = _friend(tmp_path, "Bo")
        bo = _run_as_shown(shown.replace("--name NAME", "--name Bo"), bo_env,
                           tmp_path / "bo-folder")
        bo.wait(lambda t: re.search(r"Hand \d", t.text()) and "seated" not in t.text(),
                what="Bo at the table, the game started")
        host_at[0].wait_line(r"^Bo took seat 2$")
        _not_asked(bo)
        bo.send("\x04")  # Ctrl-D leaves
        back = bo.wait_raw(r"Come back with:\s+(.+)").group(1).strip()
        assert bo.finish() == 0
        assert f"--invite {CODE}" in back and "--name Bo" in back

        again = _run_as_shown(back, bo_env, tmp_path / "bo-elsewhere")
        again.wait_text("Welcome back: seat 2 is yours again")
        again.wait(lambda t: re.search(r"Hand \d", t.text()), what="Bo's table again")
        _not_asked(again)
    finally:
        for term in (ann, bo, again):
            if term is not None:
                term.close()
