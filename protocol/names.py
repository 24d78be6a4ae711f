"""Players' and spectators' names as a table shows them (host and clients alike).

A name is one line of printable characters: control characters (C0, C1, DEL), format
characters (the bidi overrides and isolates U+202A-U+202E, U+2066-U+2069, zero-width
joiners...) and line or paragraph separators are removed, runs of white space become one
space, and it is cut to ``NAME_LENGTH``. At a table, names are unique: a second "Ann" sits
down as "Ann (2)".
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["DEFAULT_NAME", "NAME_LENGTH", "clean_name", "unique_name"]

NAME_LENGTH = 32
DEFAULT_NAME = "Player"


def clean_name(text: str, default: str = "") -> str:
    """``text`` as a name: printable, one line, at most NAME_LENGTH characters (``default``
    when nothing is left)."""
    # str.isprintable is False for categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs but the space.
    name = " ".join("".join(c for c in text if c.isprintable()).split())[:NAME_LENGTH]
    return name.strip() or default


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``... the first that no taken name equals (case
    and accents as typed, compared without case)."""
    used = {t.casefold() for t in taken if t}
    if name.casefold() not in used:
        return name
    n = 2
    while True:
        suffix = f" ({n})"
        candidate = name[:NAME_LENGTH - len(suffix)] + suffix
        if candidate.casefold() not in used:
            return candidate
        n += 1
