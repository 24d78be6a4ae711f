"""Printed lines as the tests read them: the human lines that commands wrap at 80 columns
(the rest of a long line indented), joined again, and the check that they fit."""

from __future__ import annotations

from collections.abc import Iterable

WIDTH = 80  # every line a person reads fits a terminal of 80 columns


def paragraphs(out: str) -> list[str]:
    """``mundus verify``'s lines with their wrapped parts joined again: one line a check. A
    line indented by two spaces or more continues the one before, except a skipped check
    (``  -  NAME: not checked``) and the record's history (``     history: ...``)."""
    joined: list[str] = []
    for line in out.splitlines():
        if joined and line.startswith("  ") and not line.startswith(("  -  ", "     history: ")):
            joined[-1] += " " + line.strip()
        else:
            joined.append(line)
    return joined


def too_wide(lines: Iterable[str], width: int = WIDTH) -> list[str]:
    """The lines wider than ``width`` columns (none, for human output)."""
    return [line for line in lines if len(line) > width]
