"""Every shell command of the docs works as written after the README's install (issue 36,
item 1), as the docs' Python blocks are run by tests/test_bot_fallback.py.

The commands are the lines of the ``sh`` code blocks and the ``$`` lines of the ``console``
blocks of README.md, docs/*.md and benchmarks/README.md. Each document's commands run in
order in one bash (so that ``P=$(...)`` serves the lines after it), in a folder of their own
that holds the repository's files (``docs/`` copied: a command may write into it), with the
virtual environment's ``bin`` first on PATH, as the README's ``. .venv/bin/activate`` leaves
a terminal. Each must exit 0, or with the status the doc shows after it (``$ echo $?``);
a console command shown with its whole output (no ``...``) must print exactly that.

Three things are not run as written, each for a reason given here:
- the install steps of the README's lines (``python3 -m venv .venv``, ``. .venv/bin/activate``,
  ``pip install``): the environment this test runs in is that install, and
  tests/test_install.py installs the project as ``pip install .`` does;
- ``--games N`` runs 2 games: the same command, in bounded time;
- the lines of SKIPPED, which need a person at a terminal, or a cluster, or rewrite the
  checkout: each with its reason, reviewed, and a line no doc holds any more fails the test.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ("README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")),
        "benchmarks/README.md")
WAIT = 600.0  # a deadline for each document's commands: generous for a loaded machine
GAMES = "2"  # every --games N runs this many

pytestmark = pytest.mark.network  # starts processes (and --network tournaments, on 127.0.0.1)

INSTALL = re.compile(r"^(python3 -m venv \.venv|\. \.venv/bin/activate|(\.venv/bin/)?pip install "
                     r"-q (-e )?(\.|'\.\[test\]'))$")

# (document, command) -> why it is not run. Reviewed: each needs what a test has not.
SKIPPED = {
    ("README.md", "mundus play --bots 3"):
        "a person at a terminal: the full-screen client (tests/test_tui_game.py plays it in "
        "a pseudo-terminal)",
    ("README.md", ".venv/bin/pytest"): "the suite itself (.ci/run runs it)",
    ("docs/replay.md", "mundus replay recs/game-000001.json"):
        "a person at a terminal: the full-screen replay (tests/test_replay.py)",
    ("docs/replay.md", "mundus replay recs/game-000001.json --as 2 --at -1"):
        "a person at a terminal: the full-screen replay (tests/test_replay.py)",
    ("docs/replay.md", "mundus replay table.json --as Ana"):
        "a person at a terminal, and a record of their own table",
    ("docs/replay.md", "pip install '.[plots]'"):
        "an install: the test extras hold matplotlib",
    ("docs/rl.md", "pip install '.[rl]'"): "an install: the test extras hold numpy, "
                                           "gymnasium and pettingzoo",
    ("docs/rl.md", "pip install -e '.[rl]'"): "an install: the test extras hold numpy",
    ("docs/rl.md", "mundus train --games 300 --seed 7001 --jobs 2 --out "
                   "mundus_net/bots/data/learned.json"):
        "rewrites the weights the package ships, and trains for minutes "
        "(tests/test_learned_bot.py trains a tiny run and checks it reproduces)",
    ("docs/replay.md", "mundus replay recs/game-000000.json --review review.json --as 0 --at 112"):
        "a person at a terminal: the full-screen replay (tests/test_review.py runs it in a "
        "pseudo-terminal)",
    ("docs/rl.md", "python examples/train_rl_agent.py"):
        "trains for 3 minutes (tests/test_rl.py trains it briefly)",
    ("docs/tournament.md", "pip install '.[cluster]'"): "an install: the test extras hold "
                                                        "dask[distributed]",
    ("docs/tournament.md", "dask scheduler --host 127.0.0.1 --dashboard-address 127.0.0.1:8787 "
                           "&"):
        "starts a Dask cluster that stays in the background (tests/test_tournament.py runs "
        "one of its own)",
    ("docs/tournament.md", "dask worker tcp://127.0.0.1:8786 --host 127.0.0.1 "
                           "--dashboard-address 127.0.0.1:0 --nthreads 1 --nworkers 2 &"):
        "as the scheduler: a cluster in the background",
    ("docs/tournament.md", "mundus tournament --bots greedy,random,random,random --games 10000 "
                           "--scheduler tcp://127.0.0.1:8786"):
        "needs the cluster above",
    ("docs/tournament.md", "mundus tournament --bots greedy,random,random,random --games 10000 "
                           "--scheduler tcp://10.0.0.5:8786"):
        "a cluster on another computer",
    ("docs/client.md", ".venv/bin/python -m mundus_net.client.i18n_build update"):
        "rewrites the checkout's catalogs (check, below, runs)",
    ("docs/client.md", ".venv/bin/python -m mundus_net.client.i18n_build compile"):
        "rewrites the checkout's catalogs (check, below, runs)",
    ("benchmarks/README.md", 'python -m pytest --durations=60 -q'): "the suite itself",
    ("benchmarks/README.md", 'python -m pytest -m "not network" -q'): "the suite itself",
    ("docs/report.md", "mundus report t1.json t2.json t3.json --overlay --out pictures"):
        "t3.json is a third run the doc names and does not make (t1 and t2 are overlaid above)",
}


def _third_example_position() -> str:
    """docs/notation.md's third example position: the storage step it calls S."""
    text = (ROOT / "docs/notation.md").read_text(encoding="utf-8")
    found: list[str] = re.findall(r"^mn2 .*$", text, re.MULTILINE)
    assert "phase=store" in found[2], found[2]
    return found[2]


