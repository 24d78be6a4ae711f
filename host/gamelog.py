"""The game log: an append-only, checksummed record on disk of everything a host needs to
restore its table after a crash (docs/security.md, "Nothing lost").

**Storage.** One SQLite database per game, ``<game id>.sqlite3``, in the state directory
(``$XDG_STATE_HOME/mundus-net/games/``, else ``~/.local/state/mundus-net/games/``;
``mundus host --state-dir DIR`` for tests). The directory is made mode 0700 and the file
0600: the log holds the seat tokens and the host bots' offer secrets. SQLite runs in WAL mode
with an exclusive lock, so one host at a time writes a game (a second one is refused) and no
``-shm`` file is made. A committed transaction is in the WAL file before the host sends
anything that depends on it, so a host process that dies (SIGKILL, a crash, the OOM killer)
loses nothing it acknowledged; ``synchronous=FULL`` by default (an fsync per commit, and the
mark synced after it) loses nothing to a power cut either, and
``--fast-log`` makes it ``NORMAL`` (and leaves the mark unsynced).

**The mark.** ``<game id>.mark`` beside the database holds the last committed row and its
checksum, written in place after each commit (:class:`MarkFile`: two checksummed slots in
turn, so a torn write leaves the mark before it). The game lives in the WAL, and a
WAL deleted, emptied, cut or damaged leaves an older game that checks out by itself: opening
a log compares it with the mark and refuses it by name when rows the mark names are missing
or different (:func:`read_rows`). A log's ``create`` row says ``marked``: its mark missing is
damage too, and a mark without its database is a damaged game in ``--list``.

**Rows.** ``log(seq, kind, data, hash)``: ``seq`` counts from 1 without gaps, ``data`` is
canonical JSON, and ``hash`` is SHA-256 over the previous row's hash, the seq, the kind and
the data (the first row chains from a fixed genesis value), so a changed, missing or
reordered row is found: "row N checksum mismatch". The one-row ``head`` table holds the last
committed seq and hash, written in the same transaction as the rows: a log whose rows end
before its head is truncated. Row kinds (each written before the change it describes):

* ``create``: format, game id, name, options, the host seed of the fair deal, the deck (name,
  digest, cards), the host bots (strategy, seed, name), time limits, how the host serves it
  (address, record file, key directory);
* ``seat`` (seat, name, token, bot, contribute): a player takes a free seat;
* ``flags`` (seat, bot, contribute): a ``hello`` with a token changes them;
* ``contribute`` (seat, value): a seat's share of the seed (docs/protocol.md §15);
* ``begin`` (options, with the dealt seed): the game begins;
* ``decide`` (seat, pending, round, decision in wire form, by: player or bot),
  ``commit`` (seat, pending, round, commitment), ``reveal`` (seat, pending, round, offer,
  nonce, by): a player's answer;
* ``timeout`` (seat, pending, phase): the default is played for a seat out of time;
* ``bot`` (seat, round, the host bot's choice in wire form, or how it failed: the class of
  what it raised, or what it returned; the nonce of its offer);
* ``void`` (seat): the engine refused a logged decision from its own legal list (a bug);
* ``reserve`` (seq, ids): bounds on the update numbers and pending ids handed out;
* ``resumed`` (time, ids, seq, resumes): a host resumed the game here, and where its pending
  ids and update numbers went on; ``resumes`` counts the resumes of the game so far, this one
  included, from the starts file beside the log (:func:`count_resume`), so that rows taken
  out of the log (a rollback) do not take the restarts they saw out of the count.

A message the table refuses is never logged: its row is taken back out of the open
transaction before the commit (``mark``/``undo``). Rows are committed together at the points
where the host is about to let something out (the end of :meth:`Table.answer`, before its
reply, and :meth:`Table.drain`, before the updates it returns), so an answer costs one commit.

**Resume.** :func:`restore` builds a new :class:`~host.table.Table` from the ``create`` row and
feeds it every logged input through its own handlers (:func:`replay_input
<host.replay.replay_input>`, and :meth:`Table.resume <host.table.Table.resume>` for a
``resumed`` row: this module uses nothing private of the table); each row the table writes
again must be the logged row, byte for byte (so a log that does not replay is refused, naming
the row).
Host bots are made again from their strategy and seed and asked every question they were
asked, in order, so they continue as if nothing happened; their logged choices are the ones
played (a bot that is not deterministic is reported). Commitments made before the crash are
restored with the offer step: the host bots' secrets are in the log, the players' secrets
never reach the host before their reveal. Pending ids and update numbers continue above the
``reserve`` bounds, so no answer or update from before the crash is mistaken for a new one.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import sqlite3
import struct
import textwrap
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from mundus_net.bots.base import Bot, load_bot
from mundus_net.engine.decisions import Decision
from mundus_net.engine.deck import CardDef, Deck
from mundus_net.engine.errors import MundusError
from mundus_net.engine.view import PlayerView
from mundus_net.host.logrows import Journal, bot_choice_wire, bot_row, dumps
from mundus_net.host.replay import LOGGED_INPUTS, ReplayRefused, replay_input
from mundus_net.host.table import CONTRIBUTION_SECONDS, Table, TableSettings
from mundus_net.protocol.codec import DECISION_KINDS
from mundus_net.protocol.statedir import atomic_write, state_dir

__all__ = [
    "APPLICATION_ID", "FORMAT", "GENESIS", "MARK_MAGIC", "MARK_SLOT_BYTES", "MARK_SUFFIX",
    "RESERVE", "SCHEMA", "STARTS_SUFFIX", "SUFFIX", "WAL_ROOM", "BotSpec", "GameInfo", "GameLog",
    "GameLogError", "Journal", "LogFailure", "MarkFile", "ReplayedFault", "Restored", "Row",
    "bot_choice_wire", "bot_row", "count_resume", "deck_of", "default_state_dir", "dumps",
    "ensure_private_dir", "exact_decision", "find_game", "format_listing", "game_files",
    "game_info", "list_games", "make_wal_room", "mark_path", "new_table", "read_mark",
    "read_rows", "restore", "row_hash", "starts_path", "wal_pages", "wal_path", "write_mark"
]

FORMAT = "mundus-gamelog/1"
APPLICATION_ID = 0x4D4E4C31  # "MNL1" in the SQLite header: this file is a game log
SUFFIX = ".sqlite3"
GENESIS = hashlib.sha256(b"mundus-net/gamelog/1").hexdigest()
RESERVE = 1000  # update numbers and pending ids reserved at a time
_SQLITE_MAGIC = b"SQLite format 3\x00"

SCHEMA = """
CREATE TABLE log (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, data TEXT NOT NULL,
                  hash TEXT NOT NULL);
