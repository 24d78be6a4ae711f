"""A game log whose WAL is deleted, emptied, cut or damaged never resumes an earlier state
(issue 13, item 6): the high-water mark kept outside the database (host/gamelog.py) tells
that committed rows are missing, and the log is refused by name; or the log opens with
every committed row. Files are copied as a killed host leaves them (the WAL not yet folded
into the database)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from test_gamelog import play, start

from mundus_net.host.gamelog import GameLog, GameLogError, game_info, mark_path


def crashed_files(tmp_path: Path) -> tuple[Path, int]:
    """A game log as the host left it when killed mid-game, and its last committed row."""
    table, log, players = start(tmp_path / "live")
    assert not play(table, players, lambda t, step, where: step == 30)
    copy = tmp_path / "crashed"
    copy.mkdir()
    for source in (log.path, Path(f"{log.path}-wal"), mark_path(log.path)):
        if source.exists():
            shutil.copy2(source, copy / source.name)
    committed = log.committed  # the last row committed before the "crash"
    log.close()
    return copy / log.path.name, committed


def _flip(offset: Callable[[int], int]) -> Callable[[Path], None]:
    def change(wal: Path) -> None:
        data = bytearray(wal.read_bytes())
        data[offset(len(data))] ^= 0x40
        wal.write_bytes(bytes(data))
    return change


DAMAGE: dict[str, Callable[[Path], object]] = {
    "deleted": lambda wal: wal.unlink(),
    "emptied": lambda wal: wal.write_bytes(b""),
    "cut in half": lambda wal: wal.write_bytes(wal.read_bytes()[: wal.stat().st_size // 2]),
    "header byte flipped": _flip(lambda n: 10),
    "first frame byte flipped": _flip(lambda n: 32 + 24 + 100),
    "middle byte flipped": _flip(lambda n: n // 2),
    "last frame byte flipped": _flip(lambda n: n - 100),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_wal_never_resumes_an_earlier_state(damage: str, tmp_path: Path) -> None:
    path, committed = crashed_files(tmp_path)
    wal = Path(f"{path}-wal")
    assert wal.exists() and wal.stat().st_size > 0, "the test needs a WAL to damage"
    DAMAGE[damage](wal)
    try:
        log = GameLog.open(path)
    except GameLogError as refused:
        assert str(path) in str(refused)
        assert "damaged" in str(refused) or "truncated" in str(refused) or \
            "not a game log" in str(refused)
        assert game_info(path).status.startswith("damaged"), game_info(path).status
        return
    try:
        assert log.rows[-1].seq == committed, f"{damage}: resumed at row {log.rows[-1].seq} " \
                                              f"of {committed}"
    finally:
        log.close()


def test_an_undamaged_crashed_log_opens_with_every_committed_row(tmp_path: Path) -> None:
    path, committed = crashed_files(tmp_path)
    log = GameLog.open(path)
    try:
        assert log.rows[-1].seq == committed
    finally:
        log.close()