# What the docs' words set up for their commands: docs/notation.md names positions in prose
# ("the start of a 3-player game, seed 4 (`mundus rules new --players 3 --seed 4`)", "save
# the new position as Q", "the third example position above (save it as S)").
PRELUDE = {
    "docs/notation.md": f"P=$(mundus rules new --players 3 --seed 4)\n"
                        f"S={shlex.quote(_third_example_position())}\n",
}
# Run after the command named, in its document's shell: the doc's "save it as".
AFTER = {
    ("docs/notation.md", 'mundus rules apply "$P" announce:3 0.offer:458 1.offer:113 '
                         '2.offer:189'):
        'Q=$(mundus rules apply "$P" announce:3 0.offer:458 1.offer:113 2.offer:189 '
        '| python -c \'import json, sys; print(json.load(sys.stdin)["position"])\')\n',
}


@dataclass
class Command:
    doc: str
    line: int  # where it is written (1-based)
    text: str  # as written (continuation lines joined)
    status: int = 0  # the exit status the doc shows
    output: list[str] | None = None  # the whole output the doc shows, if it shows one


def _blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """(language, line of its first line, lines) of every fenced block, indented ones too."""
    found = []
    for m in re.finditer(r"^( *)```(\w*)\n(.*?)^\1```", text, re.DOTALL | re.MULTILINE):
        indent = len(m.group(1))
        lines = [line[indent:] for line in m.group(3).splitlines()]
        found.append((m.group(2), text[:m.start()].count("\n") + 2, lines))
    return found


def doc_commands(doc: str) -> list[Command]:
    text = (ROOT / doc).read_text(encoding="utf-8")
    commands: list[Command] = []
    for language, first, lines in _blocks(text):
        if language in ("sh", "bash", "shell"):
            joined: list[tuple[int, str]] = []
            for i, line in enumerate(lines):
                if joined and joined[-1][1].endswith("\\"):
                    joined[-1] = (joined[-1][0], joined[-1][1][:-1] + " " + line.strip())
                else:
                    joined.append((first + i, line))
            for number, line in joined:
                command = re.sub(r"\s+#.*$", "", line).strip()
                if command and not command.startswith("#"):
                    commands.append(Command(doc, number, " ".join(command.split())))
        elif language == "console":
            i = 0
            while i < len(lines):
                if not lines[i].startswith("$ "):
                    i += 1
                    continue
                command = lines[i][2:].strip()
                j = i + 1
                while j < len(lines) and not lines[j].startswith("$ "):
                    j += 1
                shown = lines[i + 1:j]
                if command == "echo $?":
                    commands[-1].status = int(shown[0])
                else:
                    whole = bool(shown) and not any("..." in s for s in shown)
                    commands.append(Command(doc, first + i, command,
                                            output=shown if whole else None))
                i = j
    return commands


