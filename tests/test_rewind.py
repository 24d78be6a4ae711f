"""A host that goes back in time is seen by every player (docs/security.md, "A host that goes
back in time"; protocol/chain.py; issue 27).

The host's real Table journaled to a real game log on disk, the reference client cores
paired with it in memory (tests/support/net.py's Net: no sockets, one fake clock). The
host "crashes" (its log closed, nothing uncommitted kept) and is resumed from a log that was
rolled back: its last rows deleted with the head and the mark moved to the last kept row, or
the whole state folder put back from an earlier copy. An honest resume is never taken for a
rewind. Rules: R5.3 (offers committed and revealed in secret).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from support.clock import FakeClock
from support.lines import paragraphs
from support.net import DEALER, PUBLIC, UP, Net, Peer, play

from mundus_net.bots import load_bot
from mundus_net.bots.base import Bot
from mundus_net.client.core import Channel, ClientError
from mundus_net.client.notices import Refused, Rewound
from mundus_net.engine.decisions import Offer
from mundus_net.engine.record import GameRecord
from mundus_net.host import gamelog
from mundus_net.host.gamelog import BotSpec, GameLog, mark_path, restore, write_mark
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.chain import ANOTHER, EARLIER, GENESIS, Witness, durable, link
from mundus_net.protocol.messages import encode

if TYPE_CHECKING:
    from test_host_resume import Process

GAME = "rewind-game-0001"


def logged_game(directory: Path, **options: Any) -> tuple[Net, GameLog, dict[Peer, Bot]]:
    """A 3-seat table with one greedy host bot, journaled to a game log in ``directory``,
    and two network players (reference cores playing greedy and random)."""
    clock = FakeClock(100.0)
    table = Table(3, TableSettings(game_id=GAME, first_tm=0, **options), seed=5,
                  bots=[load_bot("greedy", 0)], clock=clock)
    log = GameLog.create(directory, table, bots=[BotSpec("greedy", 0)])
    net = Net(table, clock)
    players = {net.join("Ana"): load_bot("greedy", 1), net.join("Bo"): load_bot("random", 2)}
    return net, log, players


def play_to_round(net: Net, players: dict[Peer, Bot], round_: int) -> None:
    play(net, players, until=lambda: net.table.game.round >= round_)


def resume(net: Net, path: Path) -> None:
    """``mundus host --resume``: the table made again from the log on disk, the clients'
    sockets reconnecting by themselves to a host that does not know them (§11)."""
    log = GameLog.open(path)
    net.table = restore(log, clock=net.clock).table
    for _ in range(4):  # a ping with a token -> not_joined -> hello -> welcome -> snapshot
        net.tick(net.clock.now + 1.0)


def rewound(peer: Peer) -> list[Rewound]:
    return peer.of(Rewound)


def cut_log(path: Path, keep: int) -> None:
    """The rollback of issue 27: the rows after ``keep`` deleted, and the head and the mark
    pointed at the last kept row (three SQL statements and a 40-byte file)."""
    db = sqlite3.connect(path)
    try:
        digest = db.execute("SELECT hash FROM log WHERE seq = ?", (keep,)).fetchone()[0]
        db.execute("DELETE FROM log WHERE seq > ?", (keep,))
        db.execute("UPDATE head SET seq = ?, hash = ?", (keep, digest))
        db.commit()
    finally:
        db.close()
    mark_path(path).unlink()
    write_mark(path, keep, digest)


def rows(path: Path) -> list[tuple[int, str, str]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT seq, kind, data FROM log ORDER BY seq").fetchall()
    finally:
        db.close()


def test_an_honest_resume_is_not_taken_for_a_rewind_and_the_game_ends(tmp_path: Path) -> None:
    net, log, players = logged_game(tmp_path)
    play_to_round(net, players, 3)
    log.close()
    resume(net, log.path)
    play(net, players)
    for peer in players:
        assert rewound(peer) == []
        assert peer.core.result is not None and peer.core.rewind is None
        witness = peer.core.witness
        assert witness is not None and witness.count > 0


def _mid_commit(net: Net) -> bool:
    committed = net.table.output.public_state()["table"]["committed"]
    return net.table.game.round >= 2 and 0 < len(committed) < 3


@pytest.mark.parametrize("where", ["mid-commit", "after-timeouts", "game-over"])
def test_an_honest_resume_at_any_point_is_not_taken_for_a_rewind(tmp_path: Path,
                                                                 where: str) -> None:
    """Crashes where the resumed history differs from the one the clients saw in what the
    log does not keep: chats, comings and goings, stand-ins, timeouts, the end."""
    options: dict[str, Any] = {}
    if where == "after-timeouts":
        options = {"decision_seconds": 2.0, "stand_in_after": 3.0}
    net, log, players = logged_game(tmp_path, **options)
    ana, bo = list(players)
    ana.core.chat("hello", net.clock.now)
    if where == "mid-commit":
        play(net, players, step=0.01, until=lambda: _mid_commit(net))
    elif where == "after-timeouts":
        play_to_round(net, players, 2)
        net.peers.remove(bo)  # Bo's link is cut: away, timed out, then a stand-in plays
        play(net, {ana: players[ana]}, step=0.5, until=lambda: net.table.game.round >= 4)
        kinds = {e["kind"] for e in ana.core.events}
        assert {"away", "timeout", "stand_in"} <= kinds
        net.peers.append(bo)
    else:
        play(net, players)
    log.close()
    resume(net, log.path)
    if where != "game-over":
        play(net, players)
    for peer in players:
        assert rewound(peer) == []
        assert peer.core.result is not None


def test_an_honest_resume_before_the_game_began_is_not_taken_for_a_rewind(
        tmp_path: Path) -> None:
    clock = FakeClock(100.0)
    table = Table(3, TableSettings(game_id=GAME, first_tm=0), seed=5, bots=[load_bot("greedy", 0)],
                  clock=clock)
    log = GameLog.create(tmp_path, table, bots=[BotSpec("greedy", 0)])
    net = Net(table, clock)
    ana = net.join("Ana")  # the host dies before Bo comes
    log.close()
    resume(net, log.path)
    bo = net.join("Bo")
    players = {ana: load_bot("greedy", 1), bo: load_bot("random", 2)}
    play(net, players)
    assert rewound(ana) == rewound(bo) == [] and ana.core.result is not None


def test_rows_deleted_with_the_head_and_the_mark_moved_are_seen_by_every_player(
        tmp_path: Path) -> None:
    net, log, players = logged_game(tmp_path)
    play_to_round(net, players, 4)
    seen = {peer: peer.core.witness for peer in players}
    log.close()
    total = len(rows(log.path))
    cut_log(log.path, total - 40)
    resume(net, log.path)
    for peer in players:
        told = rewound(peer)
        assert [n.kind for n in told] == [EARLIER], peer.notices[-10:]
        before = seen[peer]
        assert before is not None and told[0].seen == before.count > told[0].host
        assert "went back in time" in told[0].sentence
        # Nothing is decided until the person chooses.
        assert peer.core.ready is None


def test_an_older_copy_of_the_whole_state_folder_is_seen_by_every_player(
        tmp_path: Path) -> None:
    state = tmp_path / "games"
    net, log, players = logged_game(state)
    play_to_round(net, players, 2)
    backup = tmp_path / "backup"
    shutil.copytree(state, backup)  # a backup, a VM snapshot: the files as they are now
    play_to_round(net, players, 4)
    log.close()
    shutil.rmtree(state)
    shutil.copytree(backup, state)
    resume(net, log.path)
    assert net.table.game.round == 2
    for peer in players:
        told = rewound(peer)
        assert [n.kind for n in told] == [EARLIER]
        assert (told[0].round, told[0].host_round) == (4, 2)


def test_a_player_who_goes_on_says_so_at_the_table_and_the_game_ends(tmp_path: Path) -> None:
    net, log, players = logged_game(tmp_path)
    play_to_round(net, players, 4)
    log.close()
    cut_log(log.path, len(rows(log.path)) - 40)
    resume(net, log.path)
    for peer in players:
        assert peer.core.accept_rewind(net.clock.now) is not None
    net.run()
    chats = [e["text"] for e in net.table.snapshot_events() if e["kind"] == "chat"] \
        if hasattr(net.table, "snapshot_events") else [
            e["text"] for e in net.host_snapshot(next(iter(players)))["events"]
            if e["kind"] == "chat"]
    assert len(chats) == 2 and all(c.startswith("rewind seen, I go on: the host went back")
                                   for c in chats)
    play(net, players)
    assert all(peer.core.result is not None and len(rewound(peer)) == 1 for peer in players)


def _last_commit_row(path: Path, round_: int) -> int:
    """The row before the first commitment of ``round_``'s offer step."""

    for seq, kind, data in rows(path):
        if kind == "commit" and json.loads(data)["round"] == round_:
            return seq - 1
    raise AssertionError(f"no commitment in round {round_}")


