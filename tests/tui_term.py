"""A real terminal for the terminal-client tests: the program runs in a pseudo-terminal
(pexpect) and its output goes through a screen model (pyte), so tests read the screen as a
person would see it. Every wait has a timeout."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pexpect
import pyte

ROOT = Path(__file__).resolve().parent.parent
MUNDUS = shutil.which("mundus", path=str(Path(sys.executable).parent)) or "mundus"
WAIT = 60.0  # seconds: a deadline for every step, generous so a loaded machine is no failure
# The terminal client (prompt_toolkit) hides the cursor as it starts drawing a frame and shows
# it again, at the input line, once the frame is drawn: the marks of a whole frame.
FRAME_BEGINS, FRAME_ENDS = b"\x1b[?25l", b"\x1b[?25h"

# SGR parameters that set a colour: 30-37, 38;..., 39 aside, 40-47, 48;..., 90-97, 100-107.
_SGR = re.compile(rb"\x1b\[([0-9;]*)m")
_COLOUR_PARAMS = {*range(30, 38), 38, *range(40, 48), 48, *range(90, 98), *range(100, 108)}


def colour_codes(raw: bytes) -> list[bytes]:
    """The escape sequences in ``raw`` that set a colour."""
    found = []
    for m in _SGR.finditer(raw):
        params = [int(p) for p in m.group(1).split(b";") if p]
        if any(p in _COLOUR_PARAMS for p in params):
            found.append(m.group(0))
    return found


def environment(state: Path, term: str = "xterm-256color", no_color: bool = False,
                **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env.update(TERM=term, XDG_STATE_HOME=str(state), LANG="C.UTF-8", LC_ALL="C.UTF-8",
               PYTHONUNBUFFERED="1")
    if no_color:
        env["NO_COLOR"] = "1"
    env.update(extra)
    return env


def without_venv(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with a PATH that does not hold this virtual environment's scripts: a shell
    where ``mundus`` is not found (as in a friend's terminal, or one without the virtual
    environment activated)."""
    scripts = Path(MUNDUS).parent.resolve()
    kept = [p for p in env.get("PATH", os.defpath).split(os.pathsep)
            if p and Path(p).resolve() != scripts]
    out = {k: v for k, v in env.items() if k != "VIRTUAL_ENV"}
    out["PATH"] = os.pathsep.join(kept)
    assert shutil.which("mundus", path=out["PATH"]) is None, "a mundus is on the test's PATH"
    return out


class Term:
    """One program in a pseudo-terminal of ``cols`` x ``rows``."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str], cols: int = 100,
                 rows: int = 30, program: str = MUNDUS, cwd: Path = ROOT) -> None:
        self.cols, self.rows = cols, rows
        self.child = pexpect.spawn(program, list(args), env=dict(env), cwd=str(cwd),
                                   dimensions=(rows, cols), encoding=None, timeout=WAIT)
        # No pause before each key (pexpect's default, 50 ms): the tests wait for the screen
        # to ask before they type, and the terminal keeps what is typed until it is read.
        self.child.delaybeforesend = None
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.ended = False

    # -- reading ------------------------------------------------------------------------------

    def pump(self, timeout: float = 0.05) -> bool:
        """Read what the program wrote within ``timeout``; False once it has ended."""
        if self.ended:
            return False
        try:
            data = self.child.read_nonblocking(1 << 16, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            self.ended = True
            return False
        self.raw += data
        self.stream.feed(data)
        return True

    def settle(self, quiet: float = 0.08, timeout: float = 10) -> str:
        """The screen once the last frame written is whole and nothing more waits to be read;
        where the output has no whole frame to go by (the cursor stays hidden), once the
        program has stopped writing for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            before = len(self.raw)
            whole = self.raw.rfind(FRAME_ENDS) > self.raw.rfind(FRAME_BEGINS)
            self.pump(0.005 if whole else quiet)
            if len(self.raw) == before:
                break
        return self.text()

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.lines())

    def wait(self, found: Callable[[Term], Any], timeout: float = WAIT, what: str = "") -> Any:
        """Pump until ``found(self)`` is true; its value. AssertionError with the screen on a
        timeout."""
        deadline = time.monotonic() + timeout
        while True:
            value = found(self)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what or found}; the screen:\n"
                                     + self.text())
            if not self.pump(0.05):
                value = found(self)
                if value:
                    return value
                raise AssertionError(f"the program ended while waiting for {what or found}; "
                                     f"output:\n{self.tail()}")

    def wait_text(self, text: str, timeout: float = WAIT) -> None:
        self.wait(lambda t: text in t.text(), timeout, repr(text))

    def wait_raw(self, pattern: str, timeout: float = WAIT) -> re.Match[str]:
        """A regular expression in everything written so far (the screen model drops what
        the program prints after leaving the full screen over old lines)."""
        rx = re.compile(pattern)
        found: re.Match[str] = self.wait(lambda t: rx.search(t.plain()), timeout, pattern)
        return found

    def plain(self) -> str:
        """Everything written, escape sequences removed."""
        text = self.raw.decode("utf-8", "replace")
        return re.sub(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[=>78])",
                      "", text)

    def tail(self, n: int = 3000) -> str:
        return self.plain()[-n:]

    # -- writing ------------------------------------------------------------------------------

    def send(self, text: str) -> None:
        self.child.send(text.encode())

    def line(self, text: str) -> None:
        self.send(text + "\r")

    def resize(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)

    def finish(self, timeout: float = WAIT) -> int:
        """Wait for the program to end; its exit status."""
        deadline = time.monotonic() + timeout
        while self.pump(0.1):
            if time.monotonic() > deadline:
                self.child.kill(9)
                raise AssertionError("the program did not end; output:\n" + self.tail())
        self.child.wait()
        self.child.close()
        status = self.child.exitstatus
        return -1 if status is None else int(status)

    def close(self) -> None:
        if self.child.isalive():
            self.child.kill(9)
        self.child.close(force=True)


