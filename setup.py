"""Builds mundus-net: plain Python, or with the modules of mundus_net/compiled.py compiled by
mypyc (docs/architecture.md, "The compiled build"). Everything else is in pyproject.toml.

``pip install .`` compiles when mypyc, a C compiler and Python's headers are there, and builds
the plain-Python package otherwise, with a one-line notice (``pip install -v .`` shows it;
``mundus --version`` says which build runs). ``MUNDUS_COMPILE=1`` compiles or fails,
``MUNDUS_COMPILE=0`` never compiles. An editable install (``pip install -e .``) never compiles:
a compiled module in the checkout would run instead of the source being edited.
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
COMPILED = runpy.run_path(str(ROOT / "mundus_net" / "compiled.py"))
MODULES: tuple[str, ...] = COMPILED["MODULES"]
# The commands that build the wheel's contents; metadata and editable installs are not among
# them (pip runs this file for those too).
BUILDS = {"bdist_wheel", "build", "build_ext", "install"}
EDITABLE = {"editable_wheel", "develop"}
STAGE = ROOT / "build" / "mypyc-src"


def notice(text: str) -> None:
    print(f"mundus-net: {text}", file=sys.stderr, flush=True)


def wanted() -> bool | None:
    """True: compile or fail; False: never; None: compile if the tools are there."""
    value = os.environ.get("MUNDUS_COMPILE", "").strip()
    if value not in ("", "0", "1"):
        sys.exit(f"mundus-net: MUNDUS_COMPILE must be 0 or 1, not {value!r}")
    return None if value == "" else value == "1"


def missing_tools() -> str | None:
    """What the compiled build lacks here (mypyc, the headers, a C compiler), or None."""
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "no mypyc (mypy is a build requirement)"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Python.h)"
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler
    compiler: Any = new_compiler()
    customize_compiler(compiler)
    command = getattr(compiler, "compiler_so", None) or ["cl.exe"]
    if shutil.which(command[0]) is None:
        return f"no C compiler ({command[0]})"
    return None


def stage() -> list[str]:
    """The whole package copied as it installs (client/, host/ and protocol/ inside
    mundus_net/), so that mypyc names every module as it is imported; the paths of MODULES."""
    shutil.rmtree(STAGE, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "data", "locale")
    shutil.copytree(ROOT / "mundus_net", STAGE / "mundus_net", ignore=ignore)
    for folder in ("client", "host", "protocol"):
        shutil.copytree(ROOT / folder, STAGE / "mundus_net" / folder, ignore=ignore)
    return [str(COMPILED["source"](m, STAGE / "mundus_net").relative_to(ROOT)) for m in MODULES]


def extensions(argv: list[str]) -> list[Extension]:
    """mypyc's extensions when this run (``argv``: setup.py's commands) builds and compiling
    is wanted and possible."""
    force = wanted()
    commands = set(argv)
    if commands & EDITABLE:
        notice("an editable install stays plain Python (pip install . compiles)")
        return []
    if force is False or not commands & BUILDS:
        return []
    lacking = missing_tools()
    if lacking is not None:
        if force:
            sys.exit(f"mundus-net: MUNDUS_COMPILE=1 but {lacking}")
        notice(f"plain Python: {lacking} (the same program, slower)")
        return []
    from mypyc.build import mypycify
    paths = stage()
    try:
        # One shared library for them all, inside the package: mundus_net/_core__mypyc.*.so
        # The build's own environment has no numpy nor gymnasium (the rl extra): typed Any.
        return list(mypycify([*paths, "--ignore-missing-imports"], opt_level="3",
                             group_name="mundus_net._core",
                             target_dir=str(ROOT / "build" / "mypyc")))
    except SystemExit:  # mypyc refused the code (its errors are printed above)
        if force:
            raise
        notice("plain Python: mypyc refused the code (the same program, slower)")
        return []


class BuildExt(build_ext):
    """Builds the compiled modules, then records their sources' hashes; when the C compiler
    fails and compiling was not forced, leaves the package plain Python instead."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # the compiler's or the linker's failure
            if wanted():
                raise
            notice(f"plain Python: compiling failed ({exc})")
            self._remove_built()
            return
        record = {m: COMPILED["digest"](COMPILED["source"](m, STAGE / "mundus_net"))
                  for m in MODULES}
        path = Path(self.build_lib) / "mundus_net" / COMPILED["RECORD"]
        path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")

    def _remove_built(self) -> None:
        for ext in self.extensions:
            Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)


def clean_build() -> None:
    """pip builds in the checkout's build/: what an earlier build left there (a module the
    list no longer names, compiled modules before a plain build) must not reach this wheel."""
    for lib in (ROOT / "build").glob("lib*"):
        shutil.rmtree(lib)


if __name__ == "__main__":  # as setuptools runs it (tests import the functions above)
    if set(sys.argv[1:]) & BUILDS:
        clean_build()
    setup(ext_modules=extensions(sys.argv[1:]), cmdclass={"build_ext": BuildExt})
