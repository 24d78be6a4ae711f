"""The compiled build (docs/architecture.md, "The compiled build"): when setup.py compiles,
and that a compiled module never runs in place of a source edited after it was built.

The compiled build itself is tested by .ci/run, which builds it and runs the engine, bot,
environment, protocol and fingerprint tests against it with MUNDUS_EXPECT_COMPILED=1.
"""

from __future__ import annotations

import importlib.util
import json
import os
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import pytest

from mundus_net import compiled
from mundus_net.compiled import MODULES, RECORD, StaleBuild, check, compiled_modules, digest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def setup_py(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """setup.py as a module (it calls setup() only when run as setuptools runs it)."""
    monkeypatch.delenv("MUNDUS_COMPILE", raising=False)
    spec = importlib.util.spec_from_file_location("mundus_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_this_installation_runs_the_build_the_tests_expect() -> None:
    """The README's test command installs editable, which stays plain Python; .ci/run's
    compiled build sets MUNDUS_EXPECT_COMPILED=1 and must run every module compiled."""
    expected = list(MODULES) if os.environ.get("MUNDUS_EXPECT_COMPILED") == "1" else []
    assert compiled_modules() == expected


def test_an_editable_install_never_compiles(setup_py: ModuleType,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MUNDUS_COMPILE", "1")
    assert setup_py.extensions(["editable_wheel", "--dist-info-dir", "x"]) == []
    assert setup_py.extensions(["develop"]) == []


def test_metadata_commands_never_compile(setup_py: ModuleType) -> None:
    assert setup_py.extensions(["egg_info"]) == []
    assert setup_py.extensions(["dist_info", "--output-dir", "x"]) == []


def test_mundus_compile_0_never_compiles(setup_py: ModuleType,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MUNDUS_COMPILE", "0")
    assert setup_py.extensions(["bdist_wheel"]) == []


def test_mundus_compile_takes_0_or_1_only(setup_py: ModuleType,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MUNDUS_COMPILE", "yes")
    with pytest.raises(SystemExit, match="MUNDUS_COMPILE must be 0 or 1"):
        setup_py.extensions(["bdist_wheel"])


def test_without_a_compiler_the_wheel_is_plain_python_with_a_notice(
        setup_py: ModuleType, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(setup_py, "missing_tools", lambda: "no C compiler (cc)")
    assert setup_py.extensions(["bdist_wheel"]) == []
    assert capsys.readouterr().err == (
        "mundus-net: plain Python: no C compiler (cc) (the same program, slower)\n")


def test_without_a_compiler_a_forced_build_fails(setup_py: ModuleType,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MUNDUS_COMPILE", "1")
    monkeypatch.setattr(setup_py, "missing_tools", lambda: "no C compiler (cc)")
    with pytest.raises(SystemExit, match="MUNDUS_COMPILE=1 but no C compiler"):
        setup_py.extensions(["bdist_wheel"])


def test_the_module_list_names_existing_sources() -> None:
    for module in MODULES:
        assert compiled.source(module).is_file(), module


# -- a stale compiled module --------------------------------------------------------------


def _package(tmp_path: Path, record: dict[str, str] | None) -> tuple[Path, Path]:
    """A package holding one compiled module beside its source, and the build's record."""
    package = tmp_path / "mundus_net"
    source = package / "engine" / "game.py"
    source.parent.mkdir(parents=True)
    source.write_text("X = 1\n")
    built = source.with_suffix(EXTENSION_SUFFIXES[0])
    built.write_bytes(b"not loaded by this test")
    if record is not None:
        (package / RECORD).write_text(json.dumps(record))
    return source, built


def test_a_compiled_module_built_from_the_source_beside_it_loads(tmp_path: Path) -> None:
    source, _ = _package(tmp_path, {})
    (source.parents[1] / RECORD).write_text(json.dumps({"mundus_net.engine.game":
                                                        digest(source)}))
    check(source.parents[1])


def test_a_compiled_module_beside_an_edited_source_is_refused(tmp_path: Path) -> None:
    source, built = _package(tmp_path, {})
    (source.parents[1] / RECORD).write_text(json.dumps({"mundus_net.engine.game":
                                                        digest(source)}))
    source.write_text("X = 2\n")
    with pytest.raises(StaleBuild, match=f"{built.name} was not compiled from the game.py"):
        check(source.parents[1])


def test_a_compiled_module_the_build_did_not_record_is_refused(tmp_path: Path) -> None:
    """A .so left by another build (python setup.py build_ext --inplace, a copy): no record."""
    source, _ = _package(tmp_path, None)
    with pytest.raises(StaleBuild, match="reinstall"):
        check(source.parents[1])


def test_a_plain_package_needs_no_record(tmp_path: Path) -> None:
    source, built = _package(tmp_path, None)
    built.unlink()
    check(source.parents[1])
