"""Every kind of damage to a game log's files either resumes exactly the last committed state
or is refused by name, and ``--list`` shows a refused log as damaged: never an earlier state,
never a new game (issue 13, item 6; docs/security.md, "Nothing lost").

The files are the database, its ``-wal`` file, its ``-shm`` file (an exclusive-mode log makes
none: a stray one must change nothing) and the mark kept beside them. Each is deleted,
emptied, cut in half, or has one byte flipped: in its header, its first frame (or page), its
middle, its last frame (or page). Two moments of a game: a host killed mid-game (the game in
the WAL, not yet folded into the database) and a host stopped (the WAL folded in, gone).
One short game with host bots is played for the whole module; each case damages a copy.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from support.clock import FakeClock
from test_gamelog import play, start

from mundus_net.host.gamelog import (
    SUFFIX,
    GameLog,
    GameLogError,
    find_game,
    list_games,
    mark_path,
    restore,
)

Damage = Callable[[Path], object]
STEPS = 30  # the host "dies" after this many turns of the driver: a few dozen rows


def _flip(offset: Callable[[int], int]) -> Damage:
    def change(path: Path) -> None:
        data = bytearray(path.read_bytes())
        data[offset(len(data))] ^= 0x40
        path.write_bytes(bytes(data))
    return change


def _page(which: Callable[[int], int]) -> Callable[[int], int]:
    """An offset in the middle of one 4096-byte page (database) or frame (WAL), chosen from the
    number of pages."""
    return lambda size: min(size - 1, which(max(1, size // 4096)) * 4096 + 2048)


DAMAGE: dict[str, Damage] = {
    "deleted": lambda path: path.unlink(),
    "emptied": lambda path: path.write_bytes(b""),
    "cut in half": lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]),
    "header byte flipped": _flip(lambda size: 10),
    "header page count flipped": _flip(lambda size: min(size - 1, 30)),
    "first frame byte flipped": _flip(lambda size: min(size - 1, 32 + 24 + 100)),
    "middle byte flipped": _flip(_page(lambda pages: pages // 2)),
    "last frame byte flipped": _flip(lambda size: size - 100),
}


def _files(directory: Path, name: str) -> dict[str, Path]:
    path = directory / name
    return {"database": path, "wal": Path(f"{path}-wal"), "shm": Path(f"{path}-shm"),
            "mark": mark_path(path)}


def _copy(source: Path, directory: Path) -> Path:
    """The log at ``source`` with every file beside it, copied into ``directory``."""
    for path in _files(source.parent, source.name).values():
        if path.exists():
            shutil.copy2(path, directory / path.name)
    return directory / source.name


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[str]]]:
    """Two copies of one game's files: ``crashed`` (copied while the host held the log, as a
    killed host leaves them) and ``stopped`` (after the log was closed); with the checksums of
    every committed row."""
    live = tmp_path_factory.mktemp("live")
    table, log, players = start(live)
    assert not play(table, players, lambda t, step, where: step == STEPS)
    crashed = _copy(log.path, tmp_path_factory.mktemp("crashed"))  # as a killed host leaves it
    log.close()
    stopped = _copy(log.path, tmp_path_factory.mktemp("stopped"))
    committed = GameLog.open(stopped)
    hashes = [row.hash for row in committed.rows]
    committed.close()
    assert Path(f"{crashed}-wal").stat().st_size > 4096, "no game in the WAL"
    assert not Path(f"{stopped}-wal").exists()
    return {"crashed": (crashed, hashes), "stopped": (stopped, hashes)}


def _opened_or_refused(path: Path, hashes: list[str]) -> str:
    """``refused: why`` or ``exact`` (every committed row, and the table restores); fails on
    anything else (an earlier state, a new game)."""
    game = path.name.removesuffix(SUFFIX)
    try:
        log = GameLog.open(find_game(path.parent, game))
    except GameLogError as refused:
        text = str(refused)
        assert text.startswith(f"{path}: "), text
        why = text.removeprefix(f"{path}: ")
        assert why.startswith(("damaged: ", "truncated: ")), text
        listed = [g for g in list_games(path.parent) if g.path == path]
        assert len(listed) == 1 and listed[0].status.startswith("damaged"), listed
        return f"refused: {text}"
    try:
        rows = [row.hash for row in log.rows]
        assert rows == hashes, f"opened with {len(rows)} rows of {len(hashes)} committed"
        restored = restore(log, clock=FakeClock(), record_resume=False)
        assert not restored.table.over
    finally:
        log.close()
    return "exact"


CASES = [(moment, kind, damage) for moment in ("crashed", "stopped")
         for kind in ("database", "wal", "mark") for damage in sorted(DAMAGE)
         if not (moment == "stopped" and kind == "wal")]  # a stopped log has no WAL


@pytest.mark.parametrize(("moment", "kind", "damage"), CASES)
def test_a_damaged_log_resumes_exactly_or_is_refused_by_name(
        moment: str, kind: str, damage: str, logs: dict[str, tuple[Path, list[str]]],
        tmp_path: Path) -> None:
    source, hashes = logs[moment]
    copy = _copy(source, tmp_path)
    DAMAGE[damage](_files(tmp_path, source.name)[kind])
    outcome = _opened_or_refused(copy, hashes)
    print(f"{moment} {kind} {damage}: {outcome}")


@pytest.mark.parametrize("content", [b"", b"\xff" * 32768])
@pytest.mark.parametrize("moment", ["crashed", "stopped"])
def test_a_stray_shm_file_changes_nothing(moment: str, content: bytes,
                                          logs: dict[str, tuple[Path, list[str]]],
                                          tmp_path: Path) -> None:
    """The log runs in exclusive mode and makes no -shm file: one left there (empty, or full of
    garbage) is not read."""
    source, hashes = logs[moment]
    _copy(source, tmp_path)
    _files(tmp_path, source.name)["shm"].write_bytes(content)
    assert _opened_or_refused(tmp_path / source.name, hashes) == "exact"


@pytest.mark.parametrize("kind", ["database", "wal"])
def test_a_lost_wal_or_database_is_refused_saying_what_is_missing(
        kind: str, logs: dict[str, tuple[Path, list[str]]], tmp_path: Path) -> None:
    source, hashes = logs["crashed"]
    _copy(source, tmp_path)
    _files(tmp_path, source.name)[kind].unlink()
    reason = _opened_or_refused(tmp_path / source.name, hashes)
    if kind == "database":
        assert f"the log file is missing, but its mark {mark_path(source).name} says rows up " \
               f"to {len(hashes)} were committed" in reason, reason
    else:
        assert f"-{len(hashes)} were committed but are missing" in reason, reason
        assert "resuming would go back in time" in reason


def test_a_lost_mark_is_refused_and_an_intact_log_opens(
        logs: dict[str, tuple[Path, list[str]]], tmp_path: Path) -> None:
    source, hashes = logs["crashed"]
    _copy(source, tmp_path)
    assert _opened_or_refused(tmp_path / source.name, hashes) == "exact"
    mark_path(tmp_path / source.name).unlink()
    reason = _opened_or_refused(tmp_path / source.name, hashes)
    assert f"its mark file {mark_path(source).name} is missing" in reason, reason