def stop_tables(state: Path) -> Callable[[], None]:
    """A function that ends the background tables `mundus play` started with this state
    folder and left running (their process ids are noted beside the seat tokens, kept per
    address and player name)."""
    def stop() -> None:
        try:
            data = json.loads((state / "mundus-net" / "tokens.json").read_text())
        except (OSError, ValueError):
            return
        tables = data.get("tables", {}).values()
        for entry in [seat for table in tables for seat in (table.get("seats") or {}).values()]:
            pid = (entry.get("note") or {}).get("pid")
            if isinstance(pid, int):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGTERM)
    return stop


# -- reading the client's screen ------------------------------------------------------------

PROMPT = re.compile(r"^([a-z_]+)>(?: |$)")


def phase(t: Term) -> str | None:
    """The decision the input line asks for ("offer", "take"...), or None."""
    m = PROMPT.match(t.lines()[-1])
    return m.group(1) if m else None


@dataclass(frozen=True)
class Shown:
    """One numbered choice as the screen shows it: its number, its words, and the group it is
    listed under ("cotton from Bo"), if any."""

    number: int
    words: str
    group: str | None = None


_ITEM = re.compile(r"(?:(swap for) )?(\d+)\) (.+?)(?=\s{2,}(?:swap for )?\d+\) |\s*$)")
# A decision in the notation of docs/notation.md, alone: what no choice on screen may be.
NOTATION_ONLY = re.compile(r"^(?:(?:\d+\.)?[a-z_]+:\S+(?:,\S+)*|end|perfect)$")


def choices(t: Term) -> tuple[int, list[Shown]]:
    """The count of choices in the panel's title and the choices of the page shown."""
    lines = t.lines()
    start = next((i for i, line in enumerate(lines)
                  if line.startswith(("Choices (", "Suggestions ("))), None)
    if start is None:
        return 0, []
    head = re.match(r"(?:Choices|Suggestions) \((\d+)", lines[start])
    assert head is not None
    items: list[Shown] = []
    group: str | None = None
    for line in lines[start + 1:-2]:  # the status line and the input line follow the panel
        body = line
        if line.startswith(" ") and not line.startswith("    "):
            m = re.match(r" ([^\d\s][^:]*):\s+(?=\d+\) )", line)
            group = m.group(1) if m else None
            body = line[m.end():] if m else line
        elif not line.startswith("    "):
            group = None
        for m in _ITEM.finditer(body.strip()):
            items.append(Shown(int(m.group(2)), m.group(3).strip(), group))
    return int(head.group(1)), items


def hand(t: Term) -> list[int]:
    """The cards of the "Hand N:" line (values; relics are 10)."""
    for line in t.lines():
        m = re.match(r"Hand (\d+):(.*)", line)
        if m:
            cards: list[int] = []
            for v, times in re.findall(r"\b([1-9]) [a-z][a-z ]*?(?: ×(\d+))?(?=\s{2}|$|\s\|)",
                                       m.group(2)):
                cards += [int(v)] * int(times or 1)
            relics = re.search(r"relic(?: ×(\d+))?", m.group(2))
            if relics:
                cards += [10] * int(relics.group(1) or 1)
            assert len(cards) == int(m.group(1)), f"cannot read the hand line {line!r}"
            return sorted(cards)
    raise AssertionError("no hand line on the screen:\n" + t.text())


def answer(t: Term, text: str) -> None:
    """Type ``text`` and Enter, and wait until the client has taken both in (the input line
    shows the text, then is empty again): any question shown after that is a new one."""
    t.send(text)
    t.wait(lambda t: t.lines()[-1].endswith("> " + text), what=f"the echo of {text!r}")
    t.send("\r")
    t.wait(lambda t: t.lines()[-1].endswith(">"), what="the input line to clear")