def test_a_reveal_asked_again_after_a_rollback_opens_the_commitment_the_host_kept(
        tmp_path: Path) -> None:
    """R5.3, docs/protocol.md §5 "An offer step asked again" (issue 37, protocol 4 item 2): the
    host went back to after every commitment of a step this seat revealed in, and asks for
    the reveals again. A player who goes on reveals the same offer and nonce (kept in its
    witness, the step's secret long gone), which open the commitment the host kept: no
    default offer, no violation."""
    net, log, players = logged_game(tmp_path)
    play_to_round(net, players, 3)  # round 2's offers are revealed
    shown = {peer: peer.core.witness.revealed[2] for peer in players
             if peer.core.witness is not None}
    assert len(shown) == 2
    log.close()
    commits = [seq for seq, kind, data in rows(log.path)
               if kind == "commit" and json.loads(data)["round"] == 2]
    cut_log(log.path, commits[-1])
    sent = {peer: len(peer.sent) for peer in players}
    resume(net, log.path)
    for peer in players:
        assert [n.kind for n in rewound(peer)] == [EARLIER]
        peer.core.accept_rewind(net.clock.now)
    play(net, players, until=lambda: net.table.game.round >= 3)
    for peer in players:
        reveals = [m for m in peer.sent[sent[peer]:] if m["t"] == "reveal"]
        offer, nonce, _ = shown[peer]
        assert reveals and (reveals[0]["offer"], reveals[0]["nonce"]) == (list(offer), nonce)
    events = net.host_snapshot(next(iter(players)))["events"]
    assert not [e for e in events if e["kind"] in ("violation", "timeout")]


