"""One root exception: every exception class mundus_net defines for its callers derives from
MundusError (docs/architecture.md, "The exceptions"), so a caller can catch one thing."""

from __future__ import annotations

import importlib
import inspect

import pytest
from test_layers import MODULES

import mundus_net
from mundus_net.engine.decisions import RuleError
from mundus_net.engine.errors import MundusError
from mundus_net.engine.notation import NotationError, parse_position

# Not MundusErrors on purpose. LogFailure must get past ``except Exception`` and stop the host;
# StaleBuild is raised while mundus_net is imported, before the engine that defines MundusError
# may be loaded (an ImportError: docs/architecture.md, "The compiled build").
NOT_ROOTED = {"mundus_net.host.gamelog.LogFailure", "mundus_net.compiled.StaleBuild"}


def _public_exceptions() -> list[str]:
    found = []
    for name in sorted(MODULES):
        if name.endswith("__main__"):  # importing it runs the program
            continue
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional dependency (rl, plots) that is not installed
            continue
        for attr, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__ == name and not attr.startswith("_")):
                found.append(f"{name}.{attr}")
    return found


PUBLIC_EXCEPTIONS = _public_exceptions()


def test_the_package_defines_its_exceptions_and_finds_them() -> None:
    assert len(PUBLIC_EXCEPTIONS) >= 20
    assert "mundus_net.protocol.errors.ProtocolError" in PUBLIC_EXCEPTIONS


@pytest.mark.parametrize("qualified", PUBLIC_EXCEPTIONS)
def test_every_public_exception_derives_from_mundus_error(qualified: str) -> None:
    module, _, attr = qualified.rpartition(".")
    cls = getattr(importlib.import_module(module), attr)
    assert issubclass(cls, MundusError) != (qualified in NOT_ROOTED), qualified


def test_one_except_clause_catches_a_refused_decision_and_a_bad_position() -> None:
    """R7: a refused decision is a RuleError; a malformed position a NotationError (still a
    ValueError, as it always was); both are MundusErrors, exported by the package."""
    assert mundus_net.MundusError is MundusError
    game = mundus_net.Game.new(3, 1)
    with pytest.raises(MundusError) as refused:
        game.apply((game.active + 1) % 3, game.legal(game.active)[0])
    assert isinstance(refused.value, RuleError)
    with pytest.raises(MundusError) as bad:
        parse_position("mn2 players=9")
    assert isinstance(bad.value, NotationError) and isinstance(bad.value, ValueError)
