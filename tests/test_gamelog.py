"""The game log (host/gamelog.py; docs/security.md, "Nothing lost"): private files, chained
checksums, write-ahead order, refusal of damaged logs, and restoring a table that stopped at
any point to exactly the game it was, so that it finishes as if it had never stopped.

Tables run in-process with a fake clock; the network players are driven here and answer
deterministically (the same question gets the same answer), as a seeded bot would.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import os
import re
import sqlite3
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.clock import FakeClock
from support.table import send

from mundus_net.bots import load_bot
from mundus_net.engine.notation import format_position
from mundus_net.host import gamelog
from mundus_net.host.gamelog import (
    GENESIS,
    BotSpec,
    GameLog,
    GameLogError,
    dumps,
    find_game,
    format_listing,
    list_games,
    restore,
    row_hash,
)
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.commitment import commit
from mundus_net.protocol.fairdeal import host_seed_from_int
from mundus_net.protocol.messages import decode_client, encode

Message = dict[str, Any]
SEED = 21
BOTS = (BotSpec("greedy", 7), BotSpec("random", 8))
STEPS = 5000  # a game takes a few hundred turns of the driver


class Player:
    """A network seat: answers keyed by the question (a deterministic bot), and its token and
    offer secret kept across a host crash, as mundus_net.client.connection keeps them."""

    def __init__(self, name: str, contribute: bool = False) -> None:
        self.name = name
        self.contribute = contribute  # a share of the seed (docs/protocol.md §15)
        self.conn = name.encode()
        self.token: str | None = None
        self.seat: int | None = None
        self.secret: tuple[int, list[int], bytes] | None = None
        self.reconnects = 0

    def hello(self, table: Table) -> None:
        message: Message = {"t": "hello", "name": self.name, "role": "player"}
        if self.contribute:
            message["contribute"] = True
        if self.token is not None:
            message["token"] = self.token
            self.reconnects += 1
            self.conn = f"{self.name}-{self.reconnects}".encode()  # fresh sockets
        welcome = send(table, self.conn, **message)
        assert welcome["t"] == "welcome", welcome
        self.token, self.seat = welcome["token"], welcome["seat"]
        if self.contribute and not table.started:
            value = hashlib.sha256(self.name.encode()).digest()
            assert send(table, self.conn, t="contribute", token=self.token,
                        value=value)["t"] == "ok"

    def choose(self, pending: Message) -> Any:
        key = dumps([self.seat, pending["kind"], pending["detail"], pending["legal"]])
        index = int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(pending["legal"])
        return pending["legal"][index]

    def act(self, table: Table) -> bool:
        assert self.seat is not None and self.token is not None
        pending = table.output.private_state(self.seat)["pending"]
        if pending is None:
            return False
        base = {"token": self.token, "pending": pending["id"]}
        if pending["kind"] == "commit":
            rnd = pending["detail"]["round"]
            if self.secret is None or self.secret[0] != rnd:
                nonce = hashlib.sha256(f"{self.name}/{rnd}".encode()).digest()
                self.secret = (rnd, list(self.choose(pending)["cards"]), nonce)
            _, offer, nonce = self.secret
            reply = send(table, self.conn, t="commit", **base,
                         commitment=commit(table.game_id, rnd, self.seat, offer, nonce))
        elif pending["kind"] == "reveal":
            assert self.secret is not None
            _, offer, nonce = self.secret
            reply = send(table, self.conn, t="reveal", **base, offer=offer, nonce=nonce)
        else:
            reply = send(table, self.conn, t="decide", **base, decision=self.choose(pending))
        assert reply["t"] == "ok", reply
        return True


Stop = Callable[[Table, int, str], bool]  # (table, step, where) -> crash here


def play(table: Table, players: list[Player], stop: Stop | None = None) -> bool:
    """Run the table as the server does (bots and deadlines, then publish, then the clients
    answer) until the game is over (True) or ``stop`` says the host dies (False)."""
    for step in range(STEPS):
        table.steps = step  # type: ignore[attr-defined]  # how far the driver got
        if stop is not None and stop(table, step, "turn"):
            return False
        table.advance()
        if stop is not None and stop(table, step, "advanced"):
            return False  # the bots' rows since the last commit die with the host
        table.drain()
        if table.over:
            return True
        acted = []
        for player in players:
            acted.append(player.act(table))
            if stop is not None and stop(table, step, "answered"):
                return False  # between two players' answers
        assert any(acted) or table.bot_to_play() is not None, "nobody can move"
    raise AssertionError("the game did not end")


def new_table(clock: Callable[[], float] | None = None) -> Table:
    return Table(4, TableSettings(game_id="a1b2c3d4e5f60718", name="Log table"), seed=SEED,
                 bots=[load_bot(b.strategy, b.seed) for b in BOTS], bot_names=["hb0", "hb1"],
                 clock=clock or FakeClock())


def start(tmp_path: Path, contribute: bool = False) -> tuple[Table, GameLog, list[Player]]:
    table = new_table()
    log = GameLog.create(tmp_path, table, bots=BOTS, host={"port": 7700})
    players = [Player("Ana", contribute), Player("Bo", contribute)]
    for player in players:
        player.hello(table)
    return table, log, players


def per_seat(table: Table) -> dict[int, list[tuple[str, str]]]:
    """Each seat's decisions in order (the order between seats can differ between runs where
    seats decide at once; each seat's own order cannot)."""
    from mundus_net.engine.notation import format_decision

    out: dict[int, list[tuple[str, str]]] = {}
    for d in table.record.decisions:
        out.setdefault(d.seat, []).append((format_decision(d.decision), d.by))
    return out


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Table:
    table, log, players = start(tmp_path_factory.mktemp("whole"))
    assert play(table, players)
    log.close()
    return table