def test_an_offer_step_rolled_back_after_the_reveals_gets_the_same_offer_again(
        tmp_path: Path) -> None:
    """R5.3: the host read every revealed offer and went back to before the commitments. The
    rewind is named; a player who goes on commits to the very same offer (the same
    commitment), and this client offers nothing else for that step."""
    net, log, players = logged_game(tmp_path)
    play_to_round(net, players, 3)  # round 2's offers are revealed
    first = {peer: [m["commitment"] for m in peer.sent if m["t"] == "commit"]
             for peer in players}
    log.close()
    cut_log(log.path, _last_commit_row(log.path, 2))
    resume(net, log.path)
    assert net.table.game.round == 2
    for peer in players:
        assert [n.kind for n in rewound(peer)] == [EARLIER]
        sent = len(peer.sent)
        peer.core.accept_rewind(net.clock.now)
        net.run()
        again = [m for m in peer.sent[sent:] if m["t"] == "commit"]
        assert again, "the seat is asked for its offer of round 2 again"
        assert again[0]["commitment"] in first[peer]  # the same offer, the same nonce
    # A client asked for an offer of a step it revealed offers no other one.
    for peer in players:
        pending = peer.core.pending
        if pending is not None and pending.kind == "commit":
            witness = peer.core.witness
            assert witness is not None and 2 in witness.revealed
            other = next(d for d in pending.legal if isinstance(d, Offer)
                         and d.cards != witness.revealed[2][0])
            with pytest.raises(ClientError, match="revealed"):
                peer.core.offer(other.cards, net.clock.now)


def test_an_offer_step_asked_again_after_its_reveal_is_named_even_in_a_forged_history(
        tmp_path: Path) -> None:
    """A host whose history hides the rewind (here: a client that kept only its reveals, as
    after a restart that lost its chain) is still caught when it asks for an offer again."""
    net, log, players = logged_game(tmp_path)
    play_to_round(net, players, 3)
    log.close()
    cut_log(log.path, _last_commit_row(log.path, 2))
    for peer in players:  # only the revealed offers are left of what it witnessed
        witness = peer.core.witness
        assert witness is not None
        peer.core.witness = Witness(GAME, revealed=witness.revealed, seat=peer.core.seat)
    resume(net, log.path)
    asked = [peer for peer in players
             if peer.core.pending is not None and peer.core.pending.kind == "commit"]
    assert asked, "nobody is asked for an offer in round 2"
    for peer in asked:
        assert [n.kind for n in rewound(peer)] == ["offer_again"]
        assert "asks again for the offer of round 2" in rewound(peer)[0].sentence


def test_the_chain_leaves_out_what_a_resumed_host_does_not_restore() -> None:
    chat = {"kind": "chat", "seat": 0, "name": "Ana", "text": "hi"}
    take: dict[str, Any] = {"kind": "take", "seat": 1, "card": 3, "commitments": {"1": b"x"}}
    assert not durable(chat) and durable(take)
    witness = Witness(GAME).after([chat, take], 1)
    assert witness.count == 1 and witness.digest == link(GENESIS, take)
    # The same event with its keys in another order is the same link.
    assert link(GENESIS, dict(reversed(list(take.items())))) == witness.digest
    assert witness.check([take, chat], 1) is None
    assert witness.check([chat], 1) is not None
    assert witness.check([chat], 1).kind == EARLIER  # type: ignore[union-attr]
    assert witness.check([{**take, "card": 4}], 1).kind == ANOTHER  # type: ignore[union-attr]
    saved = witness.with_reveal(2, (1, 3), b"n" * 32, b"c" * 32)
    assert Witness.from_json(saved.to_json()) == saved


def test_two_seats_of_one_game_on_one_computer_keep_their_own_witness(tmp_path: Path) -> None:
    from mundus_net.client.witness import WitnessFile

    store = WitnessFile(tmp_path / "witnesses")
    ana = Witness(GAME, seat=1).with_reveal(2, (1, 3), b"a" * 32, b"A" * 32)
    bo = Witness(GAME, seat=2).with_reveal(2, (4, 5), b"b" * 32, b"B" * 32)
    watcher = Witness(GAME, count=7)
    for witness in (ana, bo, watcher):
        store.save(witness)
    assert (store.get(GAME, 1), store.get(GAME, 2), store.get(GAME, None)) == (ana, bo, watcher)
    assert store.get(GAME, 0) is None and store.get("another-game", 1) is None


