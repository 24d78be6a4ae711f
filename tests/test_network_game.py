"""Whole games over loopback: a host (host.server.Host in a thread) with two host bots, and two
``mundus bot`` processes. The result is the record's when replayed; a bot killed mid-round
comes back with its token file and finishes; no client hears of another seat's offer before
every commitment is in. Only 127.0.0.1, free ports, and a timeout on every wait."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.waits import wait_until

from mundus_net.bots.base import load_bot
from mundus_net.client.bot import NetworkBot
from mundus_net.client.connection import Connection, poll_all
from mundus_net.client.core import ClientSettings
from mundus_net.client.notices import Mismatch, Synced
from mundus_net.engine.game import Result
from mundus_net.engine.record import GameRecord
from mundus_net.host.server import Host
from mundus_net.host.table import Table, TableSettings

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parent.parent
SEED = 11
WAIT = 120.0  # a deadline for every step, generous: a loaded machine is not a failure


@pytest.fixture
def host() -> Iterator[Host]:
    table = Table(4, TableSettings(bot_seconds=WAIT, heartbeat_ms=200), seed=SEED,
                  bots=[load_bot("greedy", 100), load_bot("greedy", 101)], bot_names=["hb0", "hb1"])
    server = Host(table, port=0, linger_after_end=WAIT, log=lambda text: None)
    server.start()
    yield server
    server.stop()


class BotProcess:
    """``python -m mundus_net.cli bot ...`` for one seat, with its token file and trace."""

    def __init__(self, host: Host, tmp: Path, name: str, seed: int) -> None:
        self.host = host
        self.name = name
        self.token_file = tmp / f"{name}.token"
        self.trace = tmp / f"{name}.trace"
        self.command = [sys.executable, "-m", "mundus_net.cli", "bot", "--connect",
                        host.address, "--strategy", "greedy", "--seed", str(seed), "--name",
                        name, "--token-file", str(self.token_file), "--trace", str(self.trace),
                        "--json", "--timeout", str(WAIT)]
        # The host's sockets are CURVE-encrypted: the bot pins the host's key.
        assert host.public_key is not None
        self.command += [f"--host-key={host.public_key}"]
        self.runs: list[subprocess.Popen[str]] = []
        self.start()

    def start(self) -> None:
        self.runs.append(subprocess.Popen(self.command, cwd=ROOT, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))

    @property
    def proc(self) -> subprocess.Popen[str]:
        return self.runs[-1]

    def finish(self) -> dict[str, Any]:
        out, err = self.proc.communicate(timeout=WAIT)
        assert self.proc.returncode == 0, f"{self.name} exited {self.proc.returncode}: {err}"
        assert "MISMATCH" not in err, err
        result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        return result

    def exited(self) -> bool:
        return self.proc.poll() is not None

    def output(self) -> str:
        """What an ended process wrote (its exit status and standard error)."""
        _, err = self.proc.communicate(timeout=WAIT)
        return f"exit {self.proc.returncode}: {err.strip()[-2000:]}"

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.communicate(timeout=WAIT)

    def stop(self) -> None:
        for proc in self.runs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=WAIT)


def seated(host: Host, name: str) -> bool:
    return host.call(lambda t: name in t.names)


def start_bots(host: Host, tmp: Path) -> list[BotProcess]:
    """Two network bots, one after the other, so that they take seats 2 and 3 in order."""
    bots: list[BotProcess] = []
    for seat, name in ((2, "netbot2"), (3, "netbot3")):
        bot = BotProcess(host, tmp, name, seed=seat)
        bots.append(bot)
        wait_until(lambda bot=bot: seated(host, bot.name) or bot.exited(),  # type: ignore[misc]
                   WAIT, f"{name} to join")  # (mypy cannot type a lambda's default argument)
        assert seated(host, name), f"{name} ended before it took a seat: {bot.output()}"
    return bots


def as_result(data: dict[str, Any]) -> Result:
    return Result(tuple(data["winners"]), data["reason"], tuple(data["doubloons"]),
                  tuple(data["places"]), data["rounds"])


def check_finished(host: Host, results: list[dict[str, Any]]) -> GameRecord:
    """Both clients saw the host's result, and the record replays to it."""
    # Once the game is over and every client has left, the host stops: then the table is
    # the test's to read.
    assert host.wait(WAIT), "the host did not stop after the game"
    assert host.error is None
    result = host.table.game.result
    assert result is not None
    assert [r["seat"] for r in results] == [2, 3]
    for r in results:
        assert as_result(r) == result
    record = host.table.record
    assert record.replay().result == result
    assert GameRecord.from_json(record.to_json()).replay().result == result
    return record


# -- secrecy of offers --------------------------------------------------------------------------