CREATE TABLE head (one INTEGER PRIMARY KEY CHECK (one = 1), seq INTEGER NOT NULL,
                   hash TEXT NOT NULL, round INTEGER NOT NULL, status TEXT NOT NULL,
                   saved REAL NOT NULL);
"""


class GameLogError(MundusError):
    """A log that cannot be used (not a game log, damaged, truncated, does not replay, in
    use); the message names the file and the problem."""


class LogFailure(BaseException):  # like SystemExit: it stops the host
    """The log can no longer be written (disk full, I/O error). Not an ``Exception``: the
    host's ``except Exception`` guards must not swallow it. The host stops without sending
    anything the log does not hold; the game resumes from the log once the problem is
    fixed."""


@dataclass(frozen=True, slots=True)
class Row:
    seq: int
    kind: str
    text: str  # canonical JSON, as stored
    hash: str

    @property
    def data(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.text)
        return value


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to make a host bot again: ``load_bot(strategy, seed)``."""

    strategy: str
    seed: int


@dataclass(frozen=True, slots=True)
class GameInfo:
    """One line of ``mundus host --list``."""

    game: str
    path: Path
    name: str = ""
    started: float = 0.0
    round: int = 0
    players: int = 0
    taken: int = 0
    bots: int = 0
    status: str = ""  # waiting, playing, over, in use, or damaged: ...


def row_hash(previous: str, seq: int, kind: str, text: str) -> str:
    return hashlib.sha256(f"{previous}\n{seq}\n{kind}\n{text}".encode()).hexdigest()


def default_state_dir() -> Path:
    """``$XDG_STATE_HOME/mundus-net/games``, or ``~/.local/state/mundus-net/games``."""
    return state_dir() / "games"


