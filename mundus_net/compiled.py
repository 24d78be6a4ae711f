"""The compiled build: which modules mypyc compiles, and which of them this installation runs
compiled (docs/architecture.md, "The compiled build").

``MODULES`` is the one list of compiled modules: ``setup.py`` reads it to compile them when
``pip install .`` finds a C compiler, ``mundus --version`` names those that run compiled, and
:func:`check` refuses a compiled module built from another source than the one beside it. A
module added here must follow the rules for code in compiled modules (docs/architecture.md).

Standard library only, and never compiled itself: ``setup.py`` runs it before anything is
built, and ``mundus_net/__init__.py`` imports it before any compiled module, which runs
:func:`check`.
"""

from __future__ import annotations

import hashlib
import json
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Final

__all__ = [
    "MODULES", "RECORD", "StaleBuild", "check", "compiled_modules", "describe", "digest", "source",
]

# Left plain: engine.decisions (its kinds are NamedTuples, Python classes even when compiled,
# sharing an __eq__ and a __hash__ that a compiled function could not be: it does not bind as
# a method); bots.base (a runtime_checkable Protocol); bots.learned (it compiles, but its own
# code is little of a decision: 0.16 ms plain, 0.14 compiled); bots.sdk (a base for bots of
# your own) and bots.review (not tried); the notation and records (not on a game's path),
# rl.aec and rl.single (PettingZoo's and Gymnasium's classes), and everything of the network
# and the terminal (docs/architecture.md, "The compiled build", has the reasons and figures).
MODULES: Final[tuple[str, ...]] = (
    "mundus_net.bots.greedy",
    "mundus_net.bots.random_bot",
    "mundus_net.bots.search",
    "mundus_net.engine.cards",
    "mundus_net.engine.combos",
    "mundus_net.engine.deck",
    "mundus_net.engine.defaults",
    "mundus_net.engine.determinize",
    "mundus_net.engine.errors",
    "mundus_net.engine.game",
    "mundus_net.engine.seeds",
    "mundus_net.engine.view",
    "mundus_net.rl.actions",
    "mundus_net.rl.observation",
    "mundus_net.rl.table",
)

# The build writes it beside this file: each compiled module's name and its source's SHA-256.
RECORD: Final = "compiled.json"

# The repository's folders that install under another name (pyproject.toml's package-dir).
_CHECKOUT_FOLDERS: Final = {"mundus_net.client": "client", "mundus_net.host": "host",
                            "mundus_net.protocol": "protocol"}
_PACKAGE: Final = Path(__file__).resolve().parent


class StaleBuild(ImportError):
    """A compiled module whose source is not the one it was built from."""


def source(module: str, package: Path = _PACKAGE) -> Path:
    """The source file of ``module`` (one of MODULES), installed or in a checkout."""
    parts = module.split(".")
    path = package.joinpath(*parts[1:]).with_suffix(".py")
    if path.exists():
        return path
    for prefix, folder in _CHECKOUT_FOLDERS.items():
        if module.startswith(prefix + "."):
            return package.parent.joinpath(folder, *parts[2:]).with_suffix(".py")
    return path


def digest(path: Path) -> str:
    """The SHA-256 of a source file, as the build records it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _extension(path: Path) -> Path | None:
    """The compiled module beside a source file, if there is one."""
    for suffix in EXTENSION_SUFFIXES:
        built = path.with_suffix(suffix)
        if built.exists():
            return built
    return None


def compiled_modules() -> list[str]:
    """The modules of MODULES that this installation runs compiled."""
    return [m for m in MODULES if _extension(source(m)) is not None]


def check(package: Path = _PACKAGE) -> None:
    """Raise StaleBuild when a compiled module of MODULES sits beside a source that is not the
    one the build recorded (edited since, or a build that left no record): Python would load
    the compiled module and silently run the old code."""
    record: dict[str, str] | None = None
    for module in MODULES:
        path = source(module, package)
        built = _extension(path)
        if built is None or not path.exists():
            continue
        if record is None:
            try:
                record = json.loads((package / RECORD).read_text())
            except (OSError, ValueError):
                record = {}
        if record.get(module) != digest(path):
            raise StaleBuild(
                f"{built} was not compiled from the {path.name} beside it (edited since the "
                f"build?): reinstall (pip install .), or delete {built.name} to run the "
                "source", name=module, path=str(built))


def describe() -> str:
    """Which build runs, in one line: plain Python, or which modules run compiled."""
    done = compiled_modules()
    if not done:
        return "plain Python"
    names = " ".join(m.removeprefix("mundus_net.") for m in done)
    return f"compiled by mypyc ({len(done)} of {len(MODULES)} modules: {names})"


# Importing mundus_net imports this module first: no compiled module is loaded before this.
check()
