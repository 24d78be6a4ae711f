"""The packages stay ruff- and mypy-clean (both are in the test extras)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["mundus_net", "client", "host", "protocol"]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: install the test extras (pip install -e '.[test]')")
    return found


def test_ruff_is_clean_on_packages_tests_and_benchmarks() -> None:
    run = subprocess.run([_tool("ruff"), "check", *PACKAGES, "tests", "benchmarks", "examples"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_is_clean_on_packages() -> None:
    run = subprocess.run([_tool("mypy"), *PACKAGES], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
