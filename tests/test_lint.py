"""The code stays ruff- and mypy-clean (both pinned in the test extras), tests and
benchmarks included."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import platformdirs
import pytest

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["mundus_net", "client", "host", "protocol"]
CHECKED = [*PACKAGES, "tests", "benchmarks", "examples", "setup.py"]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: install the test extras (pip install -e '.[test]')")
    return found


def installed_layout(into: Path) -> Path:
    """A tree of links laid out as the package installs (client/ as mundus_net/client and so
    on, pyproject.toml's package-dir), beside tests/, benchmarks/ and examples/: mypy reads
    imports from folders and cannot follow the editable install's import hook."""
    package = into / "mundus_net"
    package.mkdir()
    for entry in (ROOT / "mundus_net").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    for name, folder in setuptools["package-dir"].items():
        (into / Path(*name.split("."))).symlink_to(ROOT / folder)
    for name in ("tests", "benchmarks", "examples", "setup.py"):
        (into / name).symlink_to(ROOT / name)
    return into


def test_ruff_is_clean_on_packages_tests_and_benchmarks() -> None:
    run = subprocess.run([_tool("ruff"), "check", *CHECKED], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def mypy_tree() -> Path:
    """The installed layout in a folder of the user's cache that stays the same for this
    checkout, laid anew on every run: mypy's cache (kept beside it, outside the repository)
    then holds across runs, and only what changed is checked again."""
    where = Path(platformdirs.user_cache_dir("mundus-net-tests")) / \
        hashlib.sha256(str(ROOT).encode()).hexdigest()[:16]
    tree = where / "tree"
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    return installed_layout(tree)


def test_mypy_is_clean_on_packages_tests_and_benchmarks() -> None:
    tree = mypy_tree()
    run = subprocess.run([_tool("mypy"), "--config-file", str(ROOT / "pyproject.toml"),
                          "--cache-dir", str(tree.parent / "mypy-cache"),
                          "mundus_net", "tests", "benchmarks", "examples", "setup.py"],
                         cwd=tree, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