def _runnable(command: Command) -> str | None:
    """The command as this test runs it (None: skipped): the README's install steps dropped
    (this environment is that install), --games N made 2."""
    if (command.doc, command.text) in SKIPPED:
        return None
    parts = [p for p in command.text.split(" && ") if not INSTALL.match(p.strip())]
    if not parts:
        return None
    run = " && ".join(parts)
    if (command.doc, run) in SKIPPED:
        return None
    return re.sub(r"--games \d+", f"--games {GAMES}", run)


ALL = {doc: doc_commands(doc) for doc in DOCS}


def test_every_skipped_line_is_still_in_the_docs() -> None:
    """The list stays exact: a line no doc holds any more leaves it."""
    written = {(c.doc, part.strip()) for cs in ALL.values() for c in cs
               for part in [c.text, *c.text.split(" && ")]}
    assert not set(SKIPPED) - written, set(SKIPPED) - written


def test_the_readme_says_how_a_new_terminal_gets_mundus() -> None:
    """`mundus ...` in the docs works in the README's terminal (activated by its install
    line) and in a new one, which the README tells how to activate."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert ". .venv/bin/activate && pip install -q . && mundus play --bots 3" in readme
    assert "In a new terminal" in readme and "`. .venv/bin/activate`" in readme
    bare = [c for cs in ALL.values() for c in cs if c.text.startswith("mundus")]
    assert len(bare) > 20  # the docs do write `mundus ...`


def _workdir(tmp_path: Path) -> Path:
    """A folder holding the repository's files (linked; docs/ copied, since `mundus report
    ... --out docs/img` writes there) and docs/bots.md's first bot saved as mybots.py, as
    that doc says to."""
    work = tmp_path / "work"
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name in (".git", "docs") or entry.name.startswith(".pytest"):
            continue
        (work / entry.name).symlink_to(entry)
    shutil.copytree(ROOT / "docs", work / "docs")
    bots = (ROOT / "docs/bots.md").read_text(encoding="utf-8")
    first = re.search(r"```python\n(.*?)```", bots, re.DOTALL)
    assert first is not None and "class MyBot" in first.group(1)
    (work / "mybots.py").write_text(first.group(1), encoding="utf-8")
    return work


def _environment() -> dict[str, str]:
    """As `. .venv/bin/activate` leaves a terminal: the environment's bin first on PATH."""
    scripts = str(Path(sys.executable).parent)
    env = dict(os.environ)
    env.update(PATH=scripts + os.pathsep + env.get("PATH", os.defpath),
               VIRTUAL_ENV=str(Path(sys.executable).parent.parent), LANG="C.UTF-8",
               LC_ALL="C.UTF-8", COLUMNS="80", PYTHONUNBUFFERED="1")
    assert shutil.which("mundus", path=env["PATH"]) is not None
    return env


@pytest.mark.timeout(WAIT + 60)
@pytest.mark.parametrize("doc", [d for d in DOCS if any(_runnable(c) for c in ALL[d])])
def test_every_shell_command_of_the_doc_works_as_written(doc: str, tmp_path: Path) -> None:
    commands = [c for c in ALL[doc] if _runnable(c) is not None]
    script = ["set +e", PRELUDE.get(doc, "")]
    for i, c in enumerate(commands):
        script += [f"echo '@@@ begin {i}'", f"{_runnable(c)} 2>&1", f"echo \"@@@ end {i} $?\"",
                   AFTER.get((doc, c.text), "")]
    run = subprocess.run(["bash", "-c", "\n".join(script)], cwd=_workdir(tmp_path),
                         env=_environment(), capture_output=True, text=True, timeout=WAIT,
                         stdin=subprocess.DEVNULL, check=False)
    out = run.stdout
    for i, c in enumerate(commands):
        m = re.search(rf"^@@@ begin {i}\n(.*?)^@@@ end {i} (\d+)$", out, re.DOTALL | re.M)
        assert m is not None, f"{doc}:{c.line}: `{c.text}` did not finish:\n{out[-3000:]}"
        said, status = m.group(1), int(m.group(2))
        where = f"{doc}:{c.line}: `{c.text}` exited {status}, the doc says {c.status}"
        assert status == c.status, f"{where}\n{said[-3000:]}"
        if c.output is not None:
            assert said.splitlines() == c.output, f"{doc}:{c.line}: `{c.text}` printed\n{said}"