def ensure_private_dir(directory: Path) -> Path:
    """``directory``, made if needed, readable by its owner only (0700)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    if directory.stat().st_mode & 0o077:
        os.chmod(directory, 0o700)
    return directory


def _check_header(path: Path) -> None:
    """Refuse what is not one of our SQLite files, or is shorter than its header says (and
    its WAL does not hold the pages it lacks), before SQLite touches it."""
    try:
        with path.open("rb") as f:
            header = f.read(100)
        size = path.stat().st_size
    except OSError as exc:
        raise GameLogError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if not header:
        raise GameLogError(f"{path}: not a game log (an empty file)")
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise GameLogError(f"{path}: not a game log (not an SQLite database)")
    if int.from_bytes(header[68:72], "big") != APPLICATION_ID:
        raise GameLogError(f"{path}: not a game log (an SQLite database of another program)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    # The page count in the header is valid when the change counter matches (SQLite's rule).
    if pages and header[24:28] == header[92:96] and size < pages * page_size:
        # A checkpoint stopped half-way (a full disk, a crash) leaves page 1 copied from the
        # WAL, with the new page count, and the file not grown yet: SQLite reads the pages
        # the file lacks from the WAL, which is kept until a checkpoint completes.
        have = size // page_size  # whole pages
        missing = set(range(have + 1, pages + 1)) - wal_pages(wal_path(path), page_size)
        if missing:
            first, last = min(missing), max(missing)
            which = f"page {first}" if first == last else f"pages {first}-{last}"
            raise GameLogError(f"{path}: truncated: the file has {size} bytes, its header says "
                               f"{pages} pages of {page_size} bytes, and its WAL does not hold "
                               f"{which}")


_WAL_MAGIC = 0x377F0682  # the low bit: the checksums' byte order (1: big-endian)
_WAL_HEADER = struct.Struct(">8I")
_WAL_FRAME = struct.Struct(">6I")


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


# The WAL's room made at once: SQLite's automatic checkpoint comes at 1000 frames of a 4 KiB
# page and 24 bytes of frame header, after which the WAL is written again from its start.
WAL_ROOM = 32 + 1024 * (24 + 4096)


def make_wal_room(path: Path) -> None:
    """Grow the WAL of the log at ``path`` to :data:`WAL_ROOM` bytes of zeros, written and
    synced once, so that commits overwrite blocks in place: a sync of data that grows the
    file also writes the file system's journal (on ext4 it cost 170 us a commit here against
    105 us in place: ``benchmarks/gamelog.py``). Zeros after the last frame are what SQLite
    leaves there itself when it writes a WAL again from its start: they fail the frames'
    checksums, and SQLite and :func:`wal_pages` stop reading at them. On a full disk the file
    is left as it was, and SQLite grows it as it goes."""
    wal = wal_path(path)
    try:
        fd = os.open(wal, os.O_WRONLY | os.O_CREAT, 0o600)
    except OSError:
        return
    try:
        size = os.fstat(fd).st_size
        if size < WAL_ROOM:
            try:
                # A short write is a disk that filled: no room half made (it would hold the
                # last free blocks and hide the full disk until the WAL wraps).
                if os.pwrite(fd, bytes(WAL_ROOM - size), size) != WAL_ROOM - size:
                    raise OSError(errno.ENOSPC, "no room for the WAL")
                os.fdatasync(fd)
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)
    finally:
        os.close(fd)


def wal_pages(wal: Path, page_size: int) -> set[int]:
    """The pages the WAL file ``wal`` holds for its database, by SQLite's rules: the frames
    whose salts are its header's and whose running checksums hold, up to the last frame that
    ends a transaction (https://www.sqlite.org/fileformat.html#the_write_ahead_log). Empty
    when there is no WAL, or none of it counts."""
    try:
        data = wal.read_bytes()
    except OSError:
        return set()
    if len(data) < _WAL_HEADER.size:
        return set()
    magic, _version, size, _checkpoint, salt1, salt2, sum1, sum2 = _WAL_HEADER.unpack_from(data)
    if magic | 1 != _WAL_MAGIC | 1 or size != page_size:
        return set()
    words = struct.Struct((">" if magic & 1 else "<") + "2I")
    checksum = _wal_checksum(words, data[:24], (0, 0))
    if checksum != (sum1, sum2):
        return set()
    held: set[int] = set()
    committed: set[int] = set()
    frame = _WAL_HEADER.size
    while frame + _WAL_FRAME.size + size <= len(data):
        page, after, frame_salt1, frame_salt2, check1, check2 = _WAL_FRAME.unpack_from(data, frame)
        if (frame_salt1, frame_salt2) != (salt1, salt2):
            break
        checksum = _wal_checksum(words, data[frame:frame + 8], checksum)
        body = frame + _WAL_FRAME.size
        checksum = _wal_checksum(words, data[body:body + size], checksum)
        if checksum != (check1, check2):
            break
        held.add(page)
        if after:  # the last frame of a transaction: what it and those before hold counts
            committed |= held
        frame = body + size
    return committed


def _wal_checksum(words: struct.Struct, data: bytes, start: tuple[int, int]
                  ) -> tuple[int, int]:
    """SQLite's WAL checksum of ``data`` (a multiple of 8 bytes), continuing from ``start``."""
    s0, s1 = start
    for x0, x1 in words.iter_unpack(data):
        s0 = (s0 + x0 + s1) & 0xFFFFFFFF
        s1 = (s1 + x1 + s0) & 0xFFFFFFFF
    return s0, s1


def _check_file(path: Path) -> None:
    """:func:`_check_header`, said as damage when the file's mark shows it was a game log."""
    try:
        _check_header(path)
    except GameLogError as exc:
        try:
            found = read_mark(path)
        except GameLogError:
            found = None
        reason = str(exc).removeprefix(f"{path}: ")
        if found is None or reason.startswith(("damaged", "truncated")):
            raise
        if reason.startswith("not a game log (") and reason.endswith(")"):
            reason = reason.removeprefix("not a game log (")[:-1]
        raise GameLogError(f"{path}: damaged: it is {reason} now, but its mark says rows up to "
                           f"{found[0]} were committed") from None


def _connect(path: Path, durable: bool) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=0.0)
    try:
        # Exclusive: this process holds the file until it closes it (one host per game), and
        # WAL needs no -shm file.
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
    except sqlite3.Error:
        db.close()
        raise
    return db


def _sqlite_problem(path: Path, exc: sqlite3.Error) -> GameLogError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return GameLogError(f"{path}: in use (another host has this game open)")
    return GameLogError(f"{path}: damaged ({text})")


MARK_SUFFIX = ".mark"  # beside the log: the last committed row, outside the database and WAL


def mark_path(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(SUFFIX) + MARK_SUFFIX)


STARTS_SUFFIX = ".starts"  # beside the log: how many times a host resumed the game


def starts_path(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(SUFFIX) + STARTS_SUFFIX)


def count_resume(path: Path, counted: int) -> int:
    """One more resume of the game logged at ``path``: the number of resumes so far, this
    one included. ``counted`` is the number the log's own ``resumed`` rows give (this one
    included); the starts file beside the log keeps the count when rows are taken out of the
    log afterwards (a rollback, docs/security.md), so the larger of the two is the count,
    written back to the file. A starts file that cannot be read counts as none; one that
    cannot be written is left as it was (a later resume counts from the log's rows again)."""
    starts = starts_path(path)
    try:
        before = int(starts.read_text(encoding="ascii").strip() or 0)
    except (OSError, ValueError):
        before = 0
    resumes = max(counted, before + 1)
    with contextlib.suppress(OSError):
        atomic_write(starts, f"{resumes}\n")
    return resumes


# The mark file: two slots of fixed size, written in turn in place (a torn write spoils one
# slot; the other holds the mark before it). A slot: magic, a counter that grows with every
# write, the row's seq, its checksum (32 bytes), and a CRC-32 of what comes before it.
MARK_MAGIC = b"MNMARK02"
_MARK_SLOT = struct.Struct(">8sQQ32sI")
MARK_SLOT_BYTES = 64  # a slot's room in the file (the record is padded to it)


def _mark_slot(counter: int, seq: int, digest: str) -> bytes:
    body = struct.pack(">8sQQ32s", MARK_MAGIC, counter, seq, bytes.fromhex(digest))
    return (body + struct.pack(">I", zlib.crc32(body))).ljust(MARK_SLOT_BYTES, b"\0")