def test_several_seats_witnesses_are_saved_together_each_compact_in_its_own_file(
        tmp_path: Path) -> None:
    from mundus_net.client.witness import WitnessFile

    store = WitnessFile(tmp_path / "witnesses")
    ana = Witness(GAME, seat=1).with_reveal(2, (1, 3), b"a" * 32, b"A" * 32)
    bo = Witness(GAME, seat=2, count=4)
    store.save_all([ana, bo])
    assert (store.get(GAME, 1), store.get(GAME, 2)) == (ana, bo)
    assert store.path(GAME, 1) != store.path(GAME, 2)
    assert b"\n " not in store.path(GAME, 1).read_bytes()  # compact: rewritten every round


def test_witness_files_are_plain_sorted_json_named_by_a_digest_not_by_the_hosts_game_id(
        tmp_path: Path) -> None:
    """Two clients (two processes) of one computer write their own files, each what
    json.dumps makes of it, sorted and compact; a game id a host chose never names a path."""

    from mundus_net.client.witness import WitnessFile

    folder = tmp_path / "witnesses"
    mine, other = WitnessFile(folder), WitnessFile(folder)
    ana = Witness(GAME, seat=1).with_reveal(2, (1, 3), b"a" * 32, b"A" * 32)
    mine.save(ana)
    sly = Witness("../../evil", seat=2, count=3)
    other.save(sly)
    ana_later = ana.after([{"kind": "started"}], 1)
    mine.save(ana_later)
    fresh = WitnessFile(folder)
    assert (fresh.get(GAME, 1), fresh.get("../../evil", 2)) == (ana_later, sly)
    assert sorted(p.parent for p in folder.iterdir()) == [folder, folder]
    for path in folder.iterdir():
        text = path.read_text(encoding="utf-8")
        assert text == json.dumps(json.loads(text), separators=(",", ":"), sort_keys=True) + "\n"


def test_the_witness_folder_keeps_the_most_recent_games_and_reads_the_older_single_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from mundus_net.client import witness as witness_module
    from mundus_net.client.witness import WitnessFile

    monkeypatch.setattr(witness_module, "KEEP", 3)
    store = WitnessFile(tmp_path / "witnesses")
    for n in range(5):
        store.save(Witness(f"game-{n}", seat=0, count=n))
        os.utime(store.path(f"game-{n}", 0), (1000.0 + n, 1000.0 + n))  # saved in order
    store.save(Witness("game-5", seat=0, count=5))
    assert [store.get(f"game-{n}", 0) is not None for n in range(6)] == [
        False, False, False, True, True, True]
    # A witness an earlier version kept in witnesses.json is still found.
    old = Witness("old-game", seat=1, count=9)
    (tmp_path / "witnesses.json").write_text(json.dumps({
        "format": "mundus-net/witnesses/1",
        "games": {"old-game/1": {**old.to_json(), "saved": 1.0}}}))
    assert WitnessFile(tmp_path / "witnesses").get("old-game", 1) == old


def test_a_deferred_round_save_waits_for_its_owner_and_a_reveal_is_saved_at_once(
        tmp_path: Path) -> None:
    """``defer_round_witness`` (mundus bot): the once-a-round save is left to the owner
    (take_unsaved_witness, once the answers have left); a reveal's save is still made before
    the reveal is queued, and nothing the client witnessed goes unsaved."""
    net, _, players = logged_game(tmp_path / "games")
    saved: dict[Peer, list[Witness]] = {peer: [] for peer in players}
    for peer in players:
        peer.core.on_witness = saved[peer].append
        peer.core.defer_round_witness = True
    play_to_round(net, players, 3)
    for peer in players:
        assert saved[peer], "no reveal was saved"
        assert all(witness.revealed for witness in saved[peer]), "a round saved at once"
        taken = peer.core.take_unsaved_witness()
        assert taken is None or taken is peer.core.witness
        assert peer.core.take_unsaved_witness() is None  # once
        newest = taken or saved[peer][-1]
        assert peer.core.witness is not None and newest.round == peer.core.witness.round == 3


def test_a_client_restarted_after_the_rollback_still_sees_it(tmp_path: Path) -> None:
    """The witness is kept in the client's state folder (client/witness.py) at each round: a
    client that restarts between the host's rollback and its resume compares what it saw
    before the restart."""
    from mundus_net.client.core import ClientCore, ClientSettings
    from mundus_net.client.witness import WitnessFile

    net, log, players = logged_game(tmp_path / "games")
    store = WitnessFile(tmp_path / "witnesses")
    for peer in players:
        peer.core.on_witness = store.save
    play_to_round(net, players, 4)
    log.close()
    cut_log(log.path, len(rows(log.path)) - 40)
    # Both clients restart: new cores, with their tokens and the state folder only.
    fresh = []
    for peer in players:
        core = ClientCore(ClientSettings(peer.core.settings.name), token=peer.core.token,
                          load_witness=store.get, on_witness=store.save)
        fresh.append(Peer(core))
    net.peers = list(fresh)
    for peer in fresh:
        peer.core.start(net.clock.now)
    resume(net, log.path)
    for peer in fresh:
        assert [n.kind for n in rewound(peer)] == [EARLIER]
        assert rewound(peer)[0].round == 4