def crash_and_resume(tmp_path: Path, stop: Stop) -> tuple[Table, Table, list[Player]]:
    """Play until ``stop``, lose the host (uncommitted rows with it), restore from the log,
    let the players come back with their tokens, and finish."""
    table, log, players = start(tmp_path)
    assert not play(table, players, stop), "the game ended before the crash"
    log.close()  # what was not committed is lost, as when the process is killed
    reopened = GameLog.open(log.path)
    restored = restore(reopened, clock=FakeClock())
    assert restored.warnings == []
    resumed = restored.table
    for player in players:
        player.hello(resumed)
    assert play(resumed, players)
    reopened.close()
    return table, resumed, players


def same_game(resumed: Table, uninterrupted: Table) -> None:
    assert resumed.game.result == uninterrupted.game.result
    assert format_position(resumed.game) == format_position(uninterrupted.game)
    assert per_seat(resumed) == per_seat(uninterrupted)
    assert resumed.record.replay().result == uninterrupted.game.result


# -- files and rows ----------------------------------------------------------------------------


def test_the_log_is_private_and_holds_the_table_and_every_decision(tmp_path: Path,
                                                                   uninterrupted: Table) -> None:
    state = tmp_path / "state" / "games"
    table, log, players = start(state)
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert not play(table, players, lambda t, step, where: step == 40)
    for path in state.iterdir():  # the database and its WAL: tokens are secrets
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    log.close()
    db = sqlite3.connect(log.path)
    rows = db.execute("SELECT seq, kind, data, hash FROM log ORDER BY seq").fetchall()
    db.close()
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    previous = GENESIS
    for seq, kind, text, digest in rows:
        assert digest == row_hash(previous, seq, kind, text)
        previous = digest
    create = json.loads(rows[0][2])
    assert create["game"] == table.game_id
    assert create["host_seed"] == host_seed_from_int(SEED).hex()  # the deal's secret
    assert [b["strategy"] for b in create["bots"]] == ["greedy", "random"]
    kinds = {r[1] for r in rows}
    assert {"create", "seat", "bot", "decide", "reserve"} <= kinds
    seats = [json.loads(r[2]) for r in rows if r[1] == "seat"]
    assert [s["token"] for s in seats] == [p.token for p in players]


def test_an_answer_is_committed_before_its_reply_and_a_refused_one_never(
        tmp_path: Path) -> None:
    table, log, players = start(tmp_path)

    def asked(p: Player) -> Message | None:
        pending: Message | None = table.output.private_state(p.seat or 0)["pending"]
        return pending if pending and pending["kind"] not in ("commit", "reveal") else None

    assert not play(table, players, lambda t, step, where: where == "turn" and step > 0
                    and any(asked(p) for p in players))
    table.drain()
    player = next(p for p in players if asked(p))
    pending = asked(player)
    assert pending is not None
    committed = log.committed
    illegal = {"kind": "announce", "n": 9} if pending["kind"] != "announce" else \
        {"kind": "announce", "n": 1}
    reply = send(table, player.conn, t="decide", token=player.token, pending=pending["id"],
                 decision=illegal)
    assert reply["t"] == "error"
    assert log.committed == committed and not log.uncommitted  # the refused answer left no row
    message = decode_client(encode({"t": "decide", "token": player.token,
                                    "pending": pending["id"],
                                    "decision": pending["legal"][0]}))
    reply, later = table.answer(player.conn, message)
    assert reply["t"] == "ok"
    # The ok may leave before the engine applies the answer: the row is in the log already.
    assert log.committed > committed and not log.uncommitted
    if later is not None:
        later()
    log.close()


