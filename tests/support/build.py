"""Which build the tests run against: plain Python, or compiled by mypyc (.ci/run's second
step; docs/architecture.md, "The compiled build")."""

from __future__ import annotations

import pytest

from mundus_net.compiled import compiled_modules

COMPILED = bool(compiled_modules())

# A test that hands a stand-in (a proxy, a duck-typed view) to code the compiled build types
# exactly: what it checks is the source, which both builds share.
plain_only = pytest.mark.skipif(
    COMPILED, reason="hands a stand-in to compiled code, which takes the exact type only")