def test_the_terminal_client_says_the_rewind_and_offers_the_choice() -> None:
    from mundus_net.client.tui.app import Snapshot, TableModel

    model = TableModel(address="tcp://127.0.0.1:7700")
    notice = Rewound(EARLIER, 120, 80, 4, 3, "the host went back in time: its game is at "
                     "round 3, event 80, but this client saw round 4, event 120")
    model.on_notice(notice, Snapshot(None, None))
    assert model.rewound == notice
    said = " ".join(model.sentences)
    assert "The host went back in time" in said and "Press G to go on" in said
    assert "Ctrl-D to leave" in said
    model.went_on()
    assert model.rewound is None


class _FakeConnection:
    """What NetworkBot uses of a connection when it is told of a rewind."""

    def __init__(self) -> None:
        self.closed_with: bool | None = None
        self.accepted = 0

    def close(self, bye: bool = True) -> None:
        self.closed_with = bye

    def accept_rewind(self) -> None:
        self.accepted += 1


@pytest.mark.parametrize("go_on", [False, True], ids=["stop", "go-on"])
def test_a_bot_leaves_on_a_rewind_unless_told_to_go_on(go_on: bool) -> None:
    from mundus_net.client.bot import NetworkBot

    conn = _FakeConnection()
    said: list[str] = []
    bot = NetworkBot(conn, load_bot("greedy", 0), said.append,  # type: ignore[arg-type]
                     go_on_after_rewind=go_on)
    notice = Rewound(EARLIER, 120, 80, 4, 3, "the host went back in time")
    bot.handle_notice(notice)
    assert said and said[0].startswith("THE HOST WENT BACK: The host went back in time")
    if go_on:
        assert conn.accepted == 1 and conn.closed_with is None and bot.left_on_rewind is None
    else:
        assert conn.accepted == 0 and conn.closed_with is True and bot.left_on_rewind == notice


def test_the_record_carries_the_chain_every_client_that_saw_the_game_holds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:

    from mundus_net.host.cli import record_text
    from mundus_net.tools.verify import chain_words

    net, log, players = logged_game(tmp_path)
    play_to_round(net, players, 3)
    log.close()
    resume(net, log.path)  # an honest resume: the chain goes on
    play(net, players)
    meta = json.loads(record_text(net.table, None))["meta"]
    for peer in players:
        witness = peer.core.witness
        assert witness is not None
        assert (meta["chain"]["events"], meta["chain"]["digest"]) == \
            (witness.count, witness.digest.hex())
    words = chain_words(meta)
    count = meta["chain"]["events"]
    assert words is not None and f"published {count} public events" in words
    assert "resumed the game 1 time." in words
    # mundus verify prints it after the record's check.
    from mundus_net.cli import main
    from mundus_net.host.keys import HostKeys

    signed = tmp_path / "record.json"
    signed.write_text(record_text(net.table, HostKeys.generate()), encoding="utf-8")
    assert main(["verify", str(signed)]) == 0
    out = paragraphs(capsys.readouterr().out)
    at = next(i for i, line in enumerate(out) if line.startswith("ok   record:"))
    assert out[at + 1] == f"     history: {words}"


@pytest.mark.network
def test_a_real_host_resumed_from_a_rolled_back_log_is_named_by_its_network_bots(
        tmp_path: Path) -> None:
    """A real ``mundus host`` with two host bots and two ``mundus bot`` players, killed in
    round 4; 40 rows of its log deleted with the head and the mark moved; ``mundus host
    --resume``: both bots say the host went back and leave (exit status 3)."""
    import signal

    from test_host_resume import seat_network_bots, start_host

    processes: list[Process] = []
    try:
        host = start_host(processes, tmp_path, "--port", "0", "--seats", "4", "--bots",
                          "greedy,greedy", "--seed", "5", "--fixed-seed")
        _, _, game, bots = seat_network_bots(processes, host)
        host.wait_line(r"^round 4$")
        host.kill()
        assert host.proc.returncode == -signal.SIGKILL
        path = tmp_path / "games" / f"{game}.sqlite3"
        total = len(rows(path))
        assert total > 60
        cut_log(path, total - 40)
        resumed = start_host(processes, tmp_path, "--resume", game)
        resumed.wait_line(rf"resuming game {game} from ")
        for bot in bots:
            assert bot.finish() == 3, bot.err[-10:]
            said = [line for line in bot.err if line.startswith("THE HOST WENT BACK: ")]
            assert said and "The host went back in time: its game is at round" in said[0]
            assert any("left the table: The host went back in time" in line
                       for line in bot.err)
    finally:
        for process in processes:
            process.kill()


