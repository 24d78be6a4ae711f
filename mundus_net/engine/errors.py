"""The root of the exceptions mundus_net raises: catch :class:`MundusError` to catch any of
them, whichever layer raised it (docs/architecture.md, "The exceptions").

It lives in the engine because the engine is the lowest layer, which every other may import;
each layer's exceptions derive from it, most of them also from the built-in exception they
always were (``ValueError``, ``RuntimeError``), so no ``except`` clause catches less."""

from __future__ import annotations

__all__ = ["MundusError"]


class MundusError(Exception):
    """Something mundus_net refuses or cannot do; the message says what and why."""
