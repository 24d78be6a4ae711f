"""Which build the tests run against: plain Python, or compiled by mypyc (.ci/run's second
step; docs/architecture.md, "The compiled build")."""

from __future__ import annotations

from mundus_net.compiled import compiled_modules

COMPILED = bool(compiled_modules())
