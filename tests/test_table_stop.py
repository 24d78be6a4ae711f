"""A stopped host tells the players (issue 13, item 9): ``table.output.announce_stop`` is the
last public event before the sockets close, and the client says it in words."""

from __future__ import annotations

from support.clock import FakeClock
from support.table import A, seated, send

from mundus_net.client.tui.sentences import sentence


def test_a_stop_is_announced_to_everyone_in_words() -> None:
    table, token_a, _ = seated(FakeClock())
    table.output.announce_stop("SIGTERM")
    table.output.flush()
    snap = send(table, A, t="snapshot", token=token_a)
    last = snap["events"][-1]
    assert last == {"kind": "stopping", "reason": "SIGTERM"}
    said = sentence(last, ["hb", "Ana", "Bo"], me=1)
    assert said is not None and "stopping the table (SIGTERM)" in said