def test_a_host_resumed_from_an_older_copy_is_followed_from_its_snapshot_whatever_its_seq(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/protocol.md §5, §11 (issue 37, protocol 4 item 1): a host resumed from an older
    copy of its state folder hands out update numbers and pending ids again from that older
    point. After the welcome, a client takes the snapshot it asks for whatever its seq: it
    compares it (the rewind is named at once), follows the updates from its seq, drops what
    it buffered from the earlier run, and answers the pending ids given out again."""
    # Numbers reserved 10 at a time (1,000 in a host): the copy's reserve is passed by round 4.
    monkeypatch.setattr(gamelog, "RESERVE", 10)
    state = tmp_path / "games"
    net, log, players = logged_game(state)
    play_to_round(net, players, 2)
    backup = tmp_path / "backup"
    shutil.copytree(state, backup)
    play_to_round(net, players, 4)
    seen = {peer: peer.core.seq for peer in players}
    for peer in players:  # an update of the first run, out of order: buffered, waiting
        peer.core.receive(Channel.PUBLIC, encode({"t": "update", "seq": seen[peer] + 2,
                                                  "events": [], "changed": {"round": 77}}),
                          net.clock.now)
    log.close()
    shutil.rmtree(state)
    shutil.copytree(backup, state)
    resume(net, log.path)
    assert net.table.seq < min(seen.values())
    for peer in players:
        assert [n.kind for n in rewound(peer)] == [EARLIER]
        assert peer.core.seq == net.table.seq  # followed from the snapshot, lower or not
        peer.core.accept_rewind(net.clock.now)
    play(net, players, until=lambda: net.table.seq > max(seen.values()) + 4)
    for peer in players:
        assert peer.core.state["round"] == net.table.game.round != 77
        assert peer.core.seq == net.table.seq
    play(net, players)
    assert all(peer.core.result is not None for peer in players)
    assert not [e for e in net.host_snapshot(next(iter(players)))["events"]
                if e["kind"] in ("timeout", "violation")]


def test_a_heartbeat_behind_with_the_link_live_has_its_snapshot_compared_whatever_its_seq(
        tmp_path: Path) -> None:
    """docs/protocol.md §5, §11 (issue 37, protocol 4 item 1): no welcome comes (the link
    looks live), but a heartbeat's seq is behind what the client saw: the host it hears is
    not the history it followed. The snapshot it then asks for is compared whatever its seq
    (the rewind is named at once), and the client follows the host from it."""
    net, _, players = logged_game(tmp_path)
    ana = next(iter(players))
    play_to_round(net, players, 2)
    older = net.host_snapshot(ana)  # what a host gone back to round 2 answers
    play_to_round(net, players, 4)
    assert older["seq"] < ana.core.seq
    net.keep = lambda peer, way, message: peer is ana and way == UP and message["t"] == "snapshot"
    net.down(ana, PUBLIC, {"t": "heartbeat", "seq": older["seq"]})
    net.run()
    [(_, _, asked)] = net.kept
    net.down(ana, DEALER, {**older, "id": asked["id"]})
    assert [n.kind for n in rewound(ana)] == [EARLIER]
    assert rewound(ana)[0].host_round == 2
    assert ana.core.seq == older["seq"]


def test_the_chain_packs_each_value_in_its_shortest_msgpack_form() -> None:
    """docs/protocol.md §5 (issue 37, protocol 4 item 9): the chained bytes are the shortest
    msgpack forms, keys sorted: uint formats for integers >= 0, int formats below 0, float 64
    for every float, str 8 for text, written out byte for byte here."""
    event = {"s": "é", "n": 200, "m": -200, "kind": "x", "f": 1.0, "b": b"\x01"}
    packed = bytes.fromhex(
        "86"  # a map of 6, its keys sorted
        + "a162" + "c40101"  # "b": bin 8
        + "a166" + "cb3ff0000000000000"  # "f": float 64, even for a whole value
        + "a46b696e64" + "a178"  # "kind": fixstr
        + "a16d" + "d1ff38"  # "m": -200, int 16
        + "a16e" + "ccc8"  # "n": 200, uint 8 (never int 16)
        + "a173" + "a2c3a9")  # "s": "é", UTF-8
    assert link(GENESIS, event) == hashlib.sha256(GENESIS + packed).digest()


def test_an_offer_step_asked_again_whose_offer_is_no_longer_legal_gets_a_new_one(
        tmp_path: Path) -> None:
    """R5.3, docs/protocol.md §5 "An offer step asked again" (issue 37, protocol 4 item 2):
    when the offer a seat revealed is not among the legal offers of the step asked again (the
    rewound game dealt otherwise; forged here by taking it out of what the host says is
    legal), the client chooses another one with a fresh commitment, and the host takes it
    like any commit: no illegal reveal, no default offer, no violation."""
    net, log, players = logged_game(tmp_path)
    play_to_round(net, players, 3)  # round 2's offers are revealed
    first = {peer: [m["commitment"] for m in peer.sent if m["t"] == "commit"]
             for peer in players}
    shown = {peer: list(peer.core.witness.revealed[2][0]) for peer in players
             if peer.core.witness is not None}

    def without_the_old_offer(peer: Peer, message: dict[str, Any]) -> dict[str, Any]:
        private = message.get("private")
        if not isinstance(private, dict) or not private.get("pending"):
            return message
        pending = private["pending"]
        if pending["kind"] != "commit" or pending["detail"]["round"] != 2:
            return message
        legal = [d for d in pending["legal"] if d.get("cards") != shown[peer]]
        return {**message, "private": {**private, "pending": {**pending, "legal": legal}}}

    log.close()
    cut_log(log.path, _last_commit_row(log.path, 2))
    net.rewrite = without_the_old_offer
    resume(net, log.path)
    sent = {peer: len(peer.sent) for peer in players}
    for peer in players:
        assert [n.kind for n in rewound(peer)] == [EARLIER]
        peer.core.accept_rewind(net.clock.now)
    play(net, players, until=lambda: net.table.game.round >= 3)
    for peer in players:
        again = [m["commitment"] for m in peer.sent[sent[peer]:] if m["t"] == "commit"]
        assert again and again[0] not in first[peer], "a new offer, a new commitment"
    events = net.host_snapshot(next(iter(players)))["events"]
    assert not [e for e in events if e["kind"] in ("violation", "timeout")]
    assert all(r.code not in ("illegal", "commit_mismatch")
               for peer in players for r in peer.of(Refused))


def test_the_record_counts_every_resume_even_after_rows_are_rolled_back(
        tmp_path: Path) -> None:
    """docs/record.md `resumed` (issue 37, protocol 4 item 9): a host started 4 times (made,
    then resumed 3 times) says "resumed 3 times" though the rollback before its last start
    took the rows of the resume before it out of the log: the starts file beside the log
    keeps the count."""
    net, log, players = logged_game(tmp_path)
    play_to_round(net, players, 2)
    path = log.path
    for round_ in (3, 4):  # two resumes, each followed by some play
        log.close()
        resume(net, path)
        log = cast(GameLog, net.table.journal)
        play_to_round(net, players, round_)
    assert net.table.record.meta["resumed"] == 2
    log.close()
    resumed_rows = [seq for seq, kind, _ in rows(path) if kind == "resumed"]
    cut_log(path, resumed_rows[-1] - 1)  # the second resume's row and all after it
    resume(net, path)
    assert net.table.record.meta["resumed"] == 3
    cast(GameLog, net.table.journal).close()
    assert [kind for _, kind, _ in rows(path)].count("resumed") == 2  # the log lost one


# ``mundus host`` with its update numbers and pending ids reserved 10 at a time (1,000 in a
# host, more than a whole game gives out): the reserve of a copy of its log taken in round 2
# is passed by round 4, as a longer game passes a copy's reserve (docs/protocol.md §11).
SMALL_RESERVE_MUNDUS = [
    sys.executable, "-c", "import sys; from mundus_net.host import gamelog; gamelog.RESERVE = 10;"
    " from mundus_net.cli import main; sys.exit(main(sys.argv[1:]))"]


def _last_reserve(path: Path) -> int:
    return max(int(json.loads(data)["seq"]) for _, kind, data in rows(path) if kind == "reserve")


def _played_to_the_end_with_no_fault(bots: list[Process], host: Process, record_file: Path,
                                     went_back: str) -> GameRecord:
    """Each ``mundus bot --on-rewind go-on`` said once that the host went back (the sentence
    holding ``went_back``) and went on; the game ended with no default decision, no
    violation, no fault, and each bot's chain the record's. Returns the record."""
    results = []
    for bot in bots:
        assert bot.finish() == 0, bot.err[-20:]
        said = [line for line in bot.err if line.startswith("THE HOST WENT BACK: ")]
        assert len(said) == 1, bot.err[-20:]
        assert went_back in said[0] and "going on" in said[0], said[0]
        results.append(json.loads(bot.lines[-1]))
    assert host.finish() == 0, host.lines[-20:] + host.err[-20:]
    record = GameRecord.from_json(record_file.read_text(encoding="utf-8"))
    assert record.violations == []
    assert [d for d in record.decisions if d.by == "default"] == []
    assert [result["faults"] for result in results] == [{}, {}]
    chain = record.meta["chain"]
    assert [result["chain"] for result in results] == \
        [{"events": chain["events"], "digest": chain["digest"]}] * 2
    return record


@pytest.mark.network
def test_a_real_host_resumed_from_an_older_copy_of_its_log_is_followed_by_its_network_bots(
        tmp_path: Path) -> None:
    """docs/protocol.md §5, §11 (issue 37, protocol 4 items 1 and 2), over sockets: a real
    host with two host bots and two ``mundus bot --on-rewind go-on`` players is killed in
    round 2, its state folder copied, resumed, killed again in round 4, and resumed from the
    copy: it gives out update numbers and pending ids the bots saw already. Each bot names
    the rewind once, at the first snapshot (the host at the copy's round), goes on, answers
    the pending ids given out again, and commits or reveals again the same offers in the
    steps asked again (still legal: the same deal); the game ends with no default decision,
    no violation, no fault, and each bot's chain the record's."""
    from test_host_resume import Process, seat_network_bots

    games, backup, record_file = tmp_path / "games", tmp_path / "backup", tmp_path / "r.json"
    processes: list[Process] = []

    def host(*extra: str) -> Process:
        process = Process([*SMALL_RESERVE_MUNDUS, "host", "--bind", "127.0.0.1", "--no-beacon",
                           "--state-dir", str(games), "--key-dir", str(tmp_path / "keys"),
                           *extra])
        processes.append(process)
        return process

    try:
        # --bot-seconds 60: the test is about the rewind, not the clock. One run on a loaded
        # machine (a clean clone's suite beside another suite) recorded seat 3's round-4 commit
        # as timed out at the default 10 s; five runs since (two beside busy loops) did not.
        first = host("--port", "0", "--seats", "4", "--bots", "greedy,greedy", "--seed", "5",
                     "--fixed-seed", "--record", str(record_file), "--bot-seconds", "60")
        _, _, game, bots = seat_network_bots(processes, first, "--on-rewind", "go-on")
        first.wait_line(r"^round 2$")
        first.kill()
        shutil.copytree(games, backup)
        second = host("--resume", game)
        second.wait_line(r"^round 4$")
        second.kill()
        path = games / f"{game}.sqlite3"
        # The killed run gave out numbers past the copy's reserve: the copy gives them again.
        assert _last_reserve(path) - 10 > _last_reserve(backup / path.name)
        with closing(sqlite3.connect(backup / path.name)) as db:
            copied_round = db.execute("SELECT round FROM head").fetchone()[0]
        shutil.rmtree(games)
        shutil.copytree(backup, games)
        last = host("--resume", game)
        last.wait_line(rf"resuming game {game} from ")
        _played_to_the_end_with_no_fault(bots, last, record_file,
                                         f"its game is at round {copied_round},")
    finally:
        for process in processes:
            process.kill()


@pytest.mark.network
def test_a_real_host_rolled_back_to_before_an_announce_gets_new_offers_with_no_violation(
        tmp_path: Path) -> None:
    """R5.2, R5.3, docs/protocol.md §5 "An offer step asked again" (issue 37, protocol 4 item
    2), over sockets: a real host with two host bots and two ``mundus bot --on-rewind go-on``
    players (a strategy that answers a question asked again otherwise) is killed in round 4,
    and its log rolled back to before a network seat announced N in round 3. Asked again,
    the seat announces another N, so the offers both bots revealed in round 3 are no longer
    legal: each commits to a new offer with a fresh nonce, and the game ends with no
    ``illegal``, no default offer, no violation on the record, and each bot's chain the
    record's."""
    from test_host_resume import seat_network_bots, start_host

    record_file = tmp_path / "record.json"
    processes: list[Process] = []
    try:
        host = start_host(processes, tmp_path, "--port", "0", "--seats", "4", "--bots",
                          "greedy,greedy", "--seed", "5", "--fixed-seed", "--record",
                          str(record_file), "--bot-seconds", "60")
        _, _, game, bots = seat_network_bots(
            processes, host, "--strategy", "tests/keyed_bot.py:AskedAgainBot",
            "--on-rewind", "go-on")
        host.wait_line(r"^round 4$")
        host.kill()
        path = tmp_path / "games" / f"{game}.sqlite3"
        logged = [(seq, kind, json.loads(data)) for seq, kind, data in rows(path)]
        announce = next(seq for seq, kind, data in logged if kind == "decide"
                        and data["round"] == 3 and data["decision"]["kind"] == "announce")
        revealed = {data["seat"]: data["offer"] for _, kind, data in logged
                    if kind == "reveal" and data["round"] == 3}
        assert sorted(revealed) == [2, 3]  # the two network seats revealed in round 3
        cut_log(path, announce - 1)
        resumed = start_host(processes, tmp_path, "--resume", game)
        resumed.wait_line(rf"resuming game {game} from ")
        record = _played_to_the_end_with_no_fault(bots, resumed, record_file,
                                                  "its game is at round 3,")
        again = {o.seat: list(o.offer) for o in record.offers if o.round == 3}
        for seat, offer in revealed.items():  # another N: the old offer is not legal
            assert len(again.get(seat, offer)) != len(offer), (seat, offer, again.get(seat))
    finally:
        for process in processes:
            process.kill()
