"""The layers of docs/architecture.md, enforced: which package may import which.

Every import statement of every module (those inside functions too) is read with ``ast``;
relative imports are resolved, and ``from package import module`` counts as importing the
module. A layer may import itself, the layers listed for it, and the standard library plus
the third-party packages listed for it.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Layer:
    name: str
    prefixes: tuple[str, ...]
    may_use: frozenset[str]
    third_party: frozenset[str] = frozenset()


# Any layer may import these: mypy_extensions' mypyc_attr tells the compiled build how to treat
# a class, and does nothing in plain Python (docs/architecture.md, "The compiled build").
EVERY_LAYER = ("mypy_extensions",)

# Order matters: the first layer whose prefix matches a module is its layer.
LAYERS = [
    Layer("cli", ("mundus_net.cli", "mundus_net.__main__"), frozenset({"facade"})),
    Layer("cli_args", ("mundus_net.cli_args",), frozenset()),
    Layer("engine", ("mundus_net.engine",), frozenset()),
    Layer("facade", ("mundus_net",), frozenset({"engine"})),
    # The languages: catalogs and the choice of one, read by the client and the host's console.
    Layer("i18n", ("mundus_net.i18n",), frozenset({"engine"})),
    Layer("bots", ("mundus_net.bots",), frozenset({"engine"})),
    Layer("rl", ("mundus_net.rl",), frozenset({"engine", "bots"}),
          frozenset({"numpy", "gymnasium", "pettingzoo"})),
    Layer("protocol", ("mundus_net.protocol",), frozenset({"engine"}),
          frozenset({"msgpack", "zmq", "platformdirs"})),
    Layer("host", ("mundus_net.host",),
          frozenset({"engine", "facade", "bots", "protocol", "cli_args", "i18n"}),
          frozenset({"msgpack", "zmq", "cryptography"})),
    Layer("tui", ("mundus_net.client.tui",),
          frozenset({"engine", "facade", "bots", "protocol", "cli_args", "i18n", "client"}),
          frozenset({"prompt_toolkit", "zmq"})),
    # Making the language catalogs (a development tool): Babel, which the game never loads.
    Layer("i18n_build", ("mundus_net.client.i18n_build",),
          frozenset({"engine", "facade", "bots", "protocol", "cli_args", "i18n", "client"}),
          frozenset({"babel"})),
    Layer("client", ("mundus_net.client",),
          frozenset({"engine", "facade", "bots", "protocol", "cli_args", "i18n"}),
          frozenset({"msgpack", "zmq", "filelock"})),
    Layer("tools", ("mundus_net.tools",),
          frozenset({"engine", "facade", "bots", "protocol", "cli_args", "i18n", "host",
                     "client", "tui", "rl"}),
          frozenset({"cryptography", "openskill", "dask", "distributed", "matplotlib",
                     "tqdm"})),
]
_PREFIX_ORDER = sorted(((p, layer) for layer in LAYERS for p in layer.prefixes),
                       key=lambda item: -len(item[0]))


def layer_of(module: str) -> Layer:
    for prefix, layer in _PREFIX_ORDER:
        if module == prefix or module.startswith(prefix + "."):
            return layer
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS and "
                         "docs/architecture.md")


def package_dirs() -> dict[str, Path]:
    """Import name -> folder, from pyproject.toml's setuptools settings."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    mapped = config.get("package-dir", {})
    dirs = {}
    for package in config["packages"]:
        parts = package.split(".")
        for i in range(len(parts), 0, -1):
            head = ".".join(parts[:i])
            if head in mapped:
                dirs[package] = ROOT / mapped[head] / Path(*parts[i:])
                break
        else:
            dirs[package] = ROOT / Path(*parts)
    return dirs


def modules() -> dict[str, Path]:
    """Every module of the installed package, by import name."""
    found = {}
    for package, folder in package_dirs().items():
        for path in sorted(folder.glob("*.py")):
            name = package if path.stem == "__init__" else f"{package}.{path.stem}"
            found[name] = path
    return found


MODULES = modules()


def imports_of(module: str, path: Path) -> set[str]:
    """The modules (or packages) that ``module`` imports, relative imports resolved."""
    tree = ast.parse(path.read_text("utf-8"))
    package = module if path.stem == "__init__" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names
                         if f"{source}.{alias.name}" in MODULES)
    return found


def test_every_folder_of_the_repository_installs_under_mundus_net() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert all(p == "mundus_net" or p.startswith("mundus_net.") for p in config["packages"])
    on_disk = {p.parent for p in ROOT.glob("*/**/__init__.py")
               if p.parts[len(ROOT.parts)] in ("mundus_net", "client", "host", "protocol")}
    assert on_disk == set(package_dirs().values()), "a package folder is not installed"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_follow_the_layers(module: str) -> None:
    layer = layer_of(module)
    stdlib = sys.stdlib_module_names
    wrong = []
    for imported in sorted(imports_of(module, MODULES[module])):
        top = imported.split(".")[0]
        if top == "mundus_net":
            if imported == "mundus_net":
                target = layer_of("mundus_net")
            else:
                known = [m for m in MODULES if imported == m or imported.startswith(m + ".")]
                target = layer_of(max(known, key=len) if known else imported)
            if target is not layer and target.name not in layer.may_use:
                wrong.append(f"{imported} (layer {target.name})")
        elif (top not in stdlib and top not in ("__future__", *EVERY_LAYER)
              and top not in layer.third_party):
            wrong.append(f"{imported} (third-party)")
    assert not wrong, (f"{module} (layer {layer.name}) may not import: {', '.join(wrong)}; "
                       "see docs/architecture.md")