def _mark_slots(data: bytes) -> list[tuple[int, int, str]]:
    """The sound slots of a mark file's bytes: (counter, seq, digest) each."""
    found = []
    for start in range(0, 2 * MARK_SLOT_BYTES, MARK_SLOT_BYTES):
        part = data[start:start + _MARK_SLOT.size]
        if len(part) < _MARK_SLOT.size:
            continue
        magic, counter, seq, digest, crc = _MARK_SLOT.unpack(part)
        if magic == MARK_MAGIC and crc == zlib.crc32(part[:-4]):
            found.append((counter, seq, digest.hex()))
    return found


class MarkFile:
    """The high-water mark of a log: the last committed row and its checksum, in a file of
    its own beside the database, kept open and written in place after each commit. The game
    lives in the database's WAL; a WAL deleted, emptied or cut would leave an older game that
    checks out by itself, and only a record kept outside it tells that rows are missing.

    ``durable`` (the log's own setting): each write is synced (``fdatasync``) after the WAL
    was synced by the commit, so that after a power cut it is never ahead of the WAL. Written
    in place, it costs one sync of a block; replacing the file cost a temporary file, two
    syncs and a rename each time. A write torn by a power cut spoils one slot at most: the
    other still holds the mark before it, which the WAL holds too. With ``--fast-log`` the
    mark is left to the operating system like the WAL: after a power cut it may be ahead of
    what the WAL kept, and the log is refused (the rows the players were told of are gone)
    rather than resumed at an earlier point."""

    def __init__(self, path: Path, durable: bool) -> None:
        self.path = mark_path(path)
        self.durable = durable
        try:
            self._fd = os.open(self.path, os.O_RDWR)
            self._counter = max((c for c, _, _ in _mark_slots(os.pread(
                self._fd, 2 * MARK_SLOT_BYTES, 0))), default=0)
        except FileNotFoundError:
            # Made whole or not at all (a crash while it is made leaves no half mark).
            atomic_write(self.path, bytes(2 * MARK_SLOT_BYTES), 0o600)
            self._fd = os.open(self.path, os.O_RDWR)
            self._counter = 0

    def write(self, seq: int, digest: str) -> None:
        self._counter += 1
        slot = self._counter % 2
        os.pwrite(self._fd, _mark_slot(self._counter, seq, digest), slot * MARK_SLOT_BYTES)
        if self.durable:
            os.fdatasync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def write_mark(path: Path, seq: int, digest: str, durable: bool = True) -> None:
    """Write the mark of the log at ``path`` once (a log keeps its :class:`MarkFile` open)."""
    mark = MarkFile(path, durable)
    try:
        mark.write(seq, digest)
    finally:
        mark.close()


def read_mark(path: Path) -> tuple[int, str] | None:
    """The high-water mark of the log at ``path``: the last committed row and its checksum
    (None: there is no mark file). GameLogError when the mark cannot be read."""
    try:
        data = mark_path(path).read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        data = b""
    slots = _mark_slots(data)
    if slots:
        _, seq, digest = max(slots)
        return seq, digest
    try:  # a mark of the first format: JSON, replaced whole at every commit
        mark = json.loads(data)
        return int(mark["seq"]), str(mark["hash"])
    except (ValueError, KeyError, TypeError):
        raise GameLogError(f"{path}: damaged: its mark file {mark_path(path).name} cannot be "
                           "read") from None


def _check_mark(path: Path, rows: Sequence[Row]) -> None:
    """GameLogError when the log holds fewer rows, or other ones, than the mark says were
    committed: resuming it would go back in time."""
    found = read_mark(path)
    if found is None:
        if rows and rows[0].data.get("marked"):
            raise GameLogError(
                f"{path}: damaged: its mark file {mark_path(path).name} is missing (it holds "
                "the last committed row; without it a lost or cut -wal file cannot be told "
                "from a game that is where it was)")
        return  # a log written before marks were kept
    seq, digest = found
    if seq > len(rows):
        one = seq == len(rows) + 1
        missing = f"row {seq} was committed but is missing" if one else \
            f"rows {len(rows) + 1}-{seq} were committed but are missing"
        raise GameLogError(
            f"{path}: damaged: {missing} (its {path.name}-wal file was deleted, emptied or "
            f"cut, or a power cut with --fast-log lost {'it' if one else 'them'}): resuming "
            "would go back in time")
    if rows[seq - 1].hash != digest:
        raise GameLogError(f"{path}: damaged: row {seq} is not the one committed (the log was "
                           "replaced or changed)")