# -- resuming ------------------------------------------------------------------------------------


@pytest.mark.parametrize("crash_at", [(0.02, "turn"), (0.3, "advanced"), (0.55, "turn"),
                                      (0.97, "advanced")])
def test_a_restored_table_finishes_the_same_game(tmp_path: Path, uninterrupted: Table,
                                                 crash_at: tuple[float, str]) -> None:
    """The host dies at some point of the game (between answers, or after its bots moved
    and before it published), comes back from its log and finishes the same game."""
    at = int(crash_at[0] * uninterrupted.steps)  # type: ignore[attr-defined]

    def stop(table: Table, step: int, where: str) -> bool:
        return (step, where) == (at, crash_at[1])

    _, resumed, _ = crash_and_resume(tmp_path, stop)
    same_game(resumed, uninterrupted)
    assert resumed.record.meta["resumed"] == 1


def test_a_crash_mid_offer_step_keeps_the_commitments_and_the_host_bots_secrets(
        tmp_path: Path, uninterrupted: Table) -> None:
    seen: dict[str, Any] = {}

    def stop(table: Table, step: int, where: str) -> bool:
        step_ = table.offer_step
        if where != "answered" or step_ is None or step_.stage != "commit" \
                or step_.round < 2:
            return False
        committed = [s for s in step_.asked if s in step_.commitments]
        if len(committed) < 3:  # two host bots and one player have committed
            return False
        seen.update(commitments=dict(step_.commitments), secrets=dict(step_.secrets),
                    ids={s: p.id for s, p in table.pending_seats().items()}, seq=table.seq,
                    round=step_.round)
        return True

    table, log, players = start(tmp_path)
    assert not play(table, players, stop)
    log.close()
    reopened = GameLog.open(log.path)
    resumed = restore(reopened, clock=FakeClock()).table
    step = resumed.offer_step
    assert step is not None and step.round == seen["round"] and step.stage == "commit"
    assert step.commitments == seen["commitments"]
    assert step.secrets == seen["secrets"]  # the host bots reveal what they committed to
    # Ids and update numbers continue above everything handed out before the crash.
    assert min(p.id for p in resumed.pending_seats().values()) > max(seen["ids"].values())
    assert resumed.seq > seen["seq"]
    for player in players:
        player.hello(resumed)
    assert play(resumed, players)
    reopened.close()
    same_game(resumed, uninterrupted)


def test_a_table_restored_twice_still_finishes_the_same_game(tmp_path: Path,
                                                             uninterrupted: Table) -> None:
    table, log, players = start(tmp_path)
    assert not play(table, players, lambda t, step, where: step == 20)
    log.close()
    for crash in (15, 20):
        reopened = GameLog.open(log.path)
        resumed = restore(reopened, clock=FakeClock()).table
        for player in players:
            player.hello(resumed)
        def stop(table: Table, step: int, where: str, at: int = crash) -> bool:
            return step == at

        assert not play(resumed, players, stop)
        reopened.close()
    reopened = GameLog.open(log.path)
    resumed = restore(reopened, clock=FakeClock()).table
    for player in players:
        player.hello(resumed)
    assert play(resumed, players)
    reopened.close()
    same_game(resumed, uninterrupted)
    assert resumed.record.meta["resumed"] == 3


def test_the_players_shares_of_the_seed_are_logged_and_the_same_deal_restored(
        tmp_path: Path) -> None:
    whole, log, players = start(tmp_path / "whole", contribute=True)
    assert play(whole, players)
    log.close()
    assert whole.record.fairness is not None and whole.record.fairness["mixed"]
    table, log, players = start(tmp_path / "crashed", contribute=True)
    assert not play(table, players, lambda t, step, where: step == 20)
    log.close()
    reopened = GameLog.open(log.path)
    resumed = restore(reopened, clock=FakeClock()).table
    assert resumed.game.options.seed == whole.game.options.seed  # the dealt (mixed) seed
    for player in players:
        player.hello(resumed)
    assert play(resumed, players)
    reopened.close()
    same_game(resumed, whole)
    assert resumed.record.fairness == whole.record.fairness