def test_the_languages_know_only_the_engine() -> None:
    """mundus_net.i18n is the floor the client and the host's console share: it may not
    reach into either, nor into the wire (the protocol stays language-neutral)."""
    assert layer_of("mundus_net.i18n").may_use == frozenset({"engine"})
    assert "i18n" not in layer_of("mundus_net.protocol").may_use


def test_host_and_client_never_import_each_other() -> None:
    host = layer_of("mundus_net.host")
    client, tui = layer_of("mundus_net.client"), layer_of("mundus_net.client.tui")
    assert "host" not in client.may_use | tui.may_use
    assert not {"client", "tui"} & host.may_use


# -- the floors of the tools ---------------------------------------------------------------------

# Inside mundus_net.tools (docs/architecture.md, "The tools' floors"): a module imports only
# tools modules on lower floors, so the tools have no import circle and the commands sit on
# top of what plays and counts games. A new tools module gets a floor here.
TOOL_FLOORS = {
    "referee": 0,  # one game refereed in-process: faults charged, one answer (Refereed)
    "progress": 0,
    "results": 1,  # counting rows (tally), file errors, bot-list checks
    "runner": 1,
    "games": 2,  # settings, seating, playing one game, its row
    "standings": 3,  # ratings, head-to-head, the summary
    "report_data": 4,  # reading results into numbers (no drawing)
    "tournament_network": 4,  # one game through host and bot processes
    # the commands
    "tournament": 5, "sim": 5, "report": 5, "review": 5, "verify": 5, "play": 5, "rules_cli": 5,
    "train": 6,  # plays its games through the tournament's runner
}
TOOLS = sorted(m for m in MODULES if m.startswith("mundus_net.tools.")
               and m != "mundus_net.tools")


def test_every_tools_module_has_a_floor() -> None:
    assert {m.rpartition(".")[2] for m in TOOLS} == set(TOOL_FLOORS)


@pytest.mark.parametrize("module", TOOLS)
def test_tools_import_only_from_lower_floors(module: str) -> None:
    floor = TOOL_FLOORS[module.rpartition(".")[2]]
    upward = sorted(
        imported for imported in imports_of(module, MODULES[module])
        if imported.startswith("mundus_net.tools.") and imported != module
        and TOOL_FLOORS[imported.split(".")[2]] >= floor)
    assert not upward, f"{module} (floor {floor}) imports from its floor or above: {upward}"


def test_reading_results_draws_nothing() -> None:
    """The report's reading half needs no matplotlib: drawing is tools/report.py's job."""
    module = "mundus_net.tools.report_data"
    assert not {i for i in imports_of(module, MODULES[module]) if i.startswith("matplotlib")}


def test_the_root_exception_imports_nothing_of_mundus_net() -> None:
    """``MundusError`` (docs/architecture.md, "The exceptions") sits at the bottom of the
    engine, the lowest layer: every layer derives its exceptions from it, so it imports no
    other module of the package."""
    module = "mundus_net.engine.errors"
    assert module in MODULES
    assert not {m for m in imports_of(module, MODULES[module]) if m.startswith("mundus_net")}


# -- the host's modules --------------------------------------------------------------------------

HOST_MODULES = sorted(m for m in MODULES if m.startswith("mundus_net.host."))


def test_host_modules_import_no_circle() -> None:
    """host/'s modules import each other without a circle (imports inside functions and under
    TYPE_CHECKING count): the table knows nothing of the game log that replays it; the rows
    both write are host/logrows.py's (docs/architecture.md, "The host's modules")."""
    graph = {m: {i for i in imports_of(m, MODULES[m]) if i in HOST_MODULES and i != m}
             for m in HOST_MODULES}
    done: set[str] = set()

    def walk(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import circle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for imported in sorted(graph[module]):
            walk(imported, (*path, module))
        done.add(module)

    for module in HOST_MODULES:
        walk(module, ())


def test_the_table_does_not_import_the_game_log() -> None:
    assert "mundus_net.host.gamelog" not in imports_of("mundus_net.host.table",
                                                       MODULES["mundus_net.host.table"])


def test_the_outputs_do_not_import_the_table() -> None:
    """host/updates.py reads its table through a Protocol (TableSource): the table imports it,
    never the other way (docs/architecture.md, "The host's modules")."""
    module = "mundus_net.host.updates"
    assert module in MODULES
    assert not {i for i in imports_of(module, MODULES[module]) if i.startswith("mundus_net.host.")
                and i not in ("mundus_net.host.offerstep",)}


def test_commit_reveal_does_not_import_the_table() -> None:
    """Commit-reveal gets what it needs of its table as an ``OfferWiring``
    (docs/architecture.md, "The host's modules"): neither it nor the offer step imports it."""
    for module in ("mundus_net.host.commitreveal", "mundus_net.host.offerstep"):
        assert module in MODULES
        assert "mundus_net.host.table" not in imports_of(module, MODULES[module]), module


def test_replay_names_no_private_member_of_anything() -> None:
    """host/replay.py takes logged inputs through the table's public replay interface only:
    no ``_name`` read on the table, its seats or anything else (its own functions aside)."""
    module = "mundus_net.host.replay"
    assert module in MODULES
    tree = ast.parse(MODULES[module].read_text("utf-8"))
    reached = sorted({node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                      and node.attr.startswith("_") and not node.attr.startswith("__")})
    assert not reached, f"host/replay.py reaches private members: {reached}"