def read_rows(db: sqlite3.Connection, path: Path) -> list[Row]:
    """Every row, verified: seqs without gaps, each checksum, the head. GameLogError names
    the first problem."""
    try:
        check = db.execute("PRAGMA quick_check").fetchall()
        if check != [("ok",)]:
            raise GameLogError(f"{path}: damaged (SQLite: {check[0][0]})")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"log", "head"} <= tables:
            raise GameLogError(f"{path}: not a game log (no log table)")
        raw = db.execute("SELECT seq, kind, data, hash FROM log ORDER BY seq").fetchall()
        head = db.execute("SELECT seq, hash FROM head").fetchall()
    except sqlite3.Error as exc:
        raise _sqlite_problem(path, exc) from None
    rows: list[Row] = []
    previous = GENESIS
    for index, (seq, kind, text, digest) in enumerate(raw, start=1):
        if seq != index:
            raise GameLogError(f"{path}: damaged: row {index} is missing (the next row is "
                               f"{seq})")
        if not (isinstance(kind, str) and isinstance(text, str) and isinstance(digest, str)):
            raise GameLogError(f"{path}: damaged: row {seq} is malformed")
        if row_hash(previous, seq, kind, text) != digest:
            raise GameLogError(f"{path}: damaged: row {seq} checksum mismatch (the row was "
                               "changed, or one before it)")
        try:
            json.loads(text)
        except ValueError:
            raise GameLogError(f"{path}: damaged: row {seq} is not JSON") from None
        rows.append(Row(seq, kind, text, digest))
        previous = digest
    if not rows or rows[0].kind != "create" or rows[0].data.get("format") != FORMAT:
        raise GameLogError(f"{path}: not a game log (row 1 is not a {FORMAT} table)")
    if len(head) != 1:
        raise GameLogError(f"{path}: damaged (no head row)")
    head_seq, head_hash = head[0]
    if head_seq > len(rows):
        raise GameLogError(f"{path}: truncated: the log ends at row {len(rows)} but rows up to "
                           f"{head_seq} were committed")
    if head_seq < len(rows) or head_hash != previous:
        raise GameLogError(f"{path}: damaged: rows after {head_seq} were not committed "
                           "through the head, or the head was changed")
    _check_mark(path, rows)
    return rows


class GameLog:
    """The log of one game, open for appending (the :class:`Journal` of a live table)."""

    def __init__(self, path: Path, db: sqlite3.Connection, rows: list[Row], *,
                 durable: bool = False, status: str = "waiting") -> None:
        self.path = path
        self._db = db
        self.durable = durable  # the WAL and the mark synced at every commit
        self.status = status  # the head's, as opened: waiting, playing or over
        self.rows = rows  # as opened (what restore replays); rows written later are not kept
        self.params: dict[str, Any] = rows[0].data  # the create row
        self.game_id = str(self.params["game"])
        self._seq = rows[-1].seq
        self._hash = rows[-1].hash
        self._buffer: list[tuple[str, str]] = []
        self.reserved_seq = 0
        self.reserved_ids = 0
        for row in rows:
            if row.kind == "reserve":
                data = row.data
                self.reserved_seq, self.reserved_ids = int(data["seq"]), int(data["ids"])
        self.failed: BaseException | None = None
        self._shown = ("", -1)  # the head's status and round as last written
        self._mark: MarkFile | None = None  # opened at the first commit that writes it

    # -- making and opening -------------------------------------------------------------------

    @classmethod
    def create(cls, directory: Path, table: Table, *, bots: Sequence[BotSpec] = (),
               host: dict[str, Any] | None = None, durable: bool = False) -> GameLog:
        """A new log for ``table`` (made, not yet played by anyone): its ``create`` row says
        how to make the table again. ``bots`` are the strategies and seeds of its host bots,
        in seat order; ``host`` how the host serves it (address, record file, keys: what
        ``mundus host --resume`` takes by default)."""
        hosted = [s for s in table.seats if s.host_bot is not None]
        if len(bots) != len(hosted):
            raise ValueError(f"{len(bots)} bot specs for {len(hosted)} host bots")
        ensure_private_dir(directory)
        path = directory / f"{table.game_id}{SUFFIX}"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise GameLogError(f"{path}: a log of game {table.game_id} exists already") from None
        os.fchmod(fd, 0o600)
        os.close(fd)
        options = table.game.options
        create = {
            "format": FORMAT, "game": table.game_id, "name": table.name,
            "options": asdict(options), "fixed_seed": table.fixed_seed,
            "host_seed": table.host_seed.hex(),  # secret until the game ends (§15)
            "deck": {"name": table.deck.name, "digest": table.deck.digest,
                     "cards": [asdict(c) for c in table.deck.cards]},
            "bots": [{"strategy": b.strategy, "seed": b.seed, "name": s.name}
                     for b, s in zip(bots, hosted, strict=True)],
            "decision_seconds": table.decision_seconds, "bot_seconds": table.bot_seconds,
            "heartbeat_ms": table.heartbeat_ms, "autostart": table.autostart,
            "bot_pace": table.bot_pace, "contribution_seconds": table.contribution_seconds,
            "stand_in_after": table.stand_in_after,
            "host": dict(host or {}), "created": time.time(),
            "marked": True,  # a mark file is kept beside it: a missing one is damage
        }
        text = dumps(create)
        digest = row_hash(GENESIS, 1, "create", text)
        try:
            db = _connect(path, durable)
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            db.execute("PRAGMA user_version=1")
            db.executescript(SCHEMA)
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO log VALUES (1, 'create', ?, ?)", (text, digest))
            db.execute("INSERT INTO head VALUES (1, 1, ?, 0, 'waiting', ?)",
                       (digest, time.time()))
            db.execute("COMMIT")
            # Into the file itself now, so that its header says what it is at once.
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            write_mark(path, 1, digest, durable)
            if durable:
                make_wal_room(path)
        except (sqlite3.Error, OSError) as exc:
            with contextlib.suppress(OSError):
                path.unlink()
            raise GameLogError(f"{path}: cannot write the game log ({exc})") from None
        log = cls(path, db, [Row(1, "create", text, digest)], durable=durable)
        table.journal = log
        return log

    @property
    def committed(self) -> int:
        """The last row committed."""
        return self._seq

    @property
    def uncommitted(self) -> int:
        """Rows written since the last commit (0: every row is in the file)."""
        return len(self._buffer)

    def make_fast(self) -> None:
        """Leave the syncing to the operating system from now on (``--fast-log``, kept by the
        log)."""
        self._db.execute("PRAGMA synchronous=NORMAL")
        self.durable = False
        if self._mark is not None:
            self._mark.durable = False

    @classmethod
    def open(cls, path: Path, durable: bool = False) -> GameLog:
        """An existing log, verified, open for appending (GameLogError if it cannot be
        used)."""
        _check_file(path)
        try:
            db = _connect(path, durable)
        except sqlite3.Error as exc:
            raise _sqlite_problem(path, exc) from None
        try:
            try:  # take the exclusive lock now: a second host is refused here
                db.execute("BEGIN IMMEDIATE")
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise _sqlite_problem(path, exc) from None
            rows = read_rows(db, path)
            status = str(db.execute("SELECT status FROM head").fetchone()[0])
            if durable:
                make_wal_room(path)
        except BaseException:
            db.close()
            raise
        return cls(path, db, rows, durable=durable, status=status)

    def close(self) -> None:
        """Close the file (the WAL is folded into it when the game is over or left)."""
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        if self._mark is not None:
            with contextlib.suppress(OSError):
                self._mark.close()

    # -- the journal --------------------------------------------------------------------------

    def write(self, kind: str, data: dict[str, Any]) -> None:
        self._buffer.append((kind, dumps(data)))

    def mark(self) -> int:
        return len(self._buffer)

    def undo(self, mark: int) -> None:
        del self._buffer[mark:]

    def commit(self, table: Table) -> None:
        """Make every row written so far durable, with a new ``reserve`` row first when the
        table's update numbers or pending ids pass the reserved bounds. Called before
        anything that depends on the rows leaves the host."""
        if self.failed is not None:
            raise GameLogError(f"{self.path}: the game log failed: {self.failed}")
        issued_ids = table.next_pending_id - 1
        if issued_ids > self.reserved_ids or table.seq > self.reserved_seq:
            self.reserved_ids = issued_ids + RESERVE
            self.reserved_seq = table.seq + RESERVE
            self.write("reserve", {"seq": self.reserved_seq, "ids": self.reserved_ids})
        status = "over" if table.over else "playing" if table.started else "waiting"
        if not self._buffer and (status, table.game.round) == self._shown:
            return
        rows = []
        previous, seq = self._hash, self._seq
        for kind, text in self._buffer:
            seq += 1
            previous = row_hash(previous, seq, kind, text)
            rows.append(Row(seq, kind, text, previous))
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO log VALUES (?, ?, ?, ?)",
                           [(r.seq, r.kind, r.text, r.hash) for r in rows])
            db.execute("UPDATE head SET seq = ?, hash = ?, round = ?, status = ?, saved = ?",
                       (seq, previous, table.game.round, status, time.time()))
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            self.failed = exc
            raise LogFailure(f"cannot write the game log {self.path}: {exc}") from exc
        try:
            if self._mark is None:
                self._mark = MarkFile(self.path, self.durable)
            self._mark.write(seq, previous)
        except OSError as exc:
            self.failed = sqlite3.Error(str(exc))
            raise LogFailure(f"cannot write the game log's mark {mark_path(self.path)}: "
                             f"{exc}") from exc
        self._seq, self._hash = seq, previous
        self._buffer.clear()
        self._shown = (status, table.game.round)