def test_a_finished_game_restores_as_finished(tmp_path: Path, uninterrupted: Table) -> None:
    table, log, players = start(tmp_path)
    assert play(table, players)
    log.close()
    reopened = GameLog.open(log.path)
    resumed = restore(reopened, clock=FakeClock(), record_resume=False).table
    reopened.close()
    assert resumed.over and resumed.game.result == uninterrupted.game.result


# -- damaged logs ---------------------------------------------------------------------------------


def finished_log(tmp_path: Path) -> Path:
    table, log, players = start(tmp_path)
    assert not play(table, players, lambda t, step, where: step == 30)
    log.close()
    return log.path


def test_a_changed_row_is_refused_naming_it(tmp_path: Path) -> None:
    path = finished_log(tmp_path)
    db = sqlite3.connect(path)
    seq, text = db.execute("SELECT seq, data FROM log WHERE kind = 'decide' LIMIT 1").fetchone()
    db.execute("UPDATE log SET data = ? WHERE seq = ?", (text.replace('"seat":2', '"seat":3'),
                                                         seq))
    db.commit()
    db.close()
    with pytest.raises(GameLogError, match=f"row {seq} checksum mismatch"):
        GameLog.open(path)


def test_a_rewritten_log_that_does_not_replay_is_refused(tmp_path: Path) -> None:
    """Even with every checksum made again, a log that does not replay is not resumed."""
    path = finished_log(tmp_path)
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, kind, data FROM log ORDER BY seq").fetchall()
    target = next(seq for seq, kind, text in rows
                  if kind == "decide" and json.loads(text)["decision"]["kind"] == "take")
    previous = GENESIS
    for seq, kind, text in rows:
        if seq == target:
            data = json.loads(text)
            data["pending"] += 1
            text = dumps(data)
        previous = row_hash(previous, seq, kind, text)
        db.execute("UPDATE log SET data = ?, hash = ? WHERE seq = ?", (text, previous, seq))
    db.execute("UPDATE head SET hash = ?", (previous,))
    db.commit()
    db.close()
    gamelog.write_mark(path, rows[-1][0], previous)  # the mark rewritten too
    log = GameLog.open(path)
    with pytest.raises(GameLogError, match=f"row {target} \\(decide\\) does not replay: stale"):
        restore(log)
    log.close()


def test_missing_last_rows_are_refused_as_truncated(tmp_path: Path) -> None:
    path = finished_log(tmp_path)
    db = sqlite3.connect(path)
    (last,) = db.execute("SELECT max(seq) FROM log").fetchone()
    db.execute("DELETE FROM log WHERE seq > ?", (last - 3,))
    db.commit()
    db.close()
    with pytest.raises(GameLogError, match=f"truncated: the log ends at row {last - 3} but "
                                           f"rows up to {last} were committed"):
        GameLog.open(path)


