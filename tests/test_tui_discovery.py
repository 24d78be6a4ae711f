"""Finding tables on the LAN, on 127.0.0.1 only: the host's UDP beacon is heard by the
listener; `mundus join` without an address lists the table a `mundus host --beacon` announces
and sits at it; `mundus watch` follows it as a spectator."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from support.waits import free_udp_port
from tui_term import ROOT, Term, environment, phase

from mundus_net.bots.base import load_bot
from mundus_net.client.discovery import Listener
from mundus_net.host.beacon import table_beacon
from mundus_net.host.server import Host
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.beacon import Announcement, decode_beacon, encode_beacon
from mundus_net.protocol.messages import PROTOCOL_VERSION


def test_the_beacon_round_trips() -> None:
    a = Announcement(name="Ana's table", game="abc", port=7700, pub_port=7701, players=4,
                     free=2, started=False, address="tcp://127.0.0.1:7700")
    assert decode_beacon(encode_beacon(a)) == a


@pytest.mark.network
def test_a_beacon_is_heard_on_loopback() -> None:
    table = Table(4, TableSettings(name="Loopback table"), seed=1,
                  bots=[load_bot("greedy", i) for i in range(3)])
    host = Host(table, port=0, log=lambda text: None)
    host.start()
    port = free_udp_port()
    try:
        with Listener("127.0.0.1", port) as listener, \
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as noise:
            noise.sendto(b"not a beacon", ("127.0.0.1", port))
            noise.sendto(b'{"app": "mundus-net", "v": 1}', ("127.0.0.1", port))  # fields missing
            beacon = table_beacon(host, host.address, ("127.0.0.1", port), interval=0.1)
            beacon.start()
            tables = listener.collect(0.6)
        assert beacon.sent >= 2
        assert len(tables) == 1, tables
        found = tables[0]
        assert found.address == host.address and found.compatible
        a = found.announcement
        assert (a.name, a.players, a.free, a.started, a.game, a.pub_port, a.version) == \
            ("Loopback table", 4, 1, False, table.game_id, host.pub_port, PROTOCOL_VERSION)
        assert "1 of 4 seats free" in found.describe()
    finally:
        host.stop()
    assert host.wait(5)
    assert beacon.thread is not None
    beacon.thread.join(3)  # the beacon ends with its table
    assert not beacon.thread.is_alive()


@pytest.mark.network
def test_join_lists_the_announced_table_and_watch_follows_it(tmp_path: Path) -> None:
    port = free_udp_port()
    log = (tmp_path / "host.out").open("w")
    host = subprocess.Popen(
        [sys.executable, "-m", "mundus_net.cli", "host", "--seats", "2", "--bots", "1",
         "--bind", "127.0.0.1", "--port", "0", "--beacon", f"127.0.0.1:{port}",
         "--name", "Loopback table", "--seed", "3", "--key-dir", str(tmp_path / "keys")],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    env = environment(tmp_path)
    join = watch = None
    try:
        join = Term(["join", "--listen", f"127.0.0.1:{port}", "--seconds", "1.5", "--name",
                     "Bo"], env, cols=100, rows=30)
        m = join.wait_raw(r"1\. \"Loopback table\" at (tcp://127\.0\.0\.1:\d+): "
                          r"1 of 2 seats free, waiting for players")
        address = m.group(1)
        join.wait(lambda t: phase(t) == "offer", what="Bo's first question")
        join.wait(lambda t: re.search(r"^> Bo\b", t.text(), re.M), what="Bo's seat marked")

        watch = Term(["watch", address, "--name", "Cy"], env, cols=100, rows=30)
        watch.wait_text("Spectating")
        watch.wait_text("waiting for Bo: choose an offer")
        watch.wait_text("Spectating: no hand")  # the screen may be drawn in more than one write
        join.wait_text("Cy is watching")
        watch.send("\x04")
        watch.wait_raw(r"Watch again with:\s+\S*mundus watch " + re.escape(address))
        assert watch.finish() == 0

        join.send("\x04")
        join.wait_raw(r"Come back with:\s+\S*mundus join " + re.escape(address))
        assert join.finish() == 0
    finally:
        for term in (join, watch):
            if term is not None:
                term.close()
        host.terminate()
        host.wait(10)
        log.close()
    out = (tmp_path / "host.out").read_text()
    assert f"announced to 127.0.0.1:{port}" in out