# -- listing and finding ----------------------------------------------------------------------


def game_files(directory: Path) -> list[Path]:
    """The logs in ``directory``, and the logs whose mark is there without them (gone: a
    damaged game, as :func:`game_info` and :meth:`GameLog.open` say)."""
    if not directory.is_dir():
        return []
    found = {p for p in directory.iterdir() if p.name.endswith(SUFFIX) and p.is_file()}
    found |= {p.with_name(p.name.removesuffix(MARK_SUFFIX) + SUFFIX)
              for p in directory.iterdir() if p.name.endswith(MARK_SUFFIX)}
    return sorted(found)


def _missing(path: Path) -> GameLogError:
    """A log that is gone while its mark is still there."""
    try:
        found = read_mark(path)
    except GameLogError:
        found = None
    rows = f"rows up to {found[0]} were" if found else "rows were"
    return GameLogError(f"{path}: damaged: the log file is missing, but its mark "
                        f"{mark_path(path).name} says {rows} committed (the game cannot be "
                        "resumed; delete the mark file too to forget it)")


def find_game(directory: Path, game: str) -> Path:
    """The log of ``game``: a game id, a unique prefix of one, or a path to the file."""
    given = Path(game)
    if given.suffix == SUFFIX or os.sep in game:
        if not given.is_file():
            if mark_path(given).is_file():
                raise _missing(given)
            raise GameLogError(f"{given}: no such game log")
        return given
    found = [p for p in game_files(directory) if p.name.startswith(game)]
    exact = [p for p in found if p.name == f"{game}{SUFFIX}"]
    if len(found) > 1 and not exact:
        names = ", ".join(p.name.removesuffix(SUFFIX) for p in found)
        raise GameLogError(f"{game!r} is the start of several games: {names}")
    if not found:
        raise GameLogError(f"no game {game!r} in {directory} (mundus host --list shows the "
                           "games there)")
    path = (exact or found)[0]
    if not path.is_file():
        raise _missing(path)
    return path


def game_info(path: Path) -> GameInfo:
    """What ``--list`` shows of one log (never raises: a problem is its status)."""
    game = path.name.removesuffix(SUFFIX)
    if not path.is_file():
        return GameInfo(game, path, status=_reason(_missing(path), path))
    try:
        _check_file(path)
        db = sqlite3.connect(path, isolation_level=None, timeout=0.0)
    except (GameLogError, sqlite3.Error) as exc:
        return GameInfo(game, path, status=_damaged(exc, path))
    try:
        db.execute("PRAGMA locking_mode=EXCLUSIVE")  # no -shm file beside the log
        rows = read_rows(db, path)
        head = db.execute("SELECT round, status FROM head").fetchone()
    except (GameLogError, sqlite3.Error) as exc:
        status = "in use (a host runs it)" if _reason(exc, path).startswith("in use") else \
            _damaged(exc, path)
        return GameInfo(game, path, status=status)
    finally:
        db.close()
    create = rows[0].data
    taken = len(create["bots"]) + sum(1 for r in rows if r.kind == "seat")
    return GameInfo(str(create["game"]), path, str(create["name"]), float(create["created"]),
                    int(head[0]), int(create["options"]["players"]), taken,
                    len(create["bots"]), str(head[1]))


