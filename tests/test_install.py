"""A regular (non-editable) install, used the way a newcomer uses it.

The wheel installs one top-level import name, ``mundus_net``; and run from a folder that holds
a ``client`` package, a ``host.py``, a ``protocol.py`` and a ``mundus_net.py`` of someone
else's, ``mundus play`` still starts its table, plays a whole game and writes its record, and
``mundus verify`` checks it. The editable install the other tests use could hide both failures.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tui_term import WAIT, Term, answer, environment, phase, stop_tables

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parent.parent
SHADOWS = {
    "client/__init__.py": "raise ImportError('the folder client/ was imported')\n",
    "host.py": "raise ImportError('the file host.py was imported')\n",
    "protocol.py": "raise ImportError('the file protocol.py was imported')\n",
    "mundus_net.py": "raise ImportError('the file mundus_net.py was imported')\n",
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project installed (no dependencies: those of the test venv serve) into a folder of
    its own, as ``pip install .`` would lay it out."""
    target = tmp_path_factory.mktemp("site")
    # A copy of what a source distribution holds, so the build leaves the checkout alone.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for folder in ("mundus_net", "client", "host", "protocol"):
        shutil.copytree(ROOT / folder, source / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    run = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-compile", "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=240, cwd=source,
        # The plain build: .ci/run tests the compiled one (docs/architecture.md).
        env={**os.environ, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
             "MUNDUS_COMPILE": "0"})
    assert run.returncode == 0, run.stdout + run.stderr
    return target


def test_the_wheel_installs_one_top_level_name(installed: Path) -> None:
    packages = {p.name for p in installed.iterdir()
                if p.is_dir() and not p.name.endswith(".dist-info") and p.name != "bin"}
    modules = {p.name for p in installed.glob("*.py")}
    assert packages == {"mundus_net"} and modules == set()
    for layer in ("engine", "bots", "tools", "protocol", "host", "client", "client/tui"):
        assert (installed / "mundus_net" / layer / "__init__.py").is_file(), layer
    for deck in ("default.deck", "first-edition.deck"):  # the first for old records
        assert (installed / "mundus_net" / "engine" / "data" / deck).is_file()


def test_play_and_verify_from_a_folder_that_shadows_every_name(installed: Path,
                                                                tmp_path: Path) -> None:
    folder = tmp_path / "somewhere"
    for name, text in SHADOWS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    record = folder / "game.json"
    env = environment(tmp_path / "state", PYTHONPATH=str(installed))
    mundus = str(installed / "bin" / "mundus")
    stop = stop_tables(tmp_path / "state")
    t = Term(["play", "--bot-pace", "0", "--bots", "1", "--seed", "5", "--round-limit", "1",
              "--name", "Ana", "--record", str(record)], env, cwd=folder, program=mundus)
    try:
        while (now := t.wait(lambda t: "over" if "Game over after" in t.text() else phase(t),
                             what="a question or the end")) != "over":
            # The first choice of every question, and "end" in the progression turn.
            answer(t, "end" if now == "turn" else "1")
        t.send("\x04")  # Ctrl-D: leave; the table writes its record and ends
        assert t.finish() == 0
        deadline = time.monotonic() + WAIT  # the table writes the record as it closes
        while not record.exists():
            assert time.monotonic() < deadline, "the table wrote no record"
            time.sleep(0.05)
    finally:
        t.close()
        stop()
    run = subprocess.run([mundus, "verify", str(record)], capture_output=True, text=True,
                         timeout=120, cwd=folder, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "imported" not in run.stdout + run.stderr


def test_the_wheel_ships_the_language_catalogs_read_without_babel(installed: Path,
                                                                   tmp_path: Path) -> None:
    """The five compiled catalogs are package data; the installed program reads them with the
    standard library (Babel, a test dependency, is kept out of the run)."""
    locale = installed / "mundus_net" / "i18n" / "locale"
    shipped = sorted(p.parent.parent.name for p in locale.glob("*/LC_MESSAGES/mundus.mo"))
    assert shipped == ["en", "it", "ko", "nl", "ru"]
    script = ("import sys; sys.modules['babel'] = None\n"  # any import of babel fails
              "from mundus_net.i18n import LOCALE_DIR, translator\n"
              "print(LOCALE_DIR)\n"
              "print(translator('ko').event('ST'), translator('ru').doubloons(3), "
              "translator('it').resource(2))\n")
    run = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path, env={**os.environ,
                                                        "PYTHONPATH": str(installed)})
    assert run.returncode == 0, run.stderr
    where, names = run.stdout.splitlines()
    assert Path(where) == locale
    assert names == "폭풍 3 дублона granturco"
