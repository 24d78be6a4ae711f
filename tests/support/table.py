"""The host's table in a test, without sockets: made with a fake clock and talked to through
the protocol's own encoding and decoding, as over the network."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mundus_net.bots import load_bot
from mundus_net.host.table import Table, TableSettings, error_message
from mundus_net.protocol.errors import ProtocolError
from mundus_net.protocol.messages import decode_client, encode
from support.clock import FakeClock

Message = dict[str, Any]
A, B, SPECTATOR = b"conn-a", b"conn-b", b"conn-s"  # the connections of the tests' clients


def send(table: Table, conn: bytes, **message: Any) -> Message:
    """One message as the host receives it: encoded, decoded and checked, then handled (a
    message the protocol refuses is answered as the server does)."""
    try:
        decoded = decode_client(encode(message))
    except ProtocolError as err:
        return error_message(err)
    return table.handle(conn, decoded)


# What Table takes beside its settings (TableSettings).
COLLABORATORS = frozenset({"seed", "deck", "bots", "bot_names", "bot_seats", "clock", "host_seed"})


def make_table(clock: FakeClock | None = None, **options: Any) -> Table:
    """Seat 0 a greedy host bot, seats 1 and 2 for the tests; seat 1 is the first TM."""
    collaborators: dict[str, Any] = {"seed": 11, "bots": [load_bot("greedy", 0)],
                                     "clock": clock or FakeClock()}
    collaborators.update({k: v for k, v in options.items() if k in COLLABORATORS})
    settings = replace(TableSettings(first_tm=1, game_id="test-game"),
                       **{k: v for k, v in options.items() if k not in COLLABORATORS})
    return Table(3, settings, **collaborators)


def seated(clock: FakeClock | None = None, **options: Any) -> tuple[Table, str, str]:
    """A started table with A at seat 1 and B at seat 2; returns their tokens."""
    table = make_table(clock, **options)
    a = send(table, A, t="hello", name="Ana", role="player")
    b = send(table, B, t="hello", name="Bo", role="player")
    assert (a["seat"], b["seat"]) == (1, 2)
    table.advance()
    return table, a["token"], b["token"]