def _reason(exc: BaseException, path: Path) -> str:
    text = str(exc)
    return text.removeprefix(f"{path}: ")


def _damaged(exc: BaseException, path: Path) -> str:
    """``damaged: ...``, the status of a log that cannot be opened."""
    reason = _reason(exc, path)
    return reason if reason.startswith("damaged") else f"damaged: {reason}"


def list_games(directory: Path) -> list[GameInfo]:
    return sorted((game_info(p) for p in game_files(directory)), key=lambda g: -g.started)


_LISTING_WIDTH = 80  # mundus host --list fits a terminal of 80 columns


def format_listing(games: Sequence[GameInfo]) -> str:
    """The games of ``--list``, one row each, in 80 columns: a status too long for the end of
    its row (damaged: ..., in use ...) goes on the rows below it, indented."""
    lines = [f"{'GAME':<16}  {'NAME':<14}  {'STARTED':<16}  {'ROUND':>5}  {'SEATS':<12}  STATUS"]
    for g in games:
        started = datetime.fromtimestamp(g.started).strftime("%Y-%m-%d %H:%M") if g.started \
            else "?"
        seats = f"{g.taken}/{g.players} ({g.bots} bot{'s' if g.bots != 1 else ''})" \
            if g.players else "?"
        name = g.name if len(g.name) <= 14 else g.name[:13] + "…"
        row = f"{g.game:<16}  {name:<14}  {started:<16}  {g.round:>5}  {seats:<12}  "
        if len(row) + len(g.status) <= _LISTING_WIDTH:
            lines.append(row + g.status)
        else:
            lines.append(row.rstrip())
            lines += textwrap.wrap(g.status, _LISTING_WIDTH, initial_indent="    ",
                                   subsequent_indent="    ", break_on_hyphens=False)
    return "\n".join(lines)


# -- restoring ----------------------------------------------------------------------------------


class _Replay:
    """The journal of a table being restored: every row it writes must be the next logged
    row (``reserve`` rows are the log's own and are stepped over)."""

    def __init__(self, rows: list[Row]) -> None:
        self.rows = rows
        self.pos = 1  # row 1 is ``create``
        self.extra: list[tuple[str, dict[str, Any]]] = []  # rows past the end of the log
        self._marks: list[tuple[int, int]] = []

    def skip_own(self) -> None:
        while self.pos < len(self.rows) and self.rows[self.pos].kind == "reserve":
            self.pos += 1

    def write(self, kind: str, data: dict[str, Any]) -> None:
        self.skip_own()
        text = dumps(data)
        if self.pos >= len(self.rows):
            self.extra.append((kind, data))  # what the crashed host was about to write
            return
        row = self.rows[self.pos]
        if row.kind != kind or row.text != text:
            raise GameLogError(f"row {row.seq} does not replay: the log has {row.kind} "
                               f"{_short(row.text)}, the table made {kind} {_short(text)}")
        self.pos += 1

    def mark(self) -> int:
        self._marks.append((self.pos, len(self.extra)))
        return len(self._marks) - 1

    def undo(self, mark: int) -> None:
        self.pos, extra = self._marks[mark]
        del self.extra[extra:]

    def commit(self, table: Table) -> None:
        pass


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class _Shown:
    """What a replayed host bot returns where the original returned something that is not a
    decision: shown as it was, and refused again."""

    def __init__(self, shown: str) -> None:
        self.shown = shown

    def __repr__(self) -> str:
        return self.shown


class ReplayedFault(MundusError):
    """Raised again by a replayed host bot where the original raised."""


class _ReplayBot:
    """A host bot during replay: the real bot is asked (so that its state moves on exactly as
    it did), and the logged choice is played."""

    def __init__(self, inner: Bot, row: dict[str, Any], seq: int,
                 warn: Callable[[str], None]) -> None:
        self.inner = inner
        self.row = row
        self.seq = seq
        self.warn = warn

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        row = self.row
        raised = None
        try:
            own = bot_choice_wire(self.inner.decide(view, legal))
        except Exception as exc:  # as the table would have caught it
            own, raised = None, type(exc).__name__
        if (own, raised) != (row["decision"], row["raised"]):
            self.warn(f"row {self.seq}: the host bot at seat {row['seat']} chose {own} on "
                      f"replay but {row['decision']} in the game: it is not deterministic; "
                      "the logged choice is played")
        if row["decision"] is not None:
            return exact_decision(row["decision"])
        if row["raised"] is not None:
            raise type(str(row["raised"]), (ReplayedFault,), {})("as before the restart")
        return _Shown(str(row["shown"]))  # type: ignore[return-value]


def exact_decision(wire: dict[str, Any]) -> Decision:
    """The decision a host bot returned, as it was (not checked, not sorted: the table judges
    it again as it judged it then)."""
    fields = {name: tuple(v) if isinstance(v, list) else v
              for name, v in wire.items() if name != "kind"}
    return cast(Decision, DECISION_KINDS[wire["kind"]](**fields))