def test_a_cut_file_is_refused_as_truncated(tmp_path: Path) -> None:
    path = finished_log(tmp_path)
    size = path.stat().st_size
    with path.open("r+b") as f:
        f.truncate(size // 2)
    with pytest.raises(GameLogError, match="truncated: the file has"):
        GameLog.open(path)


def _checkpointed_halfway(directory: Path, source: Path) -> Path:
    """A copy of the log at ``source`` (and its WAL and mark) as a checkpoint on a full disk
    leaves it: page 1 copied from the WAL's last frame of it, with the page count the WAL
    has, and the file not grown (SQLite writes page 1 first, then fails to extend the file)."""
    for name in (source.name, source.name + "-wal", gamelog.mark_path(source).name):
        (directory / name).write_bytes((source.parent / name).read_bytes())
    path = directory / source.name
    wal = gamelog.wal_path(path).read_bytes()
    page_size = int.from_bytes(wal[8:12], "big")
    frames = [32 + i * (24 + page_size) for i in range((len(wal) - 32) // (24 + page_size))]
    last_first_page = max(f for f in frames if int.from_bytes(wal[f:f + 4], "big") == 1)
    page = wal[last_first_page + 24:last_first_page + 24 + page_size]
    with path.open("r+b") as f:
        f.write(page)
    header_pages = int.from_bytes(page[28:32], "big")
    assert path.stat().st_size < header_pages * page_size, "the file is not short of its header"
    return path


def test_a_log_whose_checkpoint_stopped_on_a_full_disk_resumes_the_same_game(
        tmp_path: Path, uninterrupted: Table) -> None:
    """Issue 27: the host stopped on a full disk, and closing the log began a checkpoint
    that rewrote page 1 and could not grow the file. The WAL holds the rest: the log opens
    with every committed row and the game finishes as it would have."""
    table, log, players = start(tmp_path / "live")
    assert not play(table, players, lambda t, step, where: step == 60)
    committed = log.committed
    (tmp_path / "full").mkdir()
    path = _checkpointed_halfway(tmp_path / "full", log.path)
    log.close()
    reopened = GameLog.open(path)
    assert [r.seq for r in reopened.rows][-1] == committed
    resumed = restore(reopened, clock=FakeClock()).table
    assert resumed.game.round == table.game.round
    for player in players:
        player.hello(resumed)
    assert play(resumed, players)
    reopened.close()
    same_game(resumed, uninterrupted)


def test_a_short_file_whose_wal_lacks_the_pages_is_refused_as_truncated(tmp_path: Path) -> None:
    table, log, players = start(tmp_path / "live")
    assert not play(table, players, lambda t, step, where: step == 60)
    (tmp_path / "full").mkdir()
    path = _checkpointed_halfway(tmp_path / "full", log.path)
    log.close()
    wal = gamelog.wal_path(path)
    wal.write_bytes(wal.read_bytes()[:32])  # the header alone: no frame
    with pytest.raises(GameLogError, match=r"truncated: the file has .* and its WAL does not "
                                           r"hold pages"):
        GameLog.open(path)


@pytest.mark.parametrize("content", [b"", b"not a database at all" * 10,
                                     b"SQLite format 3\x00" + bytes(84)])
def test_other_files_are_not_game_logs(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.sqlite3"
    path.write_bytes(content)
    with pytest.raises(GameLogError, match="not a game log"):
        GameLog.open(path)


def test_another_sqlite_database_is_not_a_game_log(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE log (x)")
    db.commit()
    db.close()
    with pytest.raises(GameLogError, match="another program"):
        GameLog.open(path)


def test_one_host_at_a_time(tmp_path: Path) -> None:
    _, log, _ = start(tmp_path)
    with pytest.raises(GameLogError, match="in use"):
        GameLog.open(log.path)
    assert "in use" in list_games(tmp_path)[0].status
    log.close()


# -- listing and finding -------------------------------------------------------------------------


def test_the_listing_shows_what_can_be_resumed(tmp_path: Path) -> None:
    table, log, players = start(tmp_path)
    assert not play(table, players, lambda t, step, where: step == 50)
    log.close()
    broken = tmp_path / f"{'f' * 16}.sqlite3"
    broken.write_bytes(b"garbage")
    games = {g.game: g for g in list_games(tmp_path)}
    info = games[table.game_id]
    assert (info.name, info.players, info.taken, info.bots) == ("Log table", 4, 4, 2)
    assert info.status == "playing" and info.round == table.game.round
    assert games["f" * 16].status.startswith("damaged: not a game log")
    text = format_listing(list(games.values()))
    assert table.game_id in text and "4/4 (2 bots)" in text and "playing" in text
    # 80 columns (issue 36, item 9): a status too long for its row goes below it, whole.
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert " ".join(text.split()).count(games["f" * 16].status) == 1
    assert find_game(tmp_path, table.game_id[:6]) == log.path
    assert find_game(tmp_path, str(log.path)) == log.path
    with pytest.raises(GameLogError, match="no game 'zz'"):
        find_game(tmp_path, "zz")
    assert not os.path.exists(str(log.path) + "-shm")


# -- a log that cannot be written ------------------------------------------------------------------


@pytest.mark.network
def test_a_log_that_cannot_be_written_stops_the_host_before_it_answers(tmp_path: Path) -> None:
    from mundus_net.client.connection import Connection, ConnectTimeout
    from mundus_net.client.core import ClientSettings
    from mundus_net.client.notices import PublicEvents
    from mundus_net.host.gamelog import LogFailure
    from mundus_net.host.server import Host

    table = new_table(clock=time.monotonic)
    log = GameLog.create(tmp_path, table, bots=BOTS)
    said: list[str] = []
    host = Host(table, port=0, log=said.append)
    host.start()
    watcher = Connection(host.address, ClientSettings("Watcher", "spectator"),
                         server_key=host.public_key)
    try:
        watcher.connect(10.0)
        host.call(lambda t: log._db.close())  # the disk is gone, say
        conn = Connection(host.address, ClientSettings("Ana"), server_key=host.public_key)
        with pytest.raises(ConnectTimeout):  # no welcome: its seat could not be logged
            conn.connect(2.0)
        conn.close(bye=False)
        assert host.wait(5.0)
        assert isinstance(host.error, LogFailure)
        assert table.free_seats() == 1  # the seat was taken in memory, never told to anyone
        events: list[Message] = []
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and not any(e["kind"] == "stopping" for e in events):
            events += [e for n in watcher.poll(0.1) if isinstance(n, PublicEvents)
                       for e in n.events]
        # the players are told, and only that: not the seat the log does not hold
        assert events[-1] == {"kind": "stopping", "reason": "it cannot write its game log"}
        assert not any(e.get("name") == "Ana" for e in events), events
        assert not any("internal error" in line for line in said), said
    finally:
        watcher.close(bye=False)
        host.stop()


def test_a_host_bot_is_replayed_with_exactly_what_it_chose(tmp_path: Path) -> None:
    """A bot's odd choices (offers out of order, decisions the engine refuses, failures) are
    played again exactly as they were, so the table judges them as it did."""

    class Odd:
        def __init__(self, seed: int) -> None:
            self.calls = 0

        def decide(self, view: Any, legal: Any) -> Any:
            self.calls += 1
            choice = legal[self.calls % len(legal)]
            if self.calls % 7 == 0:
                raise ValueError("a bug in the strategy")
            if self.calls % 5 == 0:
                return "not a decision"
            if type(choice).__name__ == "Offer":
                return type(choice)(tuple(reversed(choice.cards)))
            return choice

    import sys
    import types

    module = types.ModuleType("odd_bot_for_replay")
    module.Odd = Odd  # type: ignore[attr-defined]
    sys.modules["odd_bot_for_replay"] = module
    try:
        table = Table(3, TableSettings(game_id="0dd0dd0dd0dd0dd0"), seed=4, bots=[Odd(0), Odd(1)],
                      clock=FakeClock())
        log = GameLog.create(tmp_path, table, bots=[BotSpec("odd_bot_for_replay:Odd", 0)] * 2)
        players = [Player("Ana")]
        players[0].hello(table)
        assert not play(table, players, lambda t, step, where: step == 30)
        log.close()
        assert table.record.violations  # the failures were played as defaults
        reopened = GameLog.open(log.path)
        restored = restore(reopened, clock=FakeClock(), record_resume=False)
        reopened.close()
        assert restored.warnings == []
        # Stopped between answers: everything was committed, and comes back exactly.
        assert format_position(restored.table.game) == format_position(table.game)
        assert restored.table.record.decisions == table.record.decisions
        assert restored.table.record.violations == table.record.violations
    finally:
        del sys.modules["odd_bot_for_replay"]


def test_a_restored_table_tells_its_old_clients_to_say_hello_again(tmp_path: Path) -> None:
    table, log, players = start(tmp_path)
    assert not play(table, players, lambda t, step, where: step == 10)
    log.close()
    reopened = GameLog.open(log.path)
    resumed = restore(reopened, clock=FakeClock()).table
    ana = players[0]
    # Ana's sockets reconnected by themselves; the restored host does not know them.
    reply = send(resumed, ana.conn, t="ping", token=ana.token)
    assert reply["code"] == "not_joined"
    assert send(resumed, ana.conn, t="ping")["t"] == "pong"  # without a token: just alive
    ana.hello(resumed)
    assert ana.seat == 2 and send(resumed, ana.conn, t="ping", token=ana.token)["t"] == "pong"
    assert resumed.output.public_state()["table"]["connected"] == [True, True, True, False]
    reopened.close()


def test_a_table_restored_before_its_game_began_keeps_the_seats_given(
        tmp_path: Path, uninterrupted: Table) -> None:
    table = new_table()
    log = GameLog.create(tmp_path, table, bots=BOTS)
    ana, bo = Player("Ana"), Player("Bo")
    ana.hello(table)  # seat 2 is Ana's; the host dies before Bo comes
    log.close()
    reopened = GameLog.open(log.path)
    resumed = restore(reopened, clock=FakeClock()).table
    # Read from the public state: after ``assert not resumed.started`` mypy would take
    # ``started`` for False below, and the rest of the test for unreachable.
    assert not resumed.output.public_state()["table"]["started"]
    assert resumed.names == ["hb0", "hb1", "Ana", ""]
    bo.hello(resumed)  # seat 3, and the game begins
    ana.hello(resumed)  # back with her token
    assert (ana.seat, bo.seat) == (2, 3) and resumed.started
    assert play(resumed, [ana, bo])
    reopened.close()
    same_game(resumed, uninterrupted)


# -- restoring through the table's public interface ------------------------------------------------


def state_of(table: Table) -> tuple[Any, ...]:
    """What a restored table must have of the original: the public state, each seat's private
    state, question and token, the pending ids handed out, and the record."""
    seats = range(table.players)
    return (table.output.public_state(), [table.output.private_state(s) for s in seats],
            [table.pending_of(s) for s in seats], [s.token for s in table.seats],
            table.next_pending_id, table.record.to_json())


def mid_commit(table: Table, step: int, where: str) -> bool:
    """Between two players' commitments of an offer step after the first: some seats have
    committed, some not (read from the public state only)."""
    state = table.output.public_state()
    committed = state["table"]["committed"]
    return where == "answered" and table.game.round >= 2 and 0 < len(committed) < 4


@pytest.mark.parametrize("stop", [lambda t, step, where: (step, where) == (25, "turn"),
                                  mid_commit], ids=["between-turns", "mid-commit"])
def test_a_restored_table_has_the_public_and_private_state_of_the_original(
        tmp_path: Path, stop: Stop) -> None:
    table, log, players = start(tmp_path)
    assert not play(table, players, stop)
    log.close()  # everything was committed: the answers commit before their replies
    reopened = GameLog.open(log.path)
    restored = restore(reopened, clock=FakeClock(), record_resume=False)
    resumed = restored.table
    assert restored.warnings == []
    assert resumed.output.public_state()["table"]["connected"] == [True, True, False, False]
    for player in players:  # back with their tokens, as after a crash
        player.hello(resumed)
    assert state_of(resumed) == state_of(table)
    reopened.close()


def log_rows(path: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT * FROM log ORDER BY seq").fetchall() + \
            db.execute("SELECT seq, hash FROM head").fetchall()
    finally:
        db.close()


def rewrite_row(path: Path, kind: str, change: Callable[[Message], bool]) -> int:
    """The first ``kind`` row that ``change`` edits (it returns True), with every checksum and
    the head made again, so that only replaying the log can tell; returns its seq."""
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, kind, data FROM log ORDER BY seq").fetchall()
    target = 0
    previous = GENESIS
    for seq, row_kind, text in rows:
        if not target and row_kind == kind:
            data = json.loads(text)
            if change(data):
                target, text = seq, dumps(data)
        previous = row_hash(previous, seq, row_kind, text)
        db.execute("UPDATE log SET data = ?, hash = ? WHERE seq = ?", (text, previous, seq))
    db.execute("UPDATE head SET hash = ?", (previous,))
    db.commit()
    db.close()
    gamelog.write_mark(path, seq, previous)  # the mark rewritten too
    assert target, f"no {kind} row to change"
    return target


def illegal_decision(data: Message) -> bool:
    if data["decision"]["kind"] != "take":
        return False
    data["decision"] = {"kind": "announce", "n": 1}  # a decision of another question
    return True


def other_host_bot(data: Message) -> bool:
    if data["seat"] != 0:
        return False
    data["seat"] = 1  # the other host bot moves out of turn
    return True


@pytest.mark.parametrize(("kind", "change", "reason"), [
    ("decide", illegal_decision, "not_pending: the seat is asked take, not announce"),
    ("bot", other_host_bot, "the host bot to play is seat 0, not 1"),
], ids=["illegal-decision", "bot-out-of-turn"])
def test_a_log_with_a_refused_entry_is_not_restored_and_is_left_as_it_was(
        tmp_path: Path, kind: str, change: Callable[[Message], bool], reason: str) -> None:
    path = finished_log(tmp_path)
    target = rewrite_row(path, kind, change)
    on_disk = log_rows(path)
    log = GameLog.open(path)
    opened = list(log.rows)
    expected = f"{re.escape(str(path))}: row {target} \\({kind}\\) does not replay: " \
               f"{re.escape(reason)}"
    with pytest.raises(GameLogError, match=expected):
        restore(log, clock=FakeClock())
    # Nothing half-built: no table, nothing written to the log, its rows as opened, so the
    # same restore fails the same way again.
    assert log.rows == opened
    with pytest.raises(GameLogError, match=expected):
        restore(log, clock=FakeClock())
    log.close()
    assert log_rows(path) == on_disk
    GameLog.open(path).close()  # closed cleanly: the next host can open it


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _reaches_in(node: ast.expr) -> bool:
    """An attribute starting with ``_`` of anything but ``self`` (``__dunder__`` names are
    Python's public protocol, not private), or such a name given to getattr and the like."""
    if isinstance(node, ast.Attribute):
        return _private(node.attr) and not (isinstance(node.value, ast.Name)
                                            and node.value.id == "self")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("getattr", "setattr", "delattr", "hasattr") \
            and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
        name = node.args[1].value
        return isinstance(name, str) and _private(name)
    return False


def private_uses(source: str) -> list[str]:
    """Where ``source`` reaches into another object's private names."""
    return [f"line {node.lineno}: {ast.unparse(node)}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.expr) and _reaches_in(node)]


def test_the_game_log_uses_nothing_private_of_the_table_or_any_other_object() -> None:
    assert private_uses("table._next_id = 1\nself._seq += 1\ntype(e).__name__\n"
                        "getattr(t, '_pending')\nt.seats[0]._x\n") == [
        "line 1: table._next_id", "line 4: getattr(t, '_pending')", "line 5: t.seats[0]._x"]
    source = inspect.getsourcefile(gamelog)
    assert source is not None
    assert private_uses(Path(source).read_text(encoding="utf-8")) == []


# -- the mark, written in place ----------------------------------------------------------------


def test_a_torn_mark_slot_leaves_the_mark_before_it(tmp_path: Path) -> None:
    path = tmp_path / f"g{gamelog.SUFFIX}"
    first, second = "ab" * 32, "cd" * 32
    gamelog.write_mark(path, 7, first)
    gamelog.write_mark(path, 8, second)
    assert gamelog.read_mark(path) == (8, second)
    data = bytearray(gamelog.mark_path(path).read_bytes())
    data[20] ^= 0x40  # the newer slot (written second, slot 0) torn by a power cut
    gamelog.mark_path(path).write_bytes(bytes(data))
    assert gamelog.read_mark(path) == (7, first)
    gamelog.write_mark(path, 9, first)  # the next write goes on from the newest sound slot
    assert gamelog.read_mark(path) == (9, first)


def test_a_mark_of_the_first_format_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / f"g{gamelog.SUFFIX}"
    gamelog.mark_path(path).write_text(json.dumps({"seq": 12, "hash": "ef" * 32}))
    assert gamelog.read_mark(path) == (12, "ef" * 32)
    gamelog.write_mark(path, 13, "01" * 32)  # written over in place, in the new format
    assert gamelog.read_mark(path) == (13, "01" * 32)


def test_a_mark_with_no_sound_slot_is_damage(tmp_path: Path) -> None:
    path = tmp_path / f"g{gamelog.SUFFIX}"
    gamelog.write_mark(path, 3, "ab" * 32)
    gamelog.mark_path(path).write_bytes(b"\xff" * 128)
    with pytest.raises(GameLogError, match=r"its mark file .* cannot be read"):
        gamelog.read_mark(path)


def test_a_durable_log_writes_its_wal_in_place_and_resumes_from_its_files_after_a_crash(
        tmp_path: Path, uninterrupted: Table) -> None:
    """The WAL's room is made once (gamelog.make_wal_room), so that durable commits overwrite
    blocks instead of growing the file; the zeros after the last frame are read as SQLite
    reads a WAL written again from its start: the files as a killed host leaves them (copied
    before anything closes them) resume the same game."""
    table = new_table()
    log = GameLog.create(tmp_path / "live", table, bots=BOTS, durable=True)
    wal = gamelog.wal_path(log.path)
    assert wal.stat().st_size == gamelog.WAL_ROOM
    players = [Player("Ana"), Player("Bo")]
    for player in players:
        player.hello(table)
    copy = tmp_path / "copy"

    def crash_in_round_3(table: Table, step: int, where: str) -> bool:
        if where != "turn" or table.game.round < 3:
            return False
        copy.mkdir()
        for source in (log.path, wal, gamelog.mark_path(log.path)):
            (copy / source.name).write_bytes(source.read_bytes())
        return True

    assert not play(table, players, crash_in_round_3)
    assert wal.stat().st_size == gamelog.WAL_ROOM  # not grown: written in place
    committed = log.committed
    log.close()
    reopened = GameLog.open(copy / log.path.name, durable=True)
    assert reopened.committed == committed
    restored = restore(reopened, clock=FakeClock())
    assert restored.warnings == []
    for player in players:
        player.hello(restored.table)
    assert play(restored.table, players)
    reopened.close()
    same_game(restored.table, uninterrupted)