class OfferWatch:
    """Follows one client's public event stream: every reveal of offers must come after the
    commitments of its round (when anyone was asked to commit)."""

    def __init__(self) -> None:
        self.round = 0
        self.committed: set[int] = set()  # rounds whose commitments were published
        self.asked: set[int] = set()  # rounds with at least one committed event

    def events(self, events: list[dict[str, Any]]) -> None:
        for e in events:
            kind = e["kind"]
            if kind == "round":
                self.round = e["round"]
            elif kind == "committed":
                self.asked.add(self.round)
            elif kind == "commitments":
                self.committed.add(e["round"])
            elif kind in ("reveal", "reveals") and self.round in self.asked:
                assert self.round in self.committed, f"offers of round {self.round} shown " \
                                                     "before every commitment was in"


def check_secrecy(trace: Path, seat: int) -> int:
    """Nothing in what ``seat`` received shows another seat's offer too early. Returns the
    number of messages checked."""
    watch: OfferWatch | None = OfferWatch()
    last = 0  # the seq of the last update applied to the watched history
    # Updates since the last snapshot or welcome, in the order received: the client applies
    # those newer than a snapshot after it, wherever they are in the trace (Clone pattern).
    recent: list[dict[str, Any]] = []
    lines = trace.read_text(encoding="utf-8").splitlines()
    for line in lines:
        m = json.loads(line)["m"]
        if m["t"] == "update":
            recent.append(m)
            # Judged as the client applies them: in seq order; after a gap (a loaded machine
            # drops an update, §5) nothing until the snapshot that fills it.
            if watch is not None and m["seq"] == last + 1:
                watch.events(m["events"])
            elif watch is not None and m["seq"] > last + 1 and last:
                watch = None
            last = max(last, m["seq"])
        elif m["t"] == "welcome":
            # A new connection (a restarted bot appends to the same trace): what the old one
            # saw of the current round says nothing about the updates before the snapshot.
            watch, last = None, 0
            recent = []
        elif m["t"] == "snapshot":
            watch = OfferWatch()  # a snapshot carries the whole history again
            watch.events(m["events"])
            last = m["seq"]
            for update in sorted(recent, key=lambda u: int(u["seq"])):
                if update["seq"] == last + 1:
                    watch.events(update["events"])
                    last = update["seq"]
            recent = []
        private = m.get("private") if m["t"] in ("snapshot", "private") else None
        for e in (private or {}).get("events", ()):
            # Private parts are this seat's own: its offer, its secret decisions.
            if e["kind"] == "offer" or (e["kind"] == "decision" and "decision" in e):
                assert e["seat"] == seat, f"seat {seat} received seat {e['seat']}'s {e}"
    return len(lines)


# -- the tests ----------------------------------------------------------------------------------


def test_a_whole_game_with_two_host_bots_and_two_bot_processes(host: Host,
                                                               tmp_path: Path) -> None:
    bots = start_bots(host, tmp_path)
    try:
        results = [bot.finish() for bot in bots]
    finally:
        for bot in bots:
            bot.stop()
    record = check_finished(host, results)
    assert record.violations == []
    assert any(o.seat == 2 for o in record.offers) and any(o.seat == 3 for o in record.offers)
    for seat, bot in zip((2, 3), bots, strict=True):
        assert check_secrecy(bot.trace, seat) > 50
        saved = json.loads(bot.token_file.read_text())
        assert saved["seat"] == seat and len(saved["token"]) == 32


def test_a_bot_killed_mid_round_comes_back_with_its_token(host: Host, tmp_path: Path) -> None:
    bots = start_bots(host, tmp_path)
    victim = bots[1]
    try:
        wait_until(lambda: host.call(lambda t: t.game.round >= 2 and not t.over),
                   WAIT, "round 2")
        victim.kill()
        assert victim.proc.returncode == -signal.SIGKILL  # it died mid-game, not at the end
        wait_until(lambda: host.call(lambda t: not t.over), WAIT, "the game to wait")
        token = json.loads(victim.token_file.read_text())["token"]
        victim.start()  # the same command: the token file gives the seat back
        results = [bot.finish() for bot in bots]
    finally:
        for bot in bots:
            bot.stop()
    check_finished(host, results)
    assert host.table.seats[3].token == token
    assert host.table.game.round > 2
    assert check_secrecy(victim.trace, 3) > 50