def deck_of(create: dict[str, Any]) -> Deck:
    spec = create["deck"]
    deck = Deck(name=str(spec["name"]), cards=tuple(CardDef(**c) for c in spec["cards"]))
    if deck.digest != spec["digest"]:
        raise GameLogError(f"the logged deck {spec['name']!r} does not match its digest")
    return deck


def new_table(create: dict[str, Any], clock: Callable[[], float] | None = None) -> Table:
    """The table as it was made, before anyone joined."""
    options = create["options"]
    bots = [load_bot(str(b["strategy"]), int(b["seed"])) for b in create["bots"]]
    extra: dict[str, Any] = {} if clock is None else {"clock": clock}
    fixed = bool(create["fixed_seed"])
    settings = TableSettings(
        fixed_seed=fixed, promo=bool(options["promo"]), first_tm=options["first_tm"],
        round_limit=options["round_limit"],
        # a log written before the rules correction names no edition: the first
        rules=int(options.get("rules", 1)), name=str(create["name"]),
        game_id=str(create["game"]), decision_seconds=create["decision_seconds"],
        bot_seconds=float(create["bot_seconds"]), heartbeat_ms=int(create["heartbeat_ms"]),
        autostart=bool(create["autostart"]), bot_pace=float(create["bot_pace"]),
        contribution_seconds=float(create.get("contribution_seconds", CONTRIBUTION_SECONDS)),
        stand_in_after=create.get("stand_in_after"))
    return Table(int(options["players"]), settings,
                 seed=int(options["seed"]) if fixed else None,
                 host_seed=bytes.fromhex(create["host_seed"]), deck=deck_of(create), bots=bots,
                 bot_names=[str(b["name"]) for b in create["bots"]], **extra)


@dataclass
class Restored:
    table: Table
    rows: int
    warnings: list[str] = field(default_factory=list)


def restore(log: GameLog, clock: Callable[[], float] | None = None,
            record_resume: bool = True) -> Restored:
    """The table of ``log`` exactly as the log leaves it, made again from its ``create`` row
    and every logged input (:func:`~host.replay.replay_input`, :meth:`Table.resume`); then
    ``log`` is its journal, with the rows the crashed host was about to write and
    (``record_resume``) a ``resumed`` row written, the table's history flushed and nothing
    left to send.

    Returns the table, the number of rows replayed and the warnings (a host bot that chose
    otherwise on replay). Raises GameLogError, naming the file and the row, when the table
    cannot be made again or the log does not replay (a row the table refuses, or writes
    differently). Nothing is half-built then: no table is returned, and ``log`` is as it was
    opened (nothing written to it, its rows kept), so it can be closed or restored again.
    LogFailure if the log cannot be written at the end."""
    rows = log.rows
    try:
        table = new_table(log.params, clock)
    except Exception as exc:  # a strategy that no longer loads, impossible options
        raise GameLogError(f"{log.path}: row 1: cannot make the table again: {exc}") from None
    warnings: list[str] = []
    replay = _Replay(rows)
    table.journal = replay
    try:
        while True:
            replay.skip_own()
            if replay.pos >= len(rows):
                break
            row = rows[replay.pos]
            before = replay.pos
            try:
                _replay_row(table, row, replay, warnings.append)
            except GameLogError:
                raise
            except ReplayRefused as exc:
                raise GameLogError(f"row {row.seq} ({row.kind}) does not replay: "
                                   f"{exc}") from None
            except Exception as exc:
                raise GameLogError(f"row {row.seq} ({row.kind}) does not replay: "
                                   f"{type(exc).__name__}: {exc}") from None
            if replay.pos == before:
                raise GameLogError(f"row {row.seq} ({row.kind}) does not replay: the table "
                                   "did not make it")
    except GameLogError as exc:
        raise GameLogError(f"{log.path}: {exc}") from None
    table.journal = log
    for kind, data in replay.extra:
        log.write(kind, data)
    if record_resume:
        # Continue above everything handed out before the crash (a later restore makes the
        # same jump at this row).
        counted = int(table.record.meta.get("resumed", 0)) + 1
        jump = {"time": time.time(), "ids": max(table.next_pending_id, log.reserved_ids + 1),
                "seq": max(table.seq, log.reserved_seq),
                "resumes": count_resume(log.path, counted)}
        log.write("resumed", jump)
        table.resume(int(jump["ids"]), int(jump["seq"]))
        table.record.meta["resumed"] = int(jump["resumes"])
    # The history becomes the snapshot's, and the rows are committed; nobody is listening
    # yet, so what the table would send is dropped.
    table.drain()
    log.rows = log.rows[:1]  # replayed: only the create row is kept
    return Restored(table, len(rows), warnings)


def _replay_row(table: Table, row: Row, replay: _Replay, warn: Callable[[str], None]) -> None:
    kind, data = row.kind, row.data
    if kind == "resumed":
        replay.pos += 1  # the log's own row: the table does not write it again
        table.resume(int(data["ids"]), int(data["seq"]))
        if "resumes" in data:  # counted with the starts file (logs before it: by the rows)
            table.record.meta["resumed"] = int(data["resumes"])
    elif kind == "bot":
        # The real bot is asked again and the logged choice played (the table refuses the
        # row when this seat's host bot is not the one to play).
        seat = int(data["seat"])
        inner = table.seats[seat].host_bot if 0 <= seat < table.players else None
        stand_in = None if inner is None else _ReplayBot(inner, data, row.seq, warn)
        replay_input(table, kind, data, bot=stand_in)
    elif kind in LOGGED_INPUTS:
        replay_input(table, kind, data)
    else:
        raise GameLogError(f"row {row.seq}: unexpected {kind!r} row")