def play_two_seats_in_one_process(host: Host, strategy: str, *, seed: int,
                                  name: str) -> tuple[list[dict[str, Any]], str]:
    """Run ``mundus bot --seats 2`` against the host to the game's end; return its JSON lines
    (one per seat) and its standard error, after checking it exited cleanly."""
    assert host.public_key is not None
    proc = subprocess.Popen(
        [sys.executable, "-m", "mundus_net.cli", "bot", "--connect", host.address,
         "--strategy", strategy, "--seed", str(seed), "--seats", "2", "--name", name, "--json",
         "--timeout", str(WAIT), f"--host-key={host.public_key}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=WAIT)
    assert proc.returncode == 0, err
    return [json.loads(line) for line in out.strip().splitlines()], err


def test_one_bot_process_plays_two_seats_over_two_connections(host: Host) -> None:
    """``mundus bot --seats 2``: two connections (two tokens, two CURVE sessions) driven by
    one process take seats 2 and 3 in turn and play the game to the end, one JSON line each.
    The game is the one two bot processes with seeds 2 and 3 play."""
    results, err = play_two_seats_in_one_process(host, "greedy", seed=2, name="pair")
    assert "MISMATCH" not in err, err
    record = check_finished(host, results)
    assert record.names[2:] == ["pair-1", "pair-2"]
    assert record.violations == []
    tokens = host.table.seats[2].token, host.table.seats[3].token
    assert all(tokens) and tokens[0] != tokens[1]


def test_the_learned_bot_plays_two_seats_over_the_network(host: Host) -> None:
    """``mundus bot --strategy learned``: the learned bot (its shipped weights) plays seats 2
    and 3 of a networked table to the end, through the same bot interface."""
    results, _ = play_two_seats_in_one_process(host, "learned", seed=4, name="nn")
    record = check_finished(host, results)
    assert record.names[2:] == ["nn-1", "nn-2"]
    assert record.violations == []


def test_one_seat_options_are_refused_with_several_seats(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mundus_net.cli", "bot", "--connect", "tcp://127.0.0.1:1",
         "--seats", "2", "--token-file", str(tmp_path / "t.json"), "--insecure"],
        cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
    assert run.returncode == 2 and "--seats 1" in run.stderr


def play_two_seats(host: Host, drop_one_update: bool = False
                   ) -> tuple[Connection, Connection, int]:
    """Seats 2 and 3 played from this thread as ``mundus bot --seats 2`` plays them: the
    second connection takes its public messages from the first one's SUB socket. With
    ``drop_one_update``, the second one never sees one of the updates handed to it. Returns
    the connections and how many snapshots the second one synced from."""
    assert host.public_key is not None
    lead = Connection(host.address, ClientSettings("lead", bot=True),
                      server_key=host.public_key, wakeable=False)
    follower = Connection(host.address, ClientSettings("follower", bot=True),
                          server_key=host.public_key, wakeable=False, public_from=lead)
    if drop_one_update:
        handle = follower._on_sub
        dropped: list[int] = []

        def lossy(message: dict[str, Any]) -> None:
            if message["t"] == "update" and follower.core.synced and not dropped \
                    and follower.core.seq > 5:
                dropped.append(int(message["seq"]))
                return
            handle(message)
        follower._on_sub = lossy  # type: ignore[method-assign]
    try:
        lead.connect(WAIT)
        follower.connect(WAIT)
        players = [NetworkBot(lead, load_bot("greedy", 2)),
                   NetworkBot(follower, load_bot("greedy", 3))]
        deadline = time.monotonic() + WAIT
        synced = 0  # the first comes with the notices connect() kept
        while any(player.playing for player in players):
            assert time.monotonic() < deadline, "the game did not end"
            for conn, notices in poll_all([lead, follower], 0.5):
                for notice in notices:
                    assert not isinstance(notice, Mismatch), notice
                    synced += conn is follower and isinstance(notice, Synced)
            for player in players:
                if player.playing:
                    player.step()
    finally:
        lead.close()
        follower.close()
    if drop_one_update:
        assert dropped, "no update was dropped"
    return lead, follower, synced


def test_a_second_seat_in_one_process_shares_the_first_ones_public_messages(
        host: Host) -> None:
    lead, follower, synced = play_two_seats(host)
    # at least the join's snapshot; a late update may cost another (a grace timer decides)
    assert synced >= 1
    assert not follower.subscribed_itself  # one SUB socket for both seats
    mine, theirs = follower.core, lead.core
    assert mine.seat == 3 and theirs.seat == 2
    assert mine.result is not None and mine.result == theirs.result
    assert (mine.seq, mine.state, mine.events) == (theirs.seq, theirs.state, theirs.events)
    assert host.wait(WAIT) and host.table.game.result == theirs.result


def test_a_seat_sharing_public_messages_recovers_a_lost_update_with_its_own_snapshot(
        host: Host) -> None:
    lead, follower, synced = play_two_seats(host, drop_one_update=True)
    assert synced >= 2  # the gap: a snapshot of its own, beyond the join's
    assert follower.core.result is not None and follower.core.result == lead.core.result
    assert (follower.core.seq, follower.core.state) == (lead.core.seq, lead.core.state)
